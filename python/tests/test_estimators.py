"""The estimators: accuracy on breast cancer, scikit-learn's conventions (check_estimator,
Pipeline, GridSearchCV, pickling), the circuit agreeing with predict, errors."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from circuitlearn import LUTClassifier, RelaxedGateClassifier

ESTIMATORS = [LUTClassifier, RelaxedGateClassifier]

# Checks check_estimator may skip, and why (anything else skipped or failed fails the test).
ALLOWED_SKIPS = {
    # Array API inputs (cupy, torch, ...): the estimators take numpy arrays only.
    "check_array_api_input": "the estimators take numpy arrays (converted), not array-API namespaces",
    # Runs only when pandas is installed; the package does not depend on it.
    "check_classifier_data_not_an_array": "needs pandas, which the package does not depend on",
}


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_check_estimator_passes_or_skips_only_the_listed_checks(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(cls(), on_fail=None)
    assert len(results) > 40
    for r in results:
        if r["status"] == "skipped":
            assert r["check_name"] in ALLOWED_SKIPS, f"{r['check_name']} skipped: {r['exception']}"
            print(f"{cls.__name__}: skipped {r['check_name']}: {ALLOWED_SKIPS[r['check_name']]}")
        else:
            assert r["status"] == "passed", f"{r['check_name']}: {r['exception']}"


@pytest.mark.parametrize("cls, least", [(LUTClassifier, 0.9), (RelaxedGateClassifier, 0.85)])
def test_breast_cancer_accuracy_and_the_circuit_is_the_classifier(cls, least, cancer):
    X_train, X_test, y_train, y_test = cancer
    clf = cls(random_state=1).fit(X_train, y_train)
    acc = clf.score(X_test, y_test)
    print(f"{cls.__name__} {clf.model_spec_}: test accuracy {acc:.4f}, {clf.circuit_.and_nodes} AND nodes")
    assert acc >= least
    assert clf.n_features_in_ == 30 and list(clf.classes_) == [0, 1]
    assert clf.metrics_["and_nodes"] == clf.circuit_.and_nodes
    # The circuit reads the encoded bits and outputs the class index.
    bits = clf.encode_bits(X_test)
    assert bits.shape == (len(X_test), clf.n_input_bits_) == (len(X_test), clf.circuit_.n_inputs)
    out = clf.circuit_.predict_bits(bits)
    index = (out * (1 << np.arange(out.shape[1]))).sum(axis=1)
    np.testing.assert_array_equal(clf.classes_[index], clf.predict(X_test))
    proba = clf.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X_test))


def test_string_labels_pipeline_and_pickle(small):
    X, y = small
    labels = np.array(["benign", "malignant"])[y]
    pipe = make_pipeline(StandardScaler(), LUTClassifier(model="lut:4:32x1", epochs=5))
    pipe.fit(X, labels)
    assert set(pipe.predict(X)) <= {"benign", "malignant"}
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict(X), pipe.predict(X))
    np.testing.assert_array_equal(again.predict_proba(X), pipe.predict_proba(X))
    a, b = again[-1].circuit_, pipe[-1].circuit_
    assert (a.and_nodes, a.n_inputs, a.n_outputs) == (b.and_nodes, b.n_inputs, b.n_outputs)


def test_same_seed_same_circuit_other_seed_another(small, tmp_path):
    X, y = small
    fit = lambda seed, jobs: LUTClassifier(model="lut:4:16x1", epochs=3, random_state=seed, n_jobs=jobs).fit(X, y)
    paths = []
    for i, (seed, jobs) in enumerate([(3, 1), (3, 2), (4, 1)]):
        p = tmp_path / f"c{i}.aig"
        fit(seed, jobs).circuit_.to_aiger(p)
        paths.append(p.read_bytes())
    assert paths[0] == paths[1], "the thread count changed the circuit"
    assert paths[0] != paths[2], "another seed gave the same circuit"


def test_fits_in_threads_release_the_gil_and_agree_with_sequential_fits(small, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    X, y = small
    make = lambda seed: LUTClassifier(model="lut:4:16x1", epochs=3, random_state=seed, n_jobs=1)
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda s: make(s).fit(X, y), range(4)))
    for seed, clf in enumerate(together):
        alone = make(seed).fit(X, y)
        np.testing.assert_array_equal(clf.predict_proba(X), alone.predict_proba(X))
        assert clf.metrics_["and_nodes"] == alone.metrics_["and_nodes"]


def test_grid_search_over_model_specs(small):
    X, y = small
    grid = GridSearchCV(
        LUTClassifier(epochs=3),
        {"model": ["lut:2:8x1", "lut:4:32x1", "lut:4:16x2"], "encoding": ["thermometer:4"]},
        cv=3,
    )
    grid.fit(X, y)
    print("best", grid.best_params_, f"{grid.best_score_:.4f}")
    assert grid.best_params_["model"] in {"lut:2:8x1", "lut:4:32x1", "lut:4:16x2"}
    assert len(grid.cv_results_["mean_test_score"]) == 3
    assert grid.best_estimator_.circuit_.and_nodes > 0
    relaxed = GridSearchCV(RelaxedGateClassifier(epochs=3), {"model": ["gates:16x1", "gates:32x2"]}, cv=2)
    relaxed.fit(X, y)
    assert relaxed.best_params_["model"] in {"gates:16x1", "gates:32x2"}


@pytest.mark.parametrize(
    "params, message",
    [
        ({"model": "lut:6:banana"}, "--model: bad model spec"),
        ({"encoding": "thermometer:0"}, "--encoding: B must be in 1..=4096"),
        ({"passes": "strash,nonsense"}, "--passes"),
        ({"epochs": 1, "lr": 2.0}, "--lr"),
    ],
)
def test_bad_options_raise_value_error_with_the_library_message(params, message, small):
    X, y = small
    with pytest.raises(ValueError, match=message):
        LUTClassifier(**params).fit(X, y)


def test_a_model_of_the_other_domain_is_refused(small):
    X, y = small
    with pytest.raises(ValueError, match="gates:16x1 is a relaxed model"):
        LUTClassifier(model="gates:16x1").fit(X, y)
    with pytest.raises(ValueError, match="--model"):
        RelaxedGateClassifier(model="table", epochs=1).fit(X, y)
