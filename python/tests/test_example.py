"""The README's example: trains on breast cancer, prints accuracy, writes Verilog and
verifies it in Icarus."""

import pathlib
import re
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "breast_cancer.py"


def test_the_breast_cancer_example_runs_and_verifies(icarus, tmp_path):
    run = subprocess.run([sys.executable, str(EXAMPLE), "--out", str(tmp_path), "--epochs", "10"],
                         capture_output=True, text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 0, run.stderr
    acc = float(re.search(r"test accuracy ([0-9.]+)", run.stdout).group(1))
    assert acc > 0.85
    assert "module classifier" in (tmp_path / "classifier.v").read_text()
    assert "Icarus: pass" in run.stdout
