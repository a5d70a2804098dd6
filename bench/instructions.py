#!/usr/bin/env python3
"""instructions.py: fulgur's per-step cost over the raw LibTorch loop, counted in instructions.

  bench/instructions.py --bin BUILD/bin/loop-bench [--workloads tiny,empty] [--steps 200,600]
      [--jobs 2] [--out bench/INSTRUCTIONS.md]

Step times on a shared machine drift by more than the 2% that issue 7 allows fulgur over the raw
loop; instruction counts do not. Each implementation runs under callgrind (valgrind) at two step
counts; the difference over the extra steps is what one training step executes, setup and the
end-of-fit checkpoint cancelling out. One thread (--threads 1), the same seed and data as
bench/loop_bench.cpp. Writes a markdown section (appended to BENCHMARKS.md by scripts/bench).
"""
import argparse
import concurrent.futures
import os
import platform
import re
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


def count(binary, impl, workload, steps, tmpdir):
    out = os.path.join(tmpdir, "callgrind.{}.{}.{}".format(impl, workload, steps))
    root = os.path.join(tmpdir, "root.{}.{}.{}".format(impl, workload, steps))
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary, "--impl", impl,
           "--workload", workload, "--threads", "1", "--steps", str(steps), "--warmup", "1",
           "--root", root]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("{} exited {}: {}".format(" ".join(cmd), done.returncode,
                                                     done.stderr[-800:]))
    with open(out) as f:
        for line in f:
            m = re.match(r"(summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(2))
    raise RuntimeError("no instruction total in " + out)


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
    per_step = {(impl, w): (totals[(impl, w, long_)] - totals[(impl, w, short)]) / (long_ - short)
                for w in workloads for impl in IMPLS}

    lines = ["## Instructions per training step (bench/instructions.py, callgrind)", "",
             "Written by `make bench-instructions` on {}: {}; each implementation run under "
             "valgrind's callgrind at {} and {} steps, one thread, the difference divided by {}: "
             "what one step executes, setup and the final checkpoint cancelling out. Counts do "
             "not drift with the machine's load as times do. Suite time {:.0f} s.".format(
                 time.strftime("%Y-%m-%d"), platform.platform(), short, long_, long_ - short,
                 time.monotonic() - start), "",
             "| workload | implementation | instructions per step | ratio to raw | "
             "over raw per step |", "|---|---|---|---|---|"]
    for w in workloads:
        raw = per_step[("raw-heap", w)]
        for impl in IMPLS:
            v = per_step[(impl, w)]
            lines.append("| {} | {} | {:,.0f} | {:.4f} | {:+,.0f} |".format(
                w, LABELS[impl], v, v / raw, v - raw))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
