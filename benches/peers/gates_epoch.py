"""Training seconds of a relaxed logic-gate network (softmax over the 16 two-input gates,
fixed random wiring, GroupSum over 10 classes / tau, softmax cross-entropy, Adam) in a
peer, on the network, data shape, batch and optimiser of

    circuitlearn train --data DIR --domain relaxed --model gates:WxD --encoding uniform:B \
        --tau TAU --epochs 1 --batch BATCH --threads T --passes strash --hardware none --json

(whose `seconds` is the epoch's training time). DIR is a directory of MNIST-layout IDX files
(Fashion-MNIST or a prefix of it); each pixel becomes B threshold bits at (k+1)/(B+1) of the
range, feature-major, as `uniform:B` does, given to the peer as a float tensor of 0/1.
A comparison only, never a dependency:

  --peer torchlogix   torchlogix's LogicDense(lut_rank=2, parametrization="raw"), installed
                      from PyPI by gates_epoch.sh
  --peer difflogic    difflogic's LogicLayer(implementation="python") from its `main-cpu`
                      branch, importable on PYTHONPATH (installed by hand, see BENCHMARKS.md)

One warm-up of --warmup steps (not timed), then one timed epoch over the examples in a
fresh random order. Prints one JSON object.
"""

import argparse
import json
import os
import time

import torch

from torch_mlp import read_idx  # the IDX reader beside this script


def encode_uniform(pixels, bits):
    """pixels (N, 784) uint8 -> (N, 784 * bits) float 0/1, feature-major."""
    lo, hi = pixels.min().float(), pixels.max().float()
    t = lo + (hi - lo) * torch.arange(1, bits + 1, dtype=torch.float32) / (bits + 1)
    return (pixels.float().unsqueeze(-1) > t).reshape(pixels.shape[0], -1).float()


def layers(peer, inputs, width, depth):
    dims = [inputs] + [width] * depth
    if peer == "torchlogix":
        from torchlogix.layers import LogicDense

        return [LogicDense(i, o, lut_rank=2, parametrization="raw") for i, o in zip(dims, dims[1:])]
    if peer == "difflogic":
        from difflogic import LogicLayer

        return [LogicLayer(i, o, device="cpu", implementation="python") for i, o in zip(dims, dims[1:])]
    raise ValueError(peer)


def group_sum(peer, tau):
    if peer == "torchlogix":
        from torchlogix.layers import GroupSum

        return GroupSum(10, tau=tau)
    from difflogic import GroupSum

    return GroupSum(10, tau=tau, device="cpu")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", choices=["torchlogix", "difflogic"], required=True)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--examples", type=int, default=0, help="first N training examples (0: all)")
    ap.add_argument("--bits", type=int, default=31, help="uniform:B thresholds per pixel")
    ap.add_argument("--width", type=int, default=20000)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--tau", type=float, default=10.0)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before the epoch")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    pixels = read_idx(os.path.join(a.data, "train-images-idx3-ubyte"))
    labels = read_idx(os.path.join(a.data, "train-labels-idx1-ubyte")).long()
    n = a.examples or pixels.shape[0]
    x = encode_uniform(pixels[:n].reshape(n, -1), a.bits)
    y = labels[:n]
    model = torch.nn.Sequential(*layers(a.peer, x.shape[1], a.width, a.depth), group_sum(a.peer, a.tau))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    model.train()

    def step(idx):
        loss = loss_fn(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(a.warmup):
        step(torch.randint(0, n, (a.batch,)))
    t0 = time.perf_counter()
    order = torch.randperm(n)
    steps = 0
    for i in range(0, n, a.batch):
        last = step(order[i: i + a.batch])
        steps += 1
    seconds = time.perf_counter() - t0
    print(json.dumps({
        "peer": a.peer,
        "torch": torch.__version__,
        "model": f"gates:{a.width}x{a.depth}",
        "input_bits": x.shape[1],
        "examples": n,
        "batch": a.batch,
        "steps": steps,
        "threads": a.threads,
        "seconds": seconds,
        "examples_per_s": n / seconds,
        "last_loss": last,
    }))


if __name__ == "__main__":
    main()
