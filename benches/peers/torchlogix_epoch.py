"""Training seconds per epoch of torchlogix (differentiable LUT networks on PyTorch) on
the network and data shape of `circuitlearn bench`'s training figure: one dense layer of
WIDTH LUTs of rank K over 784 random input bits, GroupSum over 10 classes, 8,192
examples with labels i mod 10, batch 1024, CPU only. A comparison, never a dependency:
run through torchlogix_epoch.sh, which installs torchlogix into a throwaway environment.
"""

import argparse
import json
import time

import torch
from torchlogix.layers import GroupSum, LogicDense


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lut-rank", type=int, default=6)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--inputs", type=int, default=784)
    ap.add_argument("--examples", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=3, help="timed epochs after one warm-up epoch")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    x = torch.randint(0, 2, (a.examples, a.inputs)).float()
    y = torch.arange(a.examples) % 10
    # torchlogix's raw parametrisation exists only for rank 2; other ranks use the Walsh one.
    param = "raw" if a.lut_rank == 2 else "warp"
    model = torch.nn.Sequential(
        LogicDense(a.inputs, a.width, lut_rank=a.lut_rank, parametrization=param),
        GroupSum(10, tau=a.width / 10 / 3),
    )
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    def epoch():
        order = torch.randperm(a.examples)
        for i in range(0, a.examples, a.batch):
            idx = order[i : i + a.batch]
            loss = loss_fn(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()

    model.train()
    epoch()
    times = []
    for _ in range(a.epochs):
        t = time.perf_counter()
        epoch()
        times.append(time.perf_counter() - t)
    print(json.dumps({
        "peer": "torchlogix",
        "lut_rank": a.lut_rank,
        "width": a.width,
        "inputs": a.inputs,
        "examples": a.examples,
        "batch": a.batch,
        "threads": a.threads,
        "seconds_per_epoch_best": min(times),
        "seconds_per_epoch_all": times,
    }))


if __name__ == "__main__":
    main()
