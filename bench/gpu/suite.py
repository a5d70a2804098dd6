#!/usr/bin/env python3
"""suite.py: the GPU benchmark suite, run on the device machine by bench/gpu/run.

  python3 bench/gpu/suite.py --loop-bench BUILD/bin/loop-bench --out FILE.md [--rounds R]
      [--deadline-s S]

Interleaved rounds of one-process measurements on CUDA (each process one line, see
bench/loop_bench.cpp), medians per column:
  1. tiny, medium and cnn at 32-true: the hand-written LibTorch loop, fulgur's Trainer with its
     defaults and bare, Python eager (bench/loop_bench.py) and PyTorch Lightning
     (bench/gpu/lightning_bench.py);
  2. deep (MLP 784-4096-4096-10, batch 2048) at 32-true, bf16-mixed and 16-mixed, fulgur bare
     and Python eager.
Starts no run after --deadline-s seconds; a round that did not finish is left out of nothing:
medians are over the runs that completed. Writes a markdown report.
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOOP_PY = os.path.join(HERE, "..", "loop_bench.py")
LIGHTNING_PY = os.path.join(HERE, "lightning_bench.py")

LOOP_WORKLOADS = ["tiny", "medium", "cnn"]
LOOP_IMPLS = ["raw", "fulgur", "fulgur-bare", "python", "lightning"]
PRECISIONS = ["32-true", "bf16-mixed", "16-mixed"]


def command(loop_bench, impl, workload, precision):
    if impl == "python":
        return [sys.executable, LOOP_PY, "--workload", workload, "--device", "cuda",
                "--precision", precision]
    if impl == "lightning":
        return [sys.executable, LIGHTNING_PY, "--workload", workload, "--precision", precision]
    return [loop_bench, "--impl", impl, "--workload", workload, "--device", "cuda",
            "--precision", precision]


def measure(cmd, timeout):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after {} s".format(timeout)
    except OSError as e:  # the C++ binaries when the build failed
        return None, str(e)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("loop-bench impl="):
            return dict(kv.split("=", 1) for kv in line.split()[1:]), ""
    return None, "exit {}: {}".format(done.returncode, (done.stderr or done.stdout)[-600:])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--loop-bench", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--deadline-s", type=float, default=300)
    p.add_argument("--impls", default=",".join(LOOP_IMPLS),
                   help="the columns to measure (a quick run may leave out python,lightning)")
    a = p.parse_args()
    wanted = a.impls.split(",")
    start = time.monotonic()

    jobs = [("loop", impl, w, "32-true") for w in LOOP_WORKLOADS for impl in LOOP_IMPLS]
    # fulgur bare here: the precision plugin is the subject, not the bar, logger or checkpoints.
    jobs += [("precision", impl, "deep", prec) for prec in PRECISIONS
             for impl in ["fulgur-bare", "python"]]
    jobs = [job for job in jobs if job[1] in wanted]
    results = {job: [] for job in jobs}
    failures = []
    rounds_done = 0
    for r in range(a.rounds):
        for job in jobs:
            left = a.deadline_s - (time.monotonic() - start)
            if left < 20:
                break
            _, impl, workload, precision = job
            line, error = measure(command(a.loop_bench, impl, workload, precision), min(left, 120))
            if line is None:
                failures.append("{} {} {}: {}".format(impl, workload, precision, error))
                print("FAILED", impl, workload, precision, error, flush=True)
                continue
            results[job].append(line)
            print("round {} {} {} {}: {} us/step".format(r + 1, impl, workload, precision,
                                                        line["us_per_step"]), flush=True)
        else:
            rounds_done += 1
            continue
        break

    def med(job, key="us_per_step"):
        values = [float(x[key]) for x in results.get(job, [])]
        return statistics.median(values) if values else None

    def fmt(v, spec="{:.1f}"):
        return spec.format(v) if v is not None else "-"

    def ratio(a_, b_):
        return fmt(a_ / b_, "{:.2f}") if a_ is not None and b_ else "-"

    gpu = "no nvidia-smi"
    if shutil.which("nvidia-smi"):
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    import torch  # noqa: E402  (only for the versions in the report)
    lines = ["## GPU: fulgur vs a raw LibTorch loop vs Python eager vs PyTorch Lightning", "",
             "Machine: {}, {} CPU cores; PyTorch/LibTorch {}, CUDA {}; {}.".format(
                 gpu, os.cpu_count(), torch.__version__, torch.version.cuda, platform.platform()),
             "Command: `bench/gpu/run` on the device machine; {} complete interleaved round(s) "
             "of one process per measurement; medians of µs per training step (the GPU waited "
             "for at the timed window's edges).".format(rounds_done), "",
             "| workload | raw LibTorch | fulgur (defaults) | fulgur (bare) | Python eager | "
             "Lightning | fulgur / raw | Python / fulgur | Lightning / fulgur |",
             "|---|---|---|---|---|---|---|---|---|"]
    for w in LOOP_WORKLOADS:
        m = {impl: med(("loop", impl, w, "32-true")) for impl in LOOP_IMPLS}
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            w, fmt(m["raw"]), fmt(m["fulgur"]), fmt(m["fulgur-bare"]), fmt(m["python"]),
            fmt(m["lightning"]), ratio(m["fulgur"], m["raw"]), ratio(m["python"], m["fulgur"]),
            ratio(m["lightning"], m["fulgur"])))
    lines += ["", "Peak RSS (MiB, medians): " + "; ".join(
        "{} {}".format(w, ", ".join("{} {}".format(impl, fmt(med(("loop", impl, w, "32-true"),
                                                               "peak_rss_mb"), "{:.0f}"))
                                    for impl in LOOP_IMPLS)) for w in LOOP_WORKLOADS)]
    lines += ["", "### Precision on the GPU: deep MLP 784-4096-4096-10, batch 2048", "",
              "| precision | fulgur (bare) µs/step | Python eager µs/step | fulgur speed-up over "
              "32-true | Python speed-up over 32-true | last loss (fulgur / Python) |",
              "|---|---|---|---|---|---|"]
    base_f = med(("precision", "fulgur-bare", "deep", "32-true"))
    base_p = med(("precision", "python", "deep", "32-true"))
    for prec in PRECISIONS:
        f = med(("precision", "fulgur-bare", "deep", prec))
        py = med(("precision", "python", "deep", prec))
        losses = [results.get(("precision", impl, "deep", prec), [])
                  for impl in ["fulgur-bare", "python"]]
        loss_text = " / ".join(x[-1]["loss"] if x else "-" for x in losses)
        lines.append("| {} | {} | {} | {} | {} | {} |".format(
            prec, fmt(f), fmt(py), ratio(base_f, f), ratio(base_p, py), loss_text))
    if failures:
        lines += ["", "Runs that failed:", ""] + ["- " + f for f in failures]
    with open(a.out, "w") as out:
        out.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
