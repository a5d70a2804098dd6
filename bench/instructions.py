#!/usr/bin/env python3
"""instructions.py: fulgur's per-step cost over the raw LibTorch loop, counted in instructions,
simulated cache misses and branch mispredictions.

  bench/instructions.py --bin BUILD/bin/loop-bench [--workloads tiny,empty] [--steps 200,600]
      [--jobs 2] [--out bench/INSTRUCTIONS.md]

Step times on a shared machine drift by more than the 2% that issue 7 allows fulgur over the raw
loop; instruction counts do not. Each implementation runs under cachegrind (valgrind, with its
cache and branch-predictor simulation) at two step counts; the difference over the extra steps is
what one training step costs, setup and the end-of-fit checkpoint cancelling out. The misses tell
whether fulgur's code crowds LibTorch's out of the caches, which the instruction count cannot. One thread (--threads 1), the same seed and data as
bench/loop_bench.cpp. Writes a markdown section (appended to BENCHMARKS.md by scripts/bench).
"""
import argparse
import concurrent.futures
import os
import platform
import subprocess
import sys
import tempfile
import time

IMPLS = ["raw-heap", "fulgur-bare", "fulgur"]
LABELS = {
    "raw-heap": "raw LibTorch loop, malloc thresholds pinned as fulgur does",
    "fulgur-bare": "fulgur Trainer.fit, bar/logger/checkpoint/summary off",
    "fulgur": "fulgur Trainer.fit, defaults",
}


# What each table column adds up from cachegrind's events.
COUNTERS = {
    "instructions": ["Ir"],
    "L1 instruction misses": ["I1mr"],
    "L1 data misses": ["D1mr", "D1mw"],
    "branch mispredictions": ["Bcm", "Bim"],
}


def count(binary, impl, workload, steps, tmpdir):
    """The run's totals per column of COUNTERS."""
    out = os.path.join(tmpdir, "cachegrind.{}.{}.{}".format(impl, workload, steps))
    root = os.path.join(tmpdir, "root.{}.{}.{}".format(impl, workload, steps))
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
           "--cachegrind-out-file=" + out, binary, "--impl", impl,
           "--workload", workload, "--threads", "1", "--steps", str(steps), "--warmup", "1",
           "--root", root]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("{} exited {}: {}".format(" ".join(cmd), done.returncode,
                                                     done.stderr[-800:]))
    events, totals = None, None
    with open(out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                totals = [int(v) for v in line.split()[1:]]
    if events is None or totals is None:
        raise RuntimeError("no event totals in " + out)
    by_event = dict(zip(events, totals))
    return {name: sum(by_event[e] for e in parts) for name, parts in COUNTERS.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--workloads", default="tiny,empty")
    p.add_argument("--steps", default="200,600", help="the two step counts")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default=None, help="also write the section to this file")
    a = p.parse_args()
    short, long_ = (int(s) for s in a.steps.split(","))
    if not 0 < short < long_:
        sys.exit("instructions.py: --steps wants two counts, the first smaller")
    workloads = a.workloads.split(",")
    start = time.monotonic()
    totals = {}
    with tempfile.TemporaryDirectory() as tmpdir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {(impl, w, n): pool.submit(count, a.bin, impl, w, n, tmpdir)
                   for w in workloads for impl in IMPLS for n in (short, long_)}
        for key, future in futures.items():
            totals[key] = future.result()
    per_step = {(impl, w, name): (totals[(impl, w, long_)][name] - totals[(impl, w, short)][name])
                / (long_ - short)
                for w in workloads for impl in IMPLS for name in COUNTERS}

    lines = ["## Instructions per training step (bench/instructions.py, cachegrind)", "",
             "Written by `make bench-instructions` on {}: {}; each implementation run under "
             "valgrind's cachegrind at {} and {} steps, one thread, the difference divided by {}: "
             "what one step costs, setup and the final checkpoint cancelling out. Counts do "
             "not drift with the machine's load as times do. Misses are cachegrind's simulation "
             "of this machine's caches and of a generic branch predictor: comparable between the "
             "rows, not a measurement of the hardware. Each cell: per step, then the ratio to the "
             "raw loop. Suite time {:.0f} s.".format(
                 time.strftime("%Y-%m-%d"), platform.platform(), short, long_, long_ - short,
                 time.monotonic() - start), "",
             "| workload | implementation | " + " | ".join(COUNTERS) + " |",
             "|---|---|" + "---|" * len(COUNTERS)]
    for w in workloads:
        for impl in IMPLS:
            cells = []
            for name in COUNTERS:
                v, raw = per_step[(impl, w, name)], per_step[("raw-heap", w, name)]
                cells.append("{:,.0f} ({:.4f})".format(v, v / raw if raw else float("nan")))
            lines.append("| {} | {} | {} |".format(w, LABELS[impl], " | ".join(cells)))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
