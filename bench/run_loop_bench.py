#!/usr/bin/python3
"""run_loop_bench.py: the side-by-side training-loop suite (issue: fulgur vs raw LibTorch vs
Python). Runs bench/loop_bench.cpp (built as loop-bench) and bench/loop_bench.py, one process
per measurement, configurations interleaved round-robin (the starting configuration rotates
every round), and prints a markdown section: steps/s median (min - max), time ratio to the raw
loop from the same round, peak RSS, fulgur's fixed per-step overhead, the loader's throughput,
and the issue's targets.

  bench/run_loop_bench.py --bin build/bin/loop-bench [--runs R] [--threads T] [--quick]
                          [--workloads tiny,medium,cnn,empty] [--lines FILE]
  bench/run_loop_bench.py --bin ... --thread-study [--runs R]   # the THREADS.md matrix

Standard library only; run it with /usr/bin/python3 (the Python rows use that interpreter).
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"

# Steps per workload: each process runs ~0.3-3 s on an idle 2-core machine, so that the whole
# default suite (4 workloads x 5 implementations x 5 runs, plus the loader) stays under 5 min.
STEPS = {"tiny": 3000, "medium": 100, "cnn": 40, "empty": 5000}
QUICK_STEPS = {"tiny": 1000, "medium": 30, "cnn": 15, "empty": 2000}
WORKLOAD_NAMES = {
    "tiny": "tiny MLP 784-32-10, batch 16",
    "medium": "medium MLP 784-1024-10, batch 256",
    "cnn": "Fashion-MNIST CNN (example), batch 64",
    "empty": "empty model (one scalar), batch 16",
}
IMPL_NAMES = {
    "raw": "raw LibTorch loop (C++)",
    "raw-heap": "raw LibTorch loop, malloc thresholds pinned as fulgur does",
    "fulgur": "fulgur Trainer.fit, defaults",
    "fulgur-bare": "fulgur Trainer.fit, bar/logger/checkpoint/summary off",
    "python": "Python loop (python3-torch)",
}
IMPLS = ["raw", "raw-heap", "fulgur", "fulgur-bare", "python"]


class Config:
    def __init__(self, key, impl, workload, steps, flags=(), env=None, label=None):
        self.key = key
        self.impl = impl
        self.workload = workload
        self.steps = steps
        self.flags = list(flags)
        self.env = env or {}
        self.label = label or key
        self.results = []  # dicts parsed from the output line, one per run

    def command(self, binary):
        if self.impl == "python":
            cmd = [PYTHON, os.path.join(HERE, "loop_bench.py")]
        else:
            cmd = [binary, "--impl", self.impl]
        cmd += ["--workload", self.workload]
        if self.steps:
            cmd += ["--steps", str(self.steps)]
        return cmd + self.flags


def parse_line(text):
    for line in reversed(text.splitlines()):
        if line.startswith("loop-bench "):
            fields = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
            out = {}
            for k, v in fields.items():
                try:
                    out[k] = float(v)
                except ValueError:
                    out[k] = v
            return out
    return None


def run_one(cfg, binary, lines_file):
    env = dict(os.environ)
    # Thread settings come from the command line or from cfg.env only.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_WAIT_POLICY"):
        env.pop(var, None)
    env.update(cfg.env)
    cmd = cfg.command(binary)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, cwd=os.environ.get("TMPDIR", "/tmp"))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("run_loop_bench: {} failed ({}):\n{}".format(" ".join(cmd), proc.returncode,
                                                               proc.stderr[-2000:]))
    result = parse_line(proc.stdout)
    if result is None:
        sys.exit("run_loop_bench: no result line from {}:\n{}".format(" ".join(cmd),
                                                                     proc.stdout[-2000:]))
    result["process_s"] = wall
    cfg.results.append(result)
    if lines_file:
        lines_file.write("{} env={} process_s={:.3f} | {}\n".format(
            cfg.key, ",".join("{}={}".format(k, v) for k, v in cfg.env.items()) or "-", wall,
            " ".join("{}={}".format(k, v) for k, v in result.items())))
        lines_file.flush()
    return result


def run_rounds(configs, binary, runs, lines_file, progress=True):
    for r in range(runs):
        offset = r % len(configs)
        for cfg in configs[offset:] + configs[:offset]:
            if progress:
                print("round {}/{}: {}".format(r + 1, runs, cfg.key), file=sys.stderr,
                      flush=True)
            run_one(cfg, binary, lines_file)


def series(values):
    return statistics.median(values), min(values), max(values)


def fmt_series(values, digits=1):
    m, lo, hi = series(values)
    return "{0:.{d}f} ({1:.{d}f} – {2:.{d}f})".format(m, lo, hi, d=digits)


def per_run_ratio(a, b, key):
    """a[i][key] / b[i][key] for runs of the same round."""
    return [x[key] / y[key] for x, y in zip(a.results, b.results)]


# --------------------------------------------------------------------------- the suite

def suite(args):
    steps = QUICK_STEPS if args.quick else STEPS
    runs = args.runs if args.runs else (2 if args.quick else 5)
    threads = ["--threads", str(args.threads)]
    workloads = args.workloads.split(",")
    configs = {}
    order = []
    for w in workloads:
        for impl in IMPLS:
            c = Config("{}/{}".format(w, impl), impl, w, steps[w], threads)
            configs[c.key] = c
            order.append(c)
    loader_cfgs = []
    if "cnn" in workloads:
        for workers in (1, 0):
            c = Config("cnn/loader-w{}".format(workers), "loader", "cnn", 0,
                       threads + ["--workers", str(workers), "--steps", "859"])
            # 859 batches of 64 = 54976 samples: the example's 55 000 training images
            configs[c.key] = c
            loader_cfgs.append(c)
            order.append(c)
    start = time.perf_counter()
    lines = open(args.lines, "w") if args.lines else None
    run_rounds(order, args.bin, runs, lines)
    if lines:
        lines.close()
    elapsed = time.perf_counter() - start

    out = []
    p = out.append
    p("Training steps of a fixed count on random in-memory data shaped like Fashion-MNIST "
      "(same seed, same initial weights, same data in every implementation: the final losses "
      "agree), SGD (lr 0.01, momentum 0.9), cross-entropy, {} intra-op thread(s) set "
      "explicitly in every process (`--threads {}`); steps per process: {}; the first tenth "
      "of the steps is warm-up. One process per measurement, {} runs, configurations "
      "interleaved round-robin; median (min – max); ratios are taken within a round. "
      "Suite time {:.0f} s.".format(
          args.threads, args.threads,
          ", ".join("{} {}".format(w, steps[w]) for w in workloads), runs, elapsed))
    p("")
    p("| workload | implementation | steps/s | µs/step | time ratio to raw | peak RSS MB "
      "(ratio to raw) | process wall s |")
    p("|---|---|---|---|---|---|---|")
    for w in workloads:
        raw = configs["{}/raw".format(w)]
        for impl in IMPLS:
            c = configs["{}/{}".format(w, impl)]
            sps = [r["steps_per_s"] for r in c.results]
            us = [r["us_per_step"] for r in c.results]
            ratio = per_run_ratio(c, raw, "us_per_step")
            rss = [r["peak_rss_mb"] for r in c.results]
            rss_ratio = per_run_ratio(c, raw, "peak_rss_mb")
            wall = [r["process_s"] for r in c.results]
            p("| {} | {} | {} | {:.1f} | {} | {:.0f} ({:.3f}) | {:.2f} |".format(
                WORKLOAD_NAMES[w], IMPL_NAMES[impl], fmt_series(sps, 1 if sps[0] < 1000 else 0),
                statistics.median(us), fmt_series(ratio, 3), statistics.median(rss),
                statistics.median(rss_ratio), statistics.median(wall)))
    p("")
    losses = {}
    for w in workloads:
        losses[w] = sorted({"{:.5f}".format(r["loss"]) for impl in IMPLS
                            for r in configs["{}/{}".format(w, impl)].results})
    p("Final loss per workload, all implementations and runs: " + "; ".join(
        "{} {}".format(w, ", ".join(v)) for w, v in losses.items()) + ".")
    p("")

    targets = []
    if "empty" in workloads:
        raw = configs["empty/raw"]
        for impl in ("fulgur", "fulgur-bare"):
            c = configs["empty/" + impl]
            over = [x["us_per_step"] - y["us_per_step"] for x, y in zip(c.results, raw.results)]
            m, lo, hi = series(over)
            p("Fixed per-step overhead ({}): {:.1f} µs/step ({:.1f} – {:.1f}); the raw loop's "
              "empty step: {:.1f} µs.".format(IMPL_NAMES[impl], m, lo, hi,
                                              statistics.median(r["us_per_step"]
                                                                for r in raw.results)))
            if impl == "fulgur":
                targets.append(("fixed overhead ≤ 20 µs/step (fulgur defaults, empty model)",
                                "{:.1f} µs".format(m), m <= 20))
        p("")
    if loader_cfgs and "cnn/fulgur" in configs:
        step_rate = statistics.median(r["steps_per_s"] for r in configs["cnn/fulgur"].results)
        for c in loader_cfgs:
            rate = [r["batches_per_s"] for r in c.results]
            m = statistics.median(rate)
            p("Loader alone ({} worker thread(s), batch 64, shuffled, 55 000 samples): {} "
              "batches/s, {:.0f}× what the CNN step consumes ({:.1f} steps/s).".format(
                  int(c.results[0]["workers"]), fmt_series(rate, 0), m / step_rate, step_rate))
            if c.key.endswith("w1"):
                targets.append(("loader ≥ 10× the CNN step's consumption (1 worker, as the "
                                "example)", "{:.0f}×".format(m / step_rate),
                                m / step_rate >= 10))
        p("")

    for w in workloads:
        raw = configs["{}/raw".format(w)]
        f = configs["{}/fulgur".format(w)]
        py = configs["{}/python".format(w)]
        # fulgur's own overhead: against the raw loop with the same malloc thresholds.
        r = statistics.median(per_run_ratio(f, configs["{}/raw-heap".format(w)], "us_per_step"))
        if w != "empty":
            targets.append(("fulgur defaults / raw (same malloc thresholds) time ≤ 1.02 "
                            "({})".format(w), "{:.3f}".format(r), r <= 1.02))
            plain = statistics.median(per_run_ratio(f, raw, "us_per_step"))
            targets.append(("fulgur defaults / raw (glibc's malloc defaults) time ≤ 1.02 "
                            "({})".format(w), "{:.3f}".format(plain), plain <= 1.02))
        speed = statistics.median(per_run_ratio(py, f, "us_per_step"))
        if w == "tiny":
            targets.append(("fulgur ≥ 1.3× faster than Python (tiny)", "{:.2f}×".format(speed),
                            speed >= 1.3))
        elif w != "empty":
            targets.append(("fulgur never slower than Python ({})".format(w),
                            "{:.2f}×".format(speed), speed >= 1.0))
        # Like time, both ways: keeping activations in the heap (fulgur's malloc thresholds) is
        # a deliberate trade of resident memory for speed, shown apart from fulgur's own cost.
        rss = statistics.median(per_run_ratio(f, configs["{}/raw-heap".format(w)], "peak_rss_mb"))
        targets.append(("peak RSS ≤ raw (same malloc thresholds) + 5% ({})".format(w),
                        "{:+.1f}%".format(100 * (rss - 1)), rss <= 1.05))
        plain_rss = statistics.median(per_run_ratio(f, raw, "peak_rss_mb"))
        targets.append(("peak RSS ≤ raw (glibc's malloc defaults) + 5% ({})".format(w),
                        "{:+.1f}%".format(100 * (plain_rss - 1)), plain_rss <= 1.05))
    p("| target | measured (median) | met |")
    p("|---|---|---|")
    for name, value, ok in targets:
        p("| {} | {} | {} |".format(name, value, "yes" if ok else "**no**"))
    print("\n".join(out))


# --------------------------------------------------------------------------- thread study

def thread_study(args):
    runs = args.runs if args.runs else 3
    # Quick step counts: the two-thread rows run 5-15x slower on a busy machine.
    steps = QUICK_STEPS
    rows = []

    def add(w, impl, label, flags=(), env=None):
        c = Config("{}/{}/{}".format(w, impl, len(rows)), impl, w, steps[w], flags, env, label)
        rows.append(c)

    for w in args.workloads.split(","):
        add(w, "raw", "C++: LibTorch defaults (no call, no variable)")
        add(w, "raw", "C++: at::set_num_threads(1)", ["--threads", "1"])
        add(w, "raw", "C++: at::set_num_threads(2)", ["--threads", "2"])
        add(w, "raw", "C++: OMP_NUM_THREADS=2", env={"OMP_NUM_THREADS": "2"})
        add(w, "raw", "C++: at::set_num_threads(2), OPENBLAS_NUM_THREADS=1", ["--threads", "2"],
            {"OPENBLAS_NUM_THREADS": "1"})
        add(w, "raw", "C++: at::set_num_threads(2), at::set_num_interop_threads(1)",
            ["--threads", "2", "--interop", "1"])
        add(w, "raw", "C++: at::set_num_threads(2), OMP_WAIT_POLICY=passive", ["--threads", "2"],
            {"OMP_WAIT_POLICY": "passive"})
        add(w, "fulgur-bare", "fulgur (bare): today's default (no call)")
        add(w, "python", "Python: defaults")
        add(w, "python", "Python: torch.set_num_threads(2)", ["--threads", "2"])
        add(w, "python", "Python: OMP_NUM_THREADS=2", env={"OMP_NUM_THREADS": "2"})
    start = time.perf_counter()
    lines = open(args.lines, "w") if args.lines else None
    run_rounds(rows, args.bin, runs, lines)
    if lines:
        lines.close()
    print("Thread settings, {} runs interleaved round-robin, steps/s median (min – max), the "
          "ratio to the C++ default from the same round; {:.0f} s.\n".format(
              runs, time.perf_counter() - start))
    print("| workload | setting | threads seen | steps/s | ratio to C++ default |")
    print("|---|---|---|---|---|")
    base = {}
    for c in rows:
        if c.label.startswith("C++: LibTorch defaults"):
            base[c.workload] = c
    for c in rows:
        sps = [r["steps_per_s"] for r in c.results]
        ratio = [x["steps_per_s"] / y["steps_per_s"]
                 for x, y in zip(c.results, base[c.workload].results)]
        print("| {} | {} | {} | {} | {} |".format(
            c.workload, c.label, int(c.results[0]["threads"]), fmt_series(sps),
            fmt_series(ratio, 2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin", "loop-bench"))
    ap.add_argument("--runs", type=int, default=0, help="rounds (default 5; --quick 2)")
    ap.add_argument("--threads", type=int, default=1,
                    help="intra-op threads set in every process (default 1)")
    ap.add_argument("--quick", action="store_true", help="fewer steps and runs (~1 min)")
    ap.add_argument("--workloads", default="tiny,medium,cnn,empty")
    ap.add_argument("--lines", help="also write every raw result line to this file")
    ap.add_argument("--thread-study", action="store_true")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    if not os.access(args.bin, os.X_OK):
        sys.exit("run_loop_bench: {} is not an executable (build loop-bench first)".format(
            args.bin))
    if args.thread_study:
        thread_study(args)
    else:
        suite(args)


if __name__ == "__main__":
    main()
