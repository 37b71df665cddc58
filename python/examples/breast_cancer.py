"""Train a LUT network on scikit-learn's breast-cancer data, print its accuracy, write
the circuit as Verilog and check that Verilog in Icarus against the Rust simulator.

    python python/examples/breast_cancer.py [--out DIR]
"""

import argparse
import pathlib

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from circuitlearn import LUTClassifier


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="breast_cancer_circuit", help="directory for the Verilog and its bench")
    ap.add_argument("--epochs", type=int, default=20)
    args = ap.parse_args()

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    clf = LUTClassifier(model="lut:6:64x1", epochs=args.epochs, random_state=0).fit(X_train, y_train)
    print(f"{clf.model_spec_}: train accuracy {clf.score(X_train, y_train):.4f}, "
          f"test accuracy {clf.score(X_test, y_test):.4f}")

    circuit = clf.circuit_
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    circuit.to_verilog(out / "classifier.v")
    print(f"wrote {out / 'classifier.v'}: {circuit.n_inputs} input bits, {circuit.and_nodes} AND nodes, "
          f"depth {circuit.depth}")

    # The bench replays the encoded test rows; expected outputs come from the Rust simulator.
    try:
        result = circuit.verify_icarus(vectors=clf.encode_bits(X_test), workdir=out / "icarus")
    except OSError as e:  # Icarus not installed
        print(f"Icarus: skipped ({e})")
        return
    print(f"Icarus: {result['outcome']} ({result['vectors']} vectors)")


if __name__ == "__main__":
    main()
