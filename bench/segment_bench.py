#!/usr/bin/env python3
"""Graph segment training's two bars, on generated data:

1. memory: the peak resident memory of training steps (log.jsonl
   steps_peak_mb) on one generated 50,000-node layout graph with --khop 0,
   whole-graph steps against --segment-nodes 5000, with and without
   --segment-history; and the steps' time. Per-program runs of a few steps.
2. score: validation Kendall of whole-graph training with segments
   (--khop 0 --segment-nodes S; with --segment-history as GST has it, without
   its dropout, and with stored outputs recomputed after --age steps) against
   1-hop pruning (--khop 1, the default) on generated `small`
   layout:nlp:random, the same steps for each; mean over seeds.

Usage: bench/segment_bench.py BUILD_DIR WORK_DIR [--parts 1,2] [--models sage,focus] [--segment 200] [--age 1]
                              [--epochs N] [--steps N] [--seeds N]
Prints tables and writes WORK_DIR/segments.json.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def run(cmd):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def log_lines(out):
    return [json.loads(line) for line in open(os.path.join(out, "log.jsonl"))]


def train(fastslow, out, args):
    shutil.rmtree(out, ignore_errors=True)
    run([fastslow, "train", "--out", out, "--cache", os.path.join(os.path.dirname(out), ".cache")] + args)
    return log_lines(out)


def memory(fastslow, work, models):
    graph_dir = os.path.join(work, "graph50k")
    if not os.path.isdir(graph_dir):
        run([fastslow, "synth", "--graph", "layout:xla:random", "--nodes", "50000", "--configs", "300", "--seed", "1",
             "--out", graph_dir])
    npz = [os.path.join(r, f) for r, _, fs in os.walk(graph_dir) for f in fs if f.endswith(".npz")][0]
    rows = []
    for model in models:
        for name, extra in (("whole graph", []), ("S = 5000", ["--segment-nodes", "5000"]),
                            ("S = 5000, history", ["--segment-nodes", "5000", "--segment-history"])):
            lines = train(fastslow, os.path.join(work, f"mem-{model}-{len(extra)}"),
                          ["--graph", npz, "--model", model, "--khop", "0", "--epochs", "1", "--steps-per-epoch", "3",
                           "--threads", "2", "--seed", "1"] + extra)
            rows.append({"model": model, "steps": name, "peak_mb": lines[-1]["steps_peak_mb"],
                         "seconds": lines[-1]["train_seconds"]})
    print(f"{'model':>6} {'steps':>18} {'peak MB':>9} {'3 steps s':>10}")
    for r in rows:
        print(f"{r['model']:>6} {r['steps']:>18} {r['peak_mb']:>9.0f} {r['seconds']:>10.1f}")
    return rows


def score(fastslow, work, segment, age, epochs, steps, seeds):
    data = os.path.join(work, "small")
    if not os.path.isdir(os.path.join(data, "npz")):
        run([fastslow, "synth", "--scale", "small", "--seed", "0", "--out", data])
    seg = ["--khop", "0", "--segment-nodes", str(segment)]
    hist = seg + ["--segment-history"]
    variants = (("khop 1", ["--khop", "1"]),
                (f"khop 0, S = {segment}", seg),
                ("+ history (GST: keep 0.5)", hist),
                ("+ history, keep 1", hist + ["--segment-keep", "1"]),
                (f"+ history, keep 1, age {age}", hist + ["--segment-keep", "1", "--segment-history-age", str(age)]))
    rows = []
    for seed in range(1, seeds + 1):
        for k, (name, extra) in enumerate(variants):
            lines = train(fastslow, os.path.join(work, f"score-{k}-{seed}"),
                          ["--data", data, "--collection", "layout:nlp:random", "--epochs", str(epochs),
                           "--steps-per-epoch", str(steps), "--seed", str(seed)] + extra)
            rows.append({"variant": name, "seed": seed, "score": max(l["score"] for l in lines),
                         "seconds": sum(l["train_seconds"] for l in lines)})
    print(f"{'variant':>36} {'valid Kendall (best epoch), per seed':>38} {'mean':>6} {'train s':>8}")
    for name, _ in variants:
        mine = [r for r in rows if r["variant"] == name]
        scores = [r["score"] for r in mine]
        print(f"{name:>36} {' '.join(f'{s:.3f}' for s in scores):>38} {sum(scores) / len(scores):>6.3f} "
              f"{sum(r['seconds'] for r in mine) / len(mine):>8.1f}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--parts", default="1,2")
    ap.add_argument("--models", default="sage,focus")
    ap.add_argument("--segment", type=int, default=200)
    ap.add_argument("--age", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args()
    fastslow = os.path.join(args.build, "bin", "fastslow")
    os.makedirs(args.work, exist_ok=True)
    parts = args.parts.split(",")
    result = {}
    if "1" in parts:
        result["memory"] = memory(fastslow, args.work, args.models.split(","))
    if "2" in parts:
        result["score"] = score(fastslow, args.work, args.segment, args.age, args.epochs, args.steps, args.seeds)
    json.dump(result, open(os.path.join(args.work, "segments.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
