"""Circuits from Python: writers and readers round-trip to equivalent circuits, passes and
LUT mapping are proven equivalent, cec tells circuits apart, Icarus agrees with the
simulator, and bad files raise the library's errors."""

import pickle

import numpy as np
import pytest

import circuitlearn as cl
from circuitlearn import LUTClassifier


@pytest.fixture(scope="module")
def trained():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6]
    return LUTClassifier(model="lut:4:16x1", epochs=3, encoding="thermometer:2").fit(X, y), X, y


def test_writers_and_readers_round_trip(trained, tmp_path):
    clf, _, _ = trained
    c = clf.circuit_
    assert c.n_inputs == 12 and c.n_outputs == 1 and c.and_nodes > 0
    c.to_verilog(tmp_path / "c.v")
    assert "module classifier" in (tmp_path / "c.v").read_text()
    c.to_blif(tmp_path / "c.blif")
    c.to_aiger(tmp_path / "c.aig")
    c.to_aiger(tmp_path / "c.aag")
    assert (tmp_path / "c.aag").read_text().startswith("aag ")
    for back in [cl.read_blif(tmp_path / "c.blif"), cl.read_aiger(tmp_path / "c.aig"), cl.read_aiger(tmp_path / "c.aag")]:
        assert cl.cec(c, back) is True
    assert cl.read_aiger(tmp_path / "c.aig").and_nodes == c.and_nodes
    again = pickle.loads(pickle.dumps(c))
    assert cl.cec(c, again) is True and again.and_nodes == c.and_nodes


def test_opt_and_map_are_equivalent_and_cec_finds_differences(trained):
    clf, X, y = trained
    c = clf.circuit_
    smaller = cl.opt(c, "resyn2", check=True)
    assert smaller.and_nodes <= c.and_nodes
    assert cl.cec(c, smaller) is True
    mapped = cl.map(c, lut=4)
    assert mapped.luts is not None and 0 < mapped.luts <= c.and_nodes
    assert cl.cec(c, mapped) is True
    bits = clf.encode_bits(X)
    np.testing.assert_array_equal(mapped.predict_bits(bits), c.predict_bits(bits))
    other = LUTClassifier(model="lut:4:16x1", epochs=3, encoding="thermometer:2", random_state=9).fit(X, y)
    assert cl.cec(c, other.circuit_) is False


def test_errors_are_value_and_os_errors(trained, tmp_path):
    clf, _, _ = trained
    with pytest.raises(OSError, match="nope.blif"):
        cl.read_blif(tmp_path / "nope.blif")
    bad = tmp_path / "bad.blif"
    bad.write_text(".model m\n.inputs a\n.outputs y\n.names a b y\n11 1\n.end\n")
    with pytest.raises(ValueError, match="bad.blif"):
        cl.read_blif(bad)
    (tmp_path / "bad.aag").write_text("aag 1 1 0 1 0\n2\n9\n")
    with pytest.raises(ValueError, match="bad.aag"):
        cl.read_aiger(tmp_path / "bad.aag")
    with pytest.raises(ValueError, match="unknown pass"):
        cl.opt(clf.circuit_, "strash,frobnicate")
    with pytest.raises(ValueError, match="columns"):
        clf.circuit_.predict_bits(np.zeros((2, 3)))
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError, match="writing"):
        clf.circuit_.to_verilog(tmp_path / "file" / "c.v")
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((2, 5)))


def test_verify_icarus_passes_on_random_and_given_vectors(trained, icarus, tmp_path):
    clf, X, y = trained
    result = clf.circuit_.verify_icarus(n_random=300, seed=1)
    assert result["outcome"] == "pass" and result["vectors"] == 300
    result = cl.map(clf.circuit_, lut=3).verify_icarus(vectors=clf.encode_bits(X[:50]), workdir=tmp_path / "icarus")
    assert result["outcome"] == "pass" and result["vectors"] == 50
    assert (tmp_path / "icarus" / "classifier.v").exists()
