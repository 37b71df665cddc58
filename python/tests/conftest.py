"""Shared fixtures: small data, and tools that skip (or fail under
CIRCUITLEARN_REQUIRE_TOOLS=1, as CI sets) when missing."""

import os
import pathlib
import shutil

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

ROOT = pathlib.Path(__file__).resolve().parents[2]


def require(what, found):
    """Skips the test with a printed reason when `what` is missing, or fails it when
    CIRCUITLEARN_REQUIRE_TOOLS=1."""
    if found:
        return found
    reason = f"{what} not found"
    if os.environ.get("CIRCUITLEARN_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{reason} (CIRCUITLEARN_REQUIRE_TOOLS=1)")
    print(f"skipping: {reason}")
    pytest.skip(reason)


@pytest.fixture
def icarus():
    """Icarus Verilog on PATH."""
    require("iverilog (apt-get install iverilog)", shutil.which("iverilog") and shutil.which("vvp"))


@pytest.fixture
def cli():
    """The `circuitlearn` binary: $CIRCUITLEARN_BIN, the repository's target/{release,debug}
    build, or one on PATH."""
    candidates = [os.environ.get("CIRCUITLEARN_BIN")]
    candidates += [str(ROOT / "target" / p / "circuitlearn") for p in ("release", "debug")]
    candidates.append(shutil.which("circuitlearn"))
    found = next((c for c in candidates if c and os.access(c, os.X_OK)), None)
    return require("the circuitlearn binary (cargo build, or set CIRCUITLEARN_BIN)", found)


@pytest.fixture(scope="session")
def cancer():
    """scikit-learn's breast-cancer data, split 70/30 (stratified, seed 0)."""
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


@pytest.fixture(scope="session")
def small():
    """200 rows of breast cancer, 8 features: quick fits for the searches."""
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.RandomState(0).permutation(len(y))[:200]
    return X[rows][:, :8], y[rows]
