"""The accuracy / AND-node table of BENCHMARKS.md (the Python package section): each
estimator on breast cancer and digits, 70/30 stratified split, seed 0.

    python python/examples/accuracy_table.py
"""
import time
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from circuitlearn import LUTClassifier, RelaxedGateClassifier
for name, load in [("breast-cancer", load_breast_cancer), ("digits", load_digits)]:
    X, y = load(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    for est in [LUTClassifier(), LUTClassifier(model="lut:6:512x1"), RelaxedGateClassifier(), RelaxedGateClassifier(model="gates:1000x2")]:
        t = time.perf_counter(); est.fit(Xtr, ytr); t = time.perf_counter() - t
        print(f"| {name} | {type(est).__name__} | {est.model_spec_} | {est.score(Xte, yte):.4f} | {est.circuit_.and_nodes} | {t:.2f} |")
