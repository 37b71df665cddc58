"""RingClassifier (the fixed-point ring model, ``--domain poly``): scikit-learn's
conventions, its circuit computing the scores it predicts from, pickling, and the same
model and circuit as ``circuitlearn train --domain poly`` for the same seed and data."""

import json
import pickle
import subprocess
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import check_estimator

from circuitlearn import RingClassifier, read_aiger
from test_cli_parity import write_csv
from test_estimators import ALLOWED_SKIPS


def test_check_estimator_passes_or_skips_only_the_listed_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(RingClassifier(epochs=10, passes="strash"), on_fail=None)
    assert len(results) > 40
    for r in results:
        if r["status"] == "skipped":
            assert r["check_name"] in ALLOWED_SKIPS, f"{r['check_name']} skipped: {r['exception']}"
        else:
            assert r["status"] == "passed", f"{r['check_name']}: {r['exception']}"
    assert not hasattr(RingClassifier(), "predict_proba"), "ring scores are not probabilities"


def signed_words(bits, width):
    """Output bits, one word of `width` bits per column group (least significant first),
    as signed integers."""
    words = bits.reshape(len(bits), -1, width).astype(np.int64)
    v = (words * (1 << np.arange(width, dtype=np.int64))).sum(axis=2)
    return np.where(v >= 1 << (width - 1), v - (1 << width), v)


def test_breast_cancer_accuracy_and_the_circuit_computes_the_scores(cancer):
    X_train, X_test, y_train, y_test = cancer
    clf = RingClassifier(ring="z2k:24", random_state=1).fit(X_train, y_train)
    acc = clf.score(X_test, y_test)
    print(f"RingClassifier {clf.model_spec_}: test accuracy {acc:.4f}, {clf.circuit_.and_nodes} AND nodes")
    assert acc >= 0.9
    assert clf.metrics_["and_nodes"] == clf.circuit_.and_nodes
    bits = clf.encode_bits(X_test)
    assert bits.shape == (len(X_test), clf.n_input_bits_) == (len(X_test), clf.circuit_.n_inputs) == (len(X_test), 30 * 24)
    scores = signed_words(clf.circuit_.predict_bits(bits), 24)
    np.testing.assert_array_equal(scores, clf._model.scores(X_test))
    np.testing.assert_array_equal(clf.classes_[scores.argmax(axis=1)], clf.predict(X_test))
    d = clf.decision_function(X_test)
    np.testing.assert_allclose(d, (scores[:, 1] - scores[:, 0]) / 2.0**8)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X_test), clf.predict(X_test))
    assert again.circuit_.and_nodes == clf.circuit_.and_nodes


def test_grid_search_over_ring_models(small):
    X, y = small
    search = GridSearchCV(RingClassifier(epochs=5, passes="strash"), {"model": ["linear", "mlp:2"], "ring": ["z2k:20", "sat:1000000"]}, cv=2)
    search.fit(X, y)
    assert search.best_params_["model"] in ("linear", "mlp:2")
    assert search.best_score_ > 0.8


def test_python_and_the_cli_learn_the_same_ring_model(cli, small, tmp_path):
    X, y = small
    csv = tmp_path / "train.csv"
    write_csv(csv, X, y)
    out = tmp_path / "run"
    cmd = [cli, "train", "--domain", "poly", "--data", str(csv), "--test", str(csv), "--model", "mlp:3",
           "--ring", "z2k:24", "--epochs", "4", "--seed", "7", "--hardware", "none", "--out", str(out), "--json"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    metrics = json.loads(run.stdout.strip().splitlines()[-1])
    clf = RingClassifier(model="mlp:3", ring="z2k:24", epochs=4, random_state=7).fit(X, y)
    cli_model = json.loads((out / "model.json").read_text())
    py_model = json.loads(clf._model.model_json)
    for key in ["model", "ring", "frac_bits", "seed", "class_names", "feature_offset", "feature_scale", "params"]:
        assert py_model.get(key) == cli_model.get(key), key
    assert clf.circuit_.and_nodes == metrics["and_nodes"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    read_aiger(out / "classifier.aig").to_aiger(tmp_path / "a" / "c.aig")
    (tmp_path / "python").mkdir()
    clf.circuit_.to_aiger(tmp_path / "python" / "classifier.aig")
    read_aiger(tmp_path / "python" / "classifier.aig").to_aiger(tmp_path / "b" / "c.aig")
    assert (tmp_path / "a" / "c.aig").read_bytes() == (tmp_path / "b" / "c.aig").read_bytes()
    assert clf.score(X, y) == pytest.approx(metrics["train_accuracy"])
