#!/usr/bin/env python3
"""A specialist cascade on Fashion-MNIST, measured from `circuitlearn eval --predictions`
tables (issue 28; BENCHMARKS.md, "a specialist for the four tops").

The cascade: a first network names a class among all ten; when it names one of the
specialist's classes (by default the four tops: T-shirt, pullover, coat, shirt), the class
is the argmax over those of the first network's votes plus the specialist's. The
specialist is a LUT network trained on the images of its classes only. Nothing here is in
the tool: this script writes the specialist's training data and scores the cascade.

  # 1. the specialist's data for validation fold I/6 of the training images, as the CLI's
  #    --valid-fold cuts it (train: its classes outside the fold; t10k: the whole fold)
  python3 benches/specialist_cascade.py data --fold 6 --out spec-f6
  # 2. the first network on the fold, the specialist on its data, both scored
  circuitlearn train --preset fashion-mnist-small --valid-fold 6/6 --seed 0 --hardware none --out n1
  circuitlearn eval --model n1/model.json --split test --predictions n1.tsv
  circuitlearn train --preset fashion-mnist-small --data spec-f6 --tau 8 --seed 1 --hardware none --out sp
  circuitlearn eval --model sp/model.json --data spec-f6 --predictions sp.tsv
  # 3. the cascade's accuracy (the first network's alone beside it)
  python3 benches/specialist_cascade.py score n1.tsv sp.tsv

  # a specialist that sees a view beside its pixels (28 x 56 images; BENCHMARKS.md, "a
  # contrast view for the specialist"): the script writes its moved copies too (needs numpy)
  python3 benches/specialist_cascade.py data --fold 6 --shifts 1 --view grad --out spec-grad-f6
  circuitlearn train --preset fashion-mnist-small --data spec-grad-f6 --tau 8 --seed 1 --hardware none --out spg
  circuitlearn eval --model spg/model.json --data spec-grad-f6 --predictions spg.tsv
  python3 benches/specialist_cascade.py score n1.tsv spg.tsv

(The accuracy `eval` prints for the specialist means nothing: the images outside its
classes carry label 0 in its data. `score` reads the true labels from n1.tsv.)

`data --test` writes the test split as t10k instead of a fold (all training images of the
classes train). Standard library only but for `--shifts` and `--view` (numpy); the images are read from Debian's
dataset-fashion-mnist (or --source, a folder of the four MNIST-layout .gz files).
"""
import argparse
import csv
import gzip
import os
import struct
import sys

TOPS = "0,2,4,6"
PER_CLASS = 6000  # training images per class; a fold is a sixth of each class


def read_idx(source, split):
    with gzip.open(os.path.join(source, f"{split}-images-idx3-ubyte.gz")) as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 2051:
            sys.exit(f"{f.name}: not an IDX image file")
        pixels = f.read()
    with gzip.open(os.path.join(source, f"{split}-labels-idx1-ubyte.gz")) as f:
        magic, m = struct.unpack(">II", f.read(8))
        if magic != 2049 or m != n:
            sys.exit(f"{f.name}: not the labels of {n} images")
        labels = f.read()
    size = rows * cols
    return [pixels[i * size:(i + 1) * size] for i in range(n)], list(labels), (rows, cols)


def write_atomic(path, chunks):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.writelines(chunks)
    os.replace(tmp, path)


def write_idx(out, split, images, labels, shape):
    """Labels are the class's index among the specialist's classes (0 for the others:
    `score` reads the true labels from the first network's table)."""
    head = struct.pack(">IIII", 2051, len(images), *shape)
    write_atomic(os.path.join(out, f"{split}-images-idx3-ubyte"), [head, *images])
    head = struct.pack(">II", 2049, len(labels))
    write_atomic(os.path.join(out, f"{split}-labels-idx1-ubyte"), [head, bytes(labels)])


