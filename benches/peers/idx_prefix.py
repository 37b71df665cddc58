"""Writes the first N training examples (and the first M test examples) of an MNIST-layout
IDX directory into OUT, uncompressed, so that `circuitlearn train --data OUT` and
gates_epoch.py time the same epoch on a prefix of Fashion-MNIST.

Usage: python3 idx_prefix.py SRC OUT N [M]
"""
import gzip
import os
import sys


def read(path):
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) as f:
        return f.read()


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    m = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    os.makedirs(out, exist_ok=True)
    for split, k in (("train", n), ("t10k", m)):
        img = read(os.path.join(src, f"{split}-images-idx3-ubyte"))
        lab = read(os.path.join(src, f"{split}-labels-idx1-ubyte"))
        with open(os.path.join(out, f"{split}-images-idx3-ubyte"), "wb") as f:
            f.write(img[:4] + k.to_bytes(4, "big") + img[8:16] + img[16:16 + 784 * k])
        with open(os.path.join(out, f"{split}-labels-idx1-ubyte"), "wb") as f:
            f.write(lab[:4] + k.to_bytes(4, "big") + lab[8 + 0:8 + k])


if __name__ == "__main__":
    main()
