#!/usr/bin/env python3
"""lightning_bench.py: the suite's training work through PyTorch Lightning, on the device machine.

One process, one measurement, the same output line as loop-bench (impl=lightning):

  python3 bench/gpu/lightning_bench.py --workload tiny|medium|cnn|deep [--steps N] [--warmup W]
      [--seed S] [--precision 32-true|bf16-mixed|16-mixed] [--root DIR]

The models, data and optimizer of bench/loop_bench.py (same seeds, so the same numbers), trained
by lightning.Trainer with its defaults as a user meets them (progress bar, model summary,
checkpointing; a CSVLogger in --root), one epoch of N whole-batch slices of page-locked host
tensors, on one GPU. The clock is read at each on_train_batch_end (after the optimizer step); the
GPU is waited for at the timed window's edges.
"""
import argparse
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from loop_bench import CNN, LR, MLP, MOMENTUM, SPECS, peak_rss_mb  # noqa: E402

import lightning as L  # noqa: E402
from lightning.pytorch.loggers import CSVLogger  # noqa: E402


class Batches(torch.utils.data.Dataset):
    """Whole-batch slices, as fulgur's TensorDataset hands them out."""

    def __init__(self, x, y, batch):
        self.x, self.y, self.batch = x, y, batch

    def __len__(self):
        return self.x.shape[0] // self.batch

    def __getitem__(self, i):
        return self.x.narrow(0, i * self.batch, self.batch), self.y.narrow(0, i * self.batch, self.batch)


class Task(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=LR, momentum=MOMENTUM)


class Clock(L.Callback):
    def __init__(self, warmup, steps):
        self.warmup, self.steps = warmup, steps
        self.window_start = self.window_end = 0.0
        self.last_loss = 0.0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        i = batch_idx
        if i + 1 == self.warmup or i + 1 == self.steps:
            torch.cuda.synchronize()
        now = time.perf_counter()
        if i + 1 == self.warmup:
            self.window_start = now
        if i + 1 > self.warmup:
            self.window_end = now
        if (i + 1) % 50 == 0 or i + 1 == self.steps:
            self.last_loss = float(outputs["loss"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", default="tiny", choices=["tiny", "medium", "cnn", "deep"])
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--warmup", type=int, default=-1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--precision", default="32-true", choices=["32-true", "bf16-mixed", "16-mixed"])
    p.add_argument("--root", default="")
    a = p.parse_args()

    batch, hidden, default_steps, hidden_layers = SPECS[a.workload]
    steps = a.steps if a.steps > 0 else default_steps
    warmup = a.warmup if a.warmup >= 0 else max(1, steps // 10)
    torch.manual_seed(a.seed)
    n = batch * steps
    x_all = torch.rand(n, 1, 28, 28).pin_memory()
    y_all = torch.randint(0, 10, (n,)).pin_memory()
    torch.manual_seed(a.seed + 1)
    net = MLP(hidden, hidden_layers) if hidden > 0 else CNN()

    root = a.root or tempfile.mkdtemp(prefix="lightning-bench-")
    clock = Clock(warmup, steps)
    trainer = L.Trainer(accelerator="gpu", devices=1, precision=a.precision, max_epochs=1,
                        log_every_n_steps=50, default_root_dir=root,
                        logger=CSVLogger(root), callbacks=[clock])
    loader = torch.utils.data.DataLoader(Batches(x_all, y_all, batch), batch_size=None)
    start = time.perf_counter()
    trainer.fit(Task(net), loader)
    run_s = time.perf_counter() - start

    timed = steps - warmup
    window = clock.window_end - clock.window_start
    print("\nloop-bench impl=lightning workload={} device=cuda precision={} batch={} steps={} "
          "warmup={} threads={} interop_threads={} steps_per_s={:.2f} us_per_step={:.2f} "
          "run_s={:.4f} peak_rss_mb={:.1f} loss={:.6f}".format(
              a.workload, a.precision, batch, steps, warmup, torch.get_num_threads(),
              torch.get_num_interop_threads(), timed / window, 1e6 * window / timed, run_s,
              peak_rss_mb(), clock.last_loss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
