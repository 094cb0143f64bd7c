#!/usr/bin/env python3
"""Quality bar 1: on generated `small` data, the default model of each
collection against the paper's baseline configuration (layout: GraphSAGE +
MSE, tile: MLP + MSE on the 24 published config columns), both trained the
same number of steps, scored on the validation split; next to the noise
ceiling (an oracle that knows the noise-free runtimes, scored against the
measured ones). With --seeds N each is trained N times (seeds 1..N) and the
mean is compared: 30 validation kernels make one tile run's score swing by
+-0.05.

Usage: bench/quality.py BUILD_DIR WORK_DIR [--collections a,b] [--epochs N] [--seeds N]
Prints a table and writes WORK_DIR/quality.json.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

import numpy as np

COLLECTIONS = ["tile:xla", "layout:xla:random", "layout:xla:default", "layout:nlp:random", "layout:nlp:default"]


def kendall_tau_b(x, y):
    """O(n^2) tau-b; validation graphs hold at most a few thousand configs."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    iu = np.triu_indices(len(x), 1)
    dx, dy = dx[iu], dy[iu]
    conc = np.sum(dx * dy)
    nx, ny = np.sum(dx != 0), np.sum(dy != 0)
    return conc / np.sqrt(nx * ny) if nx and ny else float("nan")


def tile_score(order, runtime):
    best = runtime.min()
    return 2.0 - runtime[order[:5]].min() / best


def noise_ceiling(data, collection):
    parts = collection.split(":")
    sub = os.path.join(*(["npz"] + parts))
    scores = []
    for f in sorted(glob.glob(os.path.join(data, sub, "valid", "*.npz"))):
        ans = np.load(os.path.join(data, "answers", sub, "valid", os.path.basename(f)))
        measured, clean = ans["config_runtime"].astype(np.float64), ans["config_runtime_clean"].astype(np.float64)
        if parts[0] == "tile":
            norm = np.load(f)["config_runtime_normalizers"].astype(np.float64)
            order = np.argsort(clean / norm, kind="stable")
            scores.append(tile_score(order, measured / norm))
        else:
            scores.append(kendall_tau_b(clean, measured))
    return float(np.mean(scores))


def train(fastslow, data, collection, out, extra):
    cmd = [fastslow, "train", "--data", data, "--collection", collection, "--out", out] + extra
    if os.path.exists(os.path.join(out, "config.json")):
        cmd = [fastslow, "train", "--resume", "--out", out]
    t0 = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "metrics.json")) as f:
        m = json.load(f)
    return m["score"], time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--collections", default=",".join(COLLECTIONS))
    ap.add_argument("--epochs", type=int, default=0, help="0 = the trainer's defaults")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args()
    fastslow = os.path.join(args.build, "bin", "fastslow")
    data = os.path.join(args.work, "small")
    if not os.path.exists(os.path.join(data, "synth.json")) or not os.path.isdir(os.path.join(data, "answers")):
        subprocess.run([fastslow, "synth", "--scale", "small", "--seed", "0", "--out", data], check=True)
    common = ["--threads", str(args.threads)] + (["--epochs", str(args.epochs)] if args.epochs else [])
    rows = []
    for c in args.collections.split(","):
        kind = c.split(":")[0]
        baseline = ["--model", "mlp", "--loss", "mse", "--tile-features", "0"] if kind == "tile" else \
            ["--model", "sage", "--loss", "mse"]
        tag = c.replace(":", "-")
        d_runs, b_runs = [], []
        for s in range(1, args.seeds + 1) if args.seeds > 1 else [0]:
            suffix = f"-s{s}" if args.seeds > 1 else ""
            seed = ["--seed", str(s)]
            d_runs.append(train(fastslow, data, c, os.path.join(args.work, "runs", tag + "-default" + suffix), common + seed))
            b_runs.append(train(fastslow, data, c, os.path.join(args.work, "runs", tag + "-baseline" + suffix),
                                common + seed + baseline))
        d_score, d_time = float(np.mean([r[0] for r in d_runs])), sum(r[1] for r in d_runs)
        b_score, b_time = float(np.mean([r[0] for r in b_runs])), sum(r[1] for r in b_runs)
        ceiling = noise_ceiling(data, c)
        rows.append({"collection": c, "default": d_score, "baseline": b_score, "ceiling": ceiling,
                     "default_runs": [r[0] for r in d_runs], "baseline_runs": [r[0] for r in b_runs],
                     "default_share_of_ceiling": d_score / ceiling, "default_seconds": d_time,
                     "baseline_seconds": b_time})
        print(f"{c:20s} default {d_score:.4f} ({d_time:.0f} s)  baseline {b_score:.4f} ({b_time:.0f} s)  "
              f"ceiling {ceiling:.4f}  default/ceiling {d_score / ceiling:.3f}", flush=True)
    with open(os.path.join(args.work, "quality.json"), "w") as f:
        json.dump(rows, f, indent=2)
    ok = all(r["default"] > r["baseline"] for r in rows)
    print("default beats baseline everywhere:", ok)
    return 0


if __name__ == "__main__":
    sys.exit(main())
