"""circuitlearn: learn circuits from data, from Python.

Estimators that follow scikit-learn's conventions, trained by the Rust library's own
pipeline (the one behind ``circuitlearn train``), and the learned circuit as an object
that simulates, writes Verilog / BLIF / AIGER and checks itself in Icarus Verilog:

>>> from circuitlearn import LUTClassifier
>>> clf = LUTClassifier(epochs=5).fit(X, y)          # doctest: +SKIP
>>> clf.circuit_.and_nodes, clf.circuit_.to_verilog("clf.v")   # doctest: +SKIP

Estimators
    :class:`LUTClassifier` -- a LUT network trained by reverse derivative ascent (RDA).
    :class:`RelaxedGateClassifier` -- relaxed logic gates trained by Adam, discretised.

Circuits
    :class:`Circuit` (``clf.circuit_``), :func:`read_blif`, :func:`read_aiger`,
    :func:`opt` (pass scripts), :func:`cec` (equivalence), :func:`map` (LUT mapping).

Errors raise ``ValueError`` (bad input), ``OSError`` (files, missing tools) or
``RuntimeError`` (a failed check), with the library's messages.
"""

from ._native import Circuit, __version__, cec, map, opt, read_aiger, read_blif
from .estimators import LUTClassifier, RelaxedGateClassifier, RingClassifier

__all__ = [
    "Circuit",
    "LUTClassifier",
    "RelaxedGateClassifier",
    "RingClassifier",
    "cec",
    "map",
    "opt",
    "read_aiger",
    "read_blif",
    "__version__",
]
