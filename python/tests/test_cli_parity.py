"""Same seed and data give the same circuit from Python as from `circuitlearn train`:
the test writes the training rows as a CSV, trains on it with the CLI, and compares the
CLI's classifier.aig with the estimator's circuit byte for byte."""

import json
import subprocess

import numpy as np
import pytest

from circuitlearn import LUTClassifier, RelaxedGateClassifier, cec, read_aiger


def write_csv(path, X, y):
    """A headerless numeric CSV (features, then the integer label): the CLI's layout 3.
    %.17g round-trips every float exactly."""
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt=["%.17g"] * X.shape[1] + ["%d"])


@pytest.mark.parametrize(
    "cls, model, flags",
    [
        (LUTClassifier, "lut:4:24x2,groupsum:2", ["--encoding", "thermometer:4"]),
        (RelaxedGateClassifier, "gates:24x2", ["--domain", "relaxed", "--lr", "0.05"]),
        (RelaxedGateClassifier, "gates:24x2",
         ["--domain", "relaxed", "--lr", "0.05", "--input-candidates", "4", "--hidden-candidates", "3"]),
        (RelaxedGateClassifier, "gates:24x2",
         ["--domain", "relaxed", "--lr", "0.05", "--input-candidates", "4", "--hidden-candidates", "3",
          "--straight-through-choice", "hidden"]),
        (RelaxedGateClassifier, "gates:24x2",
         ["--domain", "relaxed", "--lr", "0.05", "--boost", "2", "--boost-scale", "0.5"]),
    ],
)
def test_python_and_the_cli_learn_the_same_circuit(cls, model, flags, cli, small, tmp_path):
    X, y = small
    csv = tmp_path / "train.csv"
    write_csv(csv, X, y)
    out = tmp_path / "run"
    cmd = [cli, "train", "--data", str(csv), "--test", str(csv), "--model", model, "--epochs", "3",
           "--seed", "7", "--hardware", "none", "--out", str(out), "--json", *flags]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    metrics = json.loads(run.stdout.strip().splitlines()[-1])

    params = {"model": model, "epochs": 3, "random_state": 7}
    if cls is LUTClassifier:
        params["encoding"] = "thermometer:4"
    else:
        params["lr"] = 0.05
        if "--hidden-candidates" in flags:
            params["input_candidates"] = 4
            params["hidden_candidates"] = 3
        if "--straight-through-choice" in flags:
            params["straight_through_choice"] = "hidden"
        if "--boost" in flags:
            params["boost"] = 2
            params["boost_scale"] = 0.5
    clf = cls(**params).fit(X, y)
    (tmp_path / "python").mkdir()
    mine = tmp_path / "python" / "classifier.aig"
    clf.circuit_.to_aiger(mine)
    print(f"{cls.__name__}: CLI {metrics['and_nodes']} AND nodes, Python {clf.circuit_.and_nodes}")
    assert clf.circuit_.and_nodes == metrics["and_nodes"]
    # The AIG itself, node for node (the files' comment sections may differ).
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    read_aiger(out / "classifier.aig").to_aiger(tmp_path / "a" / "classifier.aig")
    read_aiger(mine).to_aiger(tmp_path / "b" / "classifier.aig")
    assert (tmp_path / "a" / "classifier.aig").read_bytes() == (tmp_path / "b" / "classifier.aig").read_bytes()
    # And the model: its spec, encoder and every parameter bit.
    cli_model = json.loads((out / "model.json").read_text())
    py_model = json.loads(clf._model.model_json)
    for key in ["spec", "seed", "encoder", "params", "learned_wiring", "class_names"]:
        assert py_model.get(key) == cli_model.get(key), key
    if "--hidden-candidates" in flags:
        # Both layers' wiring was learned, so both are stored.
        assert len(py_model["learned_wiring"]) == 2 and all(py_model["learned_wiring"])
    assert cec(clf.circuit_, read_aiger(out / "classifier.aig")) is True
    assert clf.score(X, y) == pytest.approx(metrics["train_accuracy"])


def test_a_specialist_cascade_is_the_clis(cli, tmp_path):
    """``specialist`` names classes by their labels; the CLI's ``--specialist`` by index:
    the same cascade either way."""
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = X[:, :8]
    csv = tmp_path / "train.csv"
    write_csv(csv, X, y)
    out = tmp_path / "run"
    cmd = [cli, "train", "--data", str(csv), "--test", str(csv), "--model", "gates:24x2", "--epochs", "3",
           "--seed", "7", "--hardware", "none", "--out", str(out), "--json", "--domain", "relaxed",
           "--lr", "0.05", "--specialist", "1,2"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    metrics = json.loads(run.stdout.strip().splitlines()[-1])
    # Labels that sort as the CLI's class indices: barolo is 1, grignolino 2.
    names = np.array(["barbera", "barolo", "grignolino"])
    clf = RelaxedGateClassifier(model="gates:24x2", epochs=3, random_state=7, lr=0.05,
                                specialist=["grignolino", "barolo"]).fit(X, names[y.astype(int)])
    py_model = json.loads(clf._model.model_json)
    assert py_model["spec"] == json.loads((out / "model.json").read_text())["spec"]
    assert py_model["spec"].endswith("cascade:3:1+2")
    assert clf.circuit_.and_nodes == metrics["and_nodes"]
    assert cec(clf.circuit_, read_aiger(out / "classifier.aig")) is True
    assert clf.score(X, names[y.astype(int)]) == pytest.approx(metrics["train_accuracy"])
    with pytest.raises(ValueError, match="not classes of y"):
        RelaxedGateClassifier(model="gates:24x2", epochs=1, specialist=["merlot", "barolo"]).fit(
            X, names[y.astype(int)])
