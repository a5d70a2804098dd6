#!/usr/bin/python3
"""loop_bench.py: bench/loop_bench.cpp's raw loop in Python, with Debian's python3-torch.

One process, one measurement, the same output line as loop-bench (impl=python):

  /usr/bin/python3 bench/loop_bench.py --workload tiny|medium|cnn|empty|deep [--steps N]
      [--warmup W] [--threads T] [--interop T] [--seed S] [--phases] [--info]
      [--device cpu|cuda] [--precision 32-true|bf16-mixed|16-mixed]

Same data (torch.rand / torch.randint from the seed, one epoch of N whole-batch slices), same
models registered in the same order (so the same initial weights as the C++ side), SGD (lr 0.01,
momentum 0.9), cross-entropy, grads set to None before backward, the loss read every 50 steps.
--threads T calls torch.set_num_threads(T) (0: leave the default); --interop T calls
torch.set_num_interop_threads(T). --device cuda: the model on the GPU, the data in page-locked
host memory, each batch copied with non_blocking=True, the GPU waited for at the timed window's
edges; --precision bf16-mixed / 16-mixed: torch.autocast (and for 16-mixed a GradScaler), as
Lightning's precision plugin does.
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
SPECS = {  # batch, hidden, default steps, hidden layers: as in loop_bench.cpp
    "tiny": (16, 32, 3000, 1),
    "medium": (256, 1024, 150, 1),
    "cnn": (64, 0, 60, 0),
    "empty": (16, 0, 5000, 0),
    "deep": (2048, 4096, 100, 2),
}


class MLP(nn.Module):
    """784 -> hidden (-> hidden ...) -> 10, ReLU between, registered as fc1, fc2, ..."""

    def __init__(self, hidden, hidden_layers):
        super().__init__()
        widths = [784] + [hidden] * hidden_layers + [10]
        self.layers = []
        for i in range(len(widths) - 1):
            layer = nn.Linear(widths[i], widths[i + 1])
            setattr(self, "fc{}".format(i + 1), layer)
            self.layers.append(layer)

    def forward(self, x):
        h = x.flatten(1)
        for layer in self.layers[:-1]:
            h = torch.relu(layer(h))
        return self.layers[-1](h)


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
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--precision", default="32-true",
                   choices=["32-true", "bf16-mixed", "16-mixed"])
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

    batch, hidden, default_steps, hidden_layers = SPECS[a.workload]
    steps = a.steps if a.steps > 0 else default_steps
    warmup = a.warmup if a.warmup >= 0 else max(1, steps // 10)
    if warmup >= steps:
        sys.exit("loop_bench.py: --warmup must be below --steps")

    torch.manual_seed(a.seed)
    n = batch * steps
    x_all = torch.rand(n, 1, 28, 28)
    y_all = torch.randint(0, 10, (n,))
    cuda = a.device == "cuda"
    if cuda:
        x_all, y_all = x_all.pin_memory(), y_all.pin_memory()
    torch.manual_seed(a.seed + 1)
    autocast_dtype = {"bf16-mixed": torch.bfloat16, "16-mixed": torch.float16}.get(a.precision)
    scaler = torch.cuda.amp.GradScaler() if a.precision == "16-mixed" else None

    start = time.perf_counter()
    if hidden > 0:
        model = MLP(hidden, hidden_layers)
        forward = lambda x, y: F.cross_entropy(model(x), y)
    elif a.workload == "cnn":
        model = CNN()
        forward = lambda x, y: F.cross_entropy(model(x), y)
    else:
        model = Empty()
        forward = lambda x, y: model()
    model.to(a.device).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    clock = time.perf_counter
    phases = a.phases
    between = fwd = bwd = opt = 0.0
    prev_end = clock()
    window_start = window_end = 0.0
    last_loss = 0.0
    for i in range(steps):
        x = x_all.narrow(0, i * batch, batch)
        y = y_all.narrow(0, i * batch, batch)
        if cuda:
            x, y = x.to(a.device, non_blocking=True), y.to(a.device, non_blocking=True)
        if phases:
            t_start = clock()
        if autocast_dtype is None:
            loss = forward(x, y)
        else:
            with torch.autocast(a.device, dtype=autocast_dtype):
                loss = forward(x, y)
        optimizer.zero_grad(set_to_none=True)
        if phases:
            t_fwd = clock()
        (scaler.scale(loss) if scaler else loss).backward()
        if phases:
            t_bwd = clock()
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        if i + 1 == warmup or i + 1 == steps:
            sync()
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
    print("loop-bench impl=python workload={} device={} precision={} batch={} steps={} "
          "warmup={} threads={} "
          "interop_threads={} steps_per_s={:.2f} us_per_step={:.2f} run_s={:.4f} "
          "peak_rss_mb={:.1f} loss={:.6f}{}".format(
              a.workload, a.device, a.precision, batch, steps, warmup, torch.get_num_threads(),
              torch.get_num_interop_threads(), timed / window, 1e6 * window / timed, run_s,
              peak_rss_mb(), last_loss, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
