#!/usr/bin/python3
"""loop_bench.py: bench/loop_bench.cpp's raw loop in Python, with Debian's python3-torch.

One process, one measurement, the same output line as loop-bench (impl=python):

  /usr/bin/python3 bench/loop_bench.py --workload tiny|medium|cnn|empty [--steps N]
      [--warmup W] [--threads T] [--interop T] [--seed S] [--phases] [--info]

Same data (torch.rand / torch.randint from the seed, one epoch of N whole-batch slices), same
models registered in the same order (so the same initial weights as the C++ side), SGD (lr 0.01,
momentum 0.9), cross-entropy, grads set to None before backward, the loss read every 50 steps.
--threads T calls torch.set_num_threads(T) (0: leave the default); --interop T calls
torch.set_num_interop_threads(T).
"""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

LR = 0.01
MOMENTUM = 0.9
READ_LOSS_EVERY = 50
SPECS = {  # batch, hidden, default steps: as in loop_bench.cpp
    "tiny": (16, 32, 3000),
    "medium": (256, 1024, 150),
    "cnn": (64, 0, 60),
    "empty": (16, 0, 5000),
}


class MLP(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(784, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


class CNN(nn.Module):
    """examples/fashion_mnist/cnn_module.cpp, layer for layer, in the same order."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * 7 * 7, 128)
        self.dropout = nn.Dropout(0.25)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, images):
        x = F.max_pool2d(torch.relu(self.conv1(images)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = self.dropout(torch.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


class Empty(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(()))

    def forward(self):
        return self.w * self.w


def peak_rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return float(line.split()[1]) / 1024.0
    return 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", default="tiny", choices=sorted(SPECS))
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--warmup", type=int, default=-1)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--interop", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--phases", action="store_true")
    p.add_argument("--info", action="store_true")
    a = p.parse_args()

    if a.interop > 0:
        torch.set_num_interop_threads(a.interop)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    if a.info:
        print("loop-bench info impl=python at_threads={} interop_threads={} OMP_NUM_THREADS={} "
              "OPENBLAS_NUM_THREADS={}".format(
                  torch.get_num_threads(), torch.get_num_interop_threads(),
                  os.environ.get("OMP_NUM_THREADS", "unset"),
                  os.environ.get("OPENBLAS_NUM_THREADS", "unset")))
        print(torch.__config__.parallel_info(), end="")
        return 0

    batch, hidden, default_steps = SPECS[a.workload]
    steps = a.steps if a.steps > 0 else default_steps
    warmup = a.warmup if a.warmup >= 0 else max(1, steps // 10)
    if warmup >= steps:
        sys.exit("loop_bench.py: --warmup must be below --steps")

    torch.manual_seed(a.seed)
    n = batch * steps
    x_all = torch.rand(n, 1, 28, 28)
    y_all = torch.randint(0, 10, (n,))
    torch.manual_seed(a.seed + 1)

    start = time.perf_counter()
    if a.workload in ("tiny", "medium"):
        model = MLP(hidden)
        forward = lambda x, y: F.cross_entropy(model(x), y)
    elif a.workload == "cnn":
        model = CNN()
        forward = lambda x, y: F.cross_entropy(model(x), y)
    else:
        model = Empty()
        forward = lambda x, y: model()
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)

    clock = time.perf_counter
    phases = a.phases
    between = fwd = bwd = opt = 0.0
    prev_end = clock()
    window_start = window_end = 0.0
    last_loss = 0.0
    for i in range(steps):
        x = x_all.narrow(0, i * batch, batch)
        y = y_all.narrow(0, i * batch, batch)
        if phases:
            t_start = clock()
        loss = forward(x, y)
        optimizer.zero_grad(set_to_none=True)
        if phases:
            t_fwd = clock()
        loss.backward()
        if phases:
            t_bwd = clock()
        optimizer.step()
        now = clock()
        if phases and i >= warmup:
            between += t_start - prev_end
            fwd += t_fwd - t_start
            bwd += t_bwd - t_fwd
            opt += now - t_bwd
        prev_end = now
        if i + 1 == warmup:
            window_start = now
        if i + 1 > warmup:
            window_end = now
        if (i + 1) % READ_LOSS_EVERY == 0 or i + 1 == steps:
            last_loss = loss.item()
    run_s = time.perf_counter() - start

    timed = steps - warmup
    window = window_end - window_start
    extra = ""
    if phases:
        extra = " between_us={:.2f} forward_us={:.2f} backward_us={:.2f} optimizer_us={:.2f}".format(
            1e6 * between / timed, 1e6 * fwd / timed, 1e6 * bwd / timed, 1e6 * opt / timed)
    print("loop-bench impl=python workload={} batch={} steps={} warmup={} threads={} "
          "interop_threads={} steps_per_s={:.2f} us_per_step={:.2f} run_s={:.4f} "
          "peak_rss_mb={:.1f} loss={:.6f}{}".format(
              a.workload, batch, steps, warmup, torch.get_num_threads(),
              torch.get_num_interop_threads(), timed / window, 1e6 * window / timed, run_s,
              peak_rss_mb(), last_loss, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
