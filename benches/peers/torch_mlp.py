"""PyTorch peer of `circuitlearn train --data fashion-mnist --domain smooth` (a comparison,
never a dependency): the same MLP (784-256-128-10, ReLU; `mlp:256x128`), the same data (Debian's Fashion-MNIST
IDX files, pixels / 255), softmax cross-entropy, Adam lr 1e-3, batch 128, shuffled each
epoch, on the CPU. Prints the seconds of each epoch's training steps and the test accuracy.

Usage: python torch_mlp.py [--epochs N] [--threads T] [--dir DIR]
"""
import argparse
import gzip
import os
import time

import torch


def read_idx(path):
    """An IDX file as a uint8 tensor of its shape; `path` or, when it is missing, `path.gz`."""
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) as f:
        raw = f.read()
    ndims = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndims)]
    data = torch.frombuffer(bytearray(raw[4 + 4 * ndims:]), dtype=torch.uint8)
    return data.reshape(dims)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--dir", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--batch", type=int, default=128)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    load = lambda n: read_idx(os.path.join(a.dir, n))
    xtr = load("train-images-idx3-ubyte.gz").reshape(-1, 784).float() / 255
    ytr = load("train-labels-idx1-ubyte.gz").long()
    xte = load("t10k-images-idx3-ubyte.gz").reshape(-1, 784).float() / 255
    yte = load("t10k-labels-idx1-ubyte.gz").long()
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10),
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = xtr.shape[0]
    times = []
    for epoch in range(a.epochs):
        t0 = time.perf_counter()
        perm = torch.randperm(n)
        for i in range(0, n, a.batch):
            idx = perm[i:i + a.batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - t0)
        print(f"epoch {epoch + 1}: {times[-1]:.3f}s", flush=True)
    with torch.no_grad():
        acc = (model(xte).argmax(1) == yte).float().mean().item()
    print(f"torch {torch.__version__}, threads {a.threads}: epoch seconds {[round(t, 3) for t in times]}, "
          f"mean {sum(times) / len(times):.3f}s, test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