def data(a):
    classes = [int(c) for c in a.classes.split(",")]
    index = {c: i for i, c in enumerate(classes)}
    images, labels, shape = read_idx(a.source, "train")
    if a.test:
        held = [False] * len(labels)
        t_images, t_labels, _ = read_idx(a.source, "t10k")
    else:
        if not 1 <= a.fold <= 6:
            sys.exit("--fold: 1 to 6 (a fold of 6)")
        # Part I of each class's images in file order, as `--valid-fold I/6` cuts them.
        seen, held = {}, []
        for y in labels:
            k = seen.get(y, 0)
            seen[y] = k + 1
            held.append((a.fold - 1) * PER_CLASS // 6 <= k < a.fold * PER_CLASS // 6)
        t_images = [x for x, h in zip(images, held) if h]
        t_labels = [y for y, h in zip(labels, held) if h]
    train = [(x, index[y]) for x, y, h in zip(images, labels, held) if not h and y in index]
    x_train, y_train, t_shape = [x for x, _ in train], [y for _, y in train], shape
    if a.shifts or a.view:
        x_train, y_train, t_images, t_shape = moved_and_viewed(x_train, y_train, t_images, shape, a.shifts, a.view)
    os.makedirs(a.out, exist_ok=True)
    write_idx(a.out, "train", x_train, y_train, t_shape)
    write_idx(a.out, "t10k", t_images, [index.get(y, 0) for y in t_labels], t_shape)
    print(f"{a.out}: {len(x_train)} training examples of classes {a.classes}, {len(t_images)} to score")


def moved_and_viewed(images, labels, t_images, shape, shifts, view):
    """The training images and their copies moved by 1 to `shifts` pixels right, left, down
    and up (the tool's order, the pixels moved in black), as `--specialist-shifts` makes
    them; with `view`, every image (and the images to score) becomes twice as wide, the
    view of it beside it: `grad`, |p(x+1) - p(x-1)| + |p(y+1) - p(y-1)| clipped to 255
    (a contrast view), or `max`, the 3 x 3 grey dilation (a pooled view). Needs numpy."""
    try:
        import numpy as np
    except ImportError:
        sys.exit("--shifts and --view need numpy (pip install numpy)")
    rows, cols = shape

    def move(a, dx, dy):
        b = np.zeros_like(a)
        b[:, max(dy, 0):rows + min(dy, 0), max(dx, 0):cols + min(dx, 0)] = \
            a[:, max(-dy, 0):rows + min(-dy, 0), max(-dx, 0):cols + min(-dx, 0)]
        return b

    def beside(a):
        if view is None:
            return a
        if view == "max":
            v = a.copy()
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    v = np.maximum(v, move(a, dx, dy))
        else:
            f = a.astype(np.int32)
            g = np.abs(move(f, -1, 0) - move(f, 1, 0)) + np.abs(move(f, 0, -1) - move(f, 0, 1))
            v = np.clip(g, 0, 255).astype(np.uint8)
        return np.concatenate([a, v], axis=2)

    def array(xs):
        return np.frombuffer(b"".join(xs), np.uint8).reshape(len(xs), rows, cols)

    x = array(images)
    moves = [(s * dx, s * dy) for s in range(1, shifts + 1) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    parts = [beside(x)] + [beside(move(x, dx, dy)) for dx, dy in moves]
    out = [bytes(img) for part in parts for img in part]
    shown = beside(array(t_images))
    return out, labels * (1 + len(moves)), [bytes(img) for img in shown], shown.shape[1:]


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    header, body = rows[0], rows[1:]
    scores = [i for i, h in enumerate(header) if h.startswith("score:")]
    if not scores:
        sys.exit(f"{path}: no score columns (eval --predictions of a LUT network)")
    return body, scores


def score(a):
    classes = [int(c) for c in a.classes.split(",")]
    base, base_cols = table(a.base)
    specs = [table(p) for p in a.specialists]
    right_base = right = 0
    for e, row in enumerate(base):
        votes = [int(row[i]) for i in base_cols]
        label, first = int(row[1]), int(row[2])
        final = first
        if first in classes:
            total = [votes[c] for c in classes]
            for body, cols in specs:
                if len(body) != len(base) or len(cols) != len(classes):
                    sys.exit("a specialist's table has other examples or classes than the first network's")
                for j, i in enumerate(cols):
                    total[j] += int(body[e][i])
            final = classes[max(range(len(classes)), key=lambda j: (total[j], -j))]
        right_base += first == label
        right += final == label
    n = len(base)
    print(f"first network {right_base / n:.4f}, cascade {right / n:.4f} on {n} examples")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("data", help="write a specialist's training data and the images to score")
    d.add_argument("--fold", type=int, default=6, help="validation fold I of 6 (default 6)")
    d.add_argument("--test", action="store_true", help="score the test split instead of a fold")
    d.add_argument("--classes", default=TOPS, help=f"the specialist's classes (default {TOPS})")
    d.add_argument("--shifts", type=int, default=0,
                   help="also write the copies moved by 1 to N pixels each way (for --view; needs numpy)")
    d.add_argument("--view", choices=["grad", "max"],
                   help="each image twice as wide, a view of it beside it (needs numpy)")
    d.add_argument("--source", default="/usr/share/datasets/fashion-mnist")
    d.add_argument("--out", required=True, help="the IDX folder to write")
    s = sub.add_parser("score", help="the cascade's accuracy from eval --predictions tables")
    s.add_argument("base", help="the first network's table")
    s.add_argument("specialists", nargs="+", help="the specialists' tables (their votes add up)")
    s.add_argument("--classes", default=TOPS)
    a = p.parse_args()
    data(a) if a.command == "data" else score(a)


if __name__ == "__main__":
    main()
