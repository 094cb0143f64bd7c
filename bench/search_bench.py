#!/usr/bin/env python3
"""Search (the search issue's bars 1 and 4), on generated `small` layout:xla:random:

1. samplers against each other on one fixed study: a space of 7 train options
   (model, hidden, layers, lr, configs per graph, weight decay, loss), a budget of
   STEPS steps per trial in 4 checkpoints, TRIALS trials, no pruning (so that every
   sampler's trials are scored alike), seeds 0, 1, 2. Best validation score after
   10, 20 and 30 trials for random, qmc and tpe; hypervolume of (score, latency)
   after 10, 20, 30 trials for nsga2 against random, with one reference point for
   all studies (score 0, latency 1.1 x the largest measured).
4. the default model (`train`'s defaults, same budget) against the Pareto fronts of
   the (score, latency) studies: the fastest front model whose validation score is
   within 0.02 of the default's, both exported and timed ranking one valid graph in
   the page's engine (ONNX Runtime Web under node, bench/search_page_bench.mjs).

real. the same on real graphs, per program (`graph` with holdout 0.2; trials
   validate on their own valid share): random against tpe on AlexNet and unet3d,
   20 trials of 200 steps, seeds 0, 1, 2; the best trial's score on the held-out
   configs (never seen by any trial) beside the default model's.

Studies run through `fastslow search`; a study folder left by an earlier run is
resumed (delete WORK_DIR to measure again). Trial latencies are LibTorch, 1 thread,
ms per 1,000 configs of the first valid graph.

Usage: bench/search_bench.py BUILD_DIR WORK_DIR [--parts 1,4,real] [--trials 30]
       [--steps 400] [--seeds 0,1,2]
Prints tables and writes WORK_DIR/search.json.
"""
import argparse
import json
import os
import subprocess
import sys
import time

SPACE = """[space]
model = ["sage", "attn", "focus"]
hidden = { low = 8, high = 64, log = true }
layers = { low = 0, high = 3 }
lr = { low = 1e-4, high = 1e-2, log = true }
configs_per_graph = [8, 16, 32]
weight_decay = { low = 1e-6, high = 1e-2, log = true }
loss = ["hinge:1", "hinge:1,listmle:1", "listmle:1"]
"""
STUDIES = [("random", True), ("qmc", False), ("tpe", False), ("nsga2", True)]  # (sampler, with latency)


def study_toml(data, sampler, seed, trials, steps, latency, space=SPACE, pruner="none"):
    objectives = 'score = "maximize"\n' + ('latency = "minimize"\n' if latency else "")
    return (f'[data]\ndata = "{data}"\ncollection = "layout:xla:random"\n{space}'
            f"[objectives]\n{objectives}"
            f'[search]\nsampler = "{sampler}"\ntrials = {trials}\nseed = {seed}\npruner = "{pruner}"\n'
            f"[budget]\nsteps = {steps}\ncheckpoints = 4\n")


def run_study(fs, work, name, toml):
    out = os.path.join(work, "studies", name)
    os.makedirs(os.path.join(work, "configs"), exist_ok=True)
    cfg = os.path.join(work, "configs", name + ".toml")
    with open(cfg, "w") as f:
        f.write(toml)
    cmd = [fs, "search", "--config", cfg, "--out", out]
    if os.path.exists(os.path.join(out, "study.json")):
        cmd.append("--resume")
    t = time.time()
    with open(os.path.join(work, "configs", name + ".log"), "w") as log:
        subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT)
    return out, time.time() - t


def trials_of(study):
    with open(os.path.join(study, "trials.jsonl")) as f:
        ts = [json.loads(line) for line in f if line.strip()]
    return sorted(ts, key=lambda t: t["number"])


def best_after(ts, n):
    s = [t["objectives"]["score"] for t in ts[:n] if t["state"] == "complete"]
    return max(s) if s else float("nan")


def hv2(points, ref):
    """Area dominated by (score up, latency down) points, bounded by ref (a plain sweep)."""
    pts = sorted((-s, l) for s, l in points if s > ref[0] and l < ref[1])
    area, best_l = 0.0, ref[1]
    for ms, l in pts:
        if l < best_l:
            area += (-ref[0] - ms) * (best_l - l)
            best_l = l
    return area


def points(ts, n):
    return [(t["objectives"]["score"], t["objectives"]["latency"]) for t in ts[:n] if t["state"] == "complete"]


def part1(fs, work, data, args, out):
    marks = [m for m in (10, 20, 30) if m <= args.trials] or [args.trials]
    res = {"marks": marks, "studies": {}}
    for sampler, latency in STUDIES:
        for seed in args.seeds:
            name = f"{sampler}-{seed}"
            path, secs = run_study(fs, work, name, study_toml(data, sampler, seed, args.trials, args.steps, latency))
            ts = trials_of(path)
            res["studies"][name] = {"seconds": round(secs, 1), "path": path, "trials": len(ts),
                                    "best": [best_after(ts, m) for m in marks]}
            print(f"  {name}: {len(ts)} trials in {secs:.0f} s", file=sys.stderr)
    lat = [p[1] for name, s in res["studies"].items() if name.split("-")[0] in ("random", "nsga2")
           for p in points(trials_of(s["path"]), args.trials)]
    ref = [0.0, 1.1 * max(lat)]
    res["reference"] = ref
    for name, s in res["studies"].items():
        if name.split("-")[0] in ("random", "nsga2"):
            s["hypervolume"] = [hv2(points(trials_of(s["path"]), m), ref) for m in marks]
    print(f"\nBar 1: best validation score (Kendall, valid) after {', '.join(map(str, marks))} trials, "
          f"{args.steps} steps per trial, generated small layout:xla:random")
    print(f"{'sampler':8s} " + " ".join(f"{'seed ' + str(s):>22s}" for s in args.seeds) + f" {'mean':>22s}")
    for sampler in ("random", "qmc", "tpe"):
        rows = [res["studies"][f"{sampler}-{s}"]["best"] for s in args.seeds]
        mean = [sum(r[i] for r in rows) / len(rows) for i in range(len(marks))]
        cell = lambda v: "/".join(f"{x:.4f}" for x in v)
        print(f"{sampler:8s} " + " ".join(f"{cell(r):>22s}" for r in rows) + f" {cell(mean):>22s}")
        res.setdefault("mean_best", {})[sampler] = mean
    print(f"\nBar 1: hypervolume of (score, latency) after {', '.join(map(str, marks))} trials, "
          f"reference (score {ref[0]}, latency {ref[1]:.2f} ms)")
    for sampler in ("random", "nsga2"):
        rows = [res["studies"][f"{sampler}-{s}"]["hypervolume"] for s in args.seeds]
        mean = [sum(r[i] for r in rows) / len(rows) for i in range(len(marks))]
        cell = lambda v: "/".join(f"{x:.3f}" for x in v)
        print(f"{sampler:8s} " + " ".join(f"{cell(r):>22s}" for r in rows) + f" {cell(mean):>22s}")
        res.setdefault("mean_hypervolume", {})[sampler] = mean
    out["part1"] = res


def part4(fs, work, data, args, out):
    # train's defaults: a one-point grid (the model named, everything else left out).
    path, _ = run_study(fs, work, "default",
                        study_toml(data, "grid", 0, 1, args.steps, True, space='[space]\nmodel = ["focus"]\n'))
    default = trials_of(path)[0]
    candidates = []
    for sampler in ("random", "nsga2"):
        for seed in args.seeds:
            study = os.path.join(work, "studies", f"{sampler}-{seed}")
            if not os.path.exists(os.path.join(study, "pareto.json")):
                continue
            with open(os.path.join(study, "pareto.json")) as f:
                for t in json.load(f)["trials"]:
                    candidates.append((study, t))
    ds, dl = default["objectives"]["score"], default["objectives"]["latency"]
    near = [(s, t) for s, t in candidates if t["objectives"]["score"] >= ds - 0.02]
    res = {"default": {"score": ds, "latency_ms": dl, "params": default["params"]}, "front_models": len(candidates)}
    print(f"\nBar 4: default model: valid score {ds:.4f}, LibTorch latency {dl:.2f} ms / 1,000 configs; "
          f"{len(near)} of {len(candidates)} front models within 0.02 of its score")
    if not near:
        out["part4"] = res
        print("no front model within 0.02 of the default's score")
        return
    study, best = min(near, key=lambda st: st[1]["objectives"]["latency"])
    res["pareto"] = {"study": study, "number": best["number"], "params": best["params"],
                     "score": best["objectives"]["score"], "latency_ms": best["objectives"]["latency"]}
    exports = {}
    for key, run_dir in (("default", os.path.join(path, default["run"])), ("pareto", os.path.join(study, best["run"]))):
        exp = run_dir + "-export"
        if not os.path.exists(os.path.join(exp, "model.onnx")):
            subprocess.run([fs, "export", "--run", run_dir, "-o", exp], check=True, stdout=subprocess.DEVNULL)
        exports[key] = exp
    valid = os.path.join(data, "npz/layout/xla/random/valid")
    graph = os.path.join(valid, sorted(os.listdir(valid))[0])
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    page = json.loads(subprocess.run(["node", "bench/search_page_bench.mjs", exports["default"], exports["pareto"], graph,
                                      "--repeats", "5"], check=True, capture_output=True, text=True, env=env).stdout)
    res["page"] = page
    print(f"front model {best['number']} of {os.path.basename(study)}: valid score {best['objectives']['score']:.4f} "
          f"(default {ds:.4f}), LibTorch {best['objectives']['latency']:.2f} ms (default {dl:.2f})")
    print(f"page (ONNX Runtime Web, 1 thread, {page['unique_configs']} configs of {os.path.basename(graph)}): "
          f"front model {page['b_ms']:.1f} ms, default {page['a_ms']:.1f} ms: {page['a_ms'] / page['b_ms']:.2f}x faster")
    print(f"  params {json.dumps(best['params'])}")
    out["part4"] = res


REAL = ["data/cleaned_alexnet.npz", "data/real/layout_xla_default_train_unet3d.npz"]  # the repository's real samples
REAL_SPACE = """[space]
model = ["sage", "attn", "focus"]
hidden = { low = 8, high = 64, log = true }
layers = { low = 0, high = 3 }
lr = { low = 1e-4, high = 1e-2, log = true }
weight_decay = { low = 1e-6, high = 1e-2, log = true }
loss = ["hinge:1", "hinge:1,listmle:1"]
"""


def program_toml(graph, sampler, seed, trials, space=REAL_SPACE):
    return (f'[data]\ngraph = "{os.path.abspath(graph)}"\nholdout = 0.2\n{space}'
            f'[objectives]\nscore = "maximize"\n'
            f'[search]\nsampler = "{sampler}"\ntrials = {trials}\nseed = {seed}\npruner = "none"\n'
            f"[budget]\nsteps = 200\ncheckpoints = 4\n")


def holdout_score(fs, run_dir):
    out = subprocess.run([fs, "eval", "--run", run_dir, "--split", "holdout", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["score"]


def part_real(fs, work, args, out):
    res = {}
    print("\nReal graphs, per program: best valid score after 10 / 20 trials, and the best trial's held-out Kendall")
    for graph in REAL:
        if not os.path.exists(graph):
            print(f"  {graph}: not found, skipped")
            continue
        g = os.path.basename(graph).replace(".npz", "")
        path, _ = run_study(fs, work, f"real-{g}-default", program_toml(graph, "grid", 0, 1, '[space]\nmodel = ["focus"]\n'))
        d = trials_of(path)[0]
        row = {"default": {"valid": d["objectives"]["score"], "holdout": holdout_score(fs, os.path.join(path, d["run"]))}}
        for sampler in ("random", "tpe"):
            for seed in args.seeds:
                path, secs = run_study(fs, work, f"real-{g}-{sampler}-{seed}", program_toml(graph, sampler, seed, 20))
                ts = trials_of(path)
                best = max((t for t in ts if t["state"] == "complete"), key=lambda t: t["objectives"]["score"])
                row[f"{sampler}-{seed}"] = {"best": [best_after(ts, 10), best_after(ts, 20)], "number": best["number"],
                                            "holdout": holdout_score(fs, os.path.join(path, best["run"])),
                                            "seconds": round(secs, 1)}
        res[g] = row
        print(f"  {g}: default valid {row['default']['valid']:.4f}, held-out {row['default']['holdout']:.4f}")
        for sampler in ("random", "tpe"):
            cells = [row[f"{sampler}-{s}"] for s in args.seeds]
            mean_b = [sum(c["best"][i] for c in cells) / len(cells) for i in range(2)]
            mean_h = sum(c["holdout"] for c in cells) / len(cells)
            print(f"    {sampler:6s} valid " + "  ".join(f"{c['best'][0]:.4f}/{c['best'][1]:.4f}" for c in cells) +
                  f"  mean {mean_b[0]:.4f}/{mean_b[1]:.4f}; held-out of the best " +
                  " ".join(f"{c['holdout']:.4f}" for c in cells) + f" mean {mean_h:.4f}")
            row[f"{sampler}-mean"] = {"best": mean_b, "holdout": mean_h}
    out["real"] = res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--parts", default="1,4,real")
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seeds", default="0,1,2")
    args = ap.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    fs = os.path.abspath(os.path.join(args.build, "bin", "fastslow"))
    work = os.path.abspath(args.work)
    data = os.path.join(work, "small")
    if not os.path.exists(os.path.join(data, "synth.json")):
        subprocess.run([fs, "synth", "--scale", "small", "--seed", "0", "--out", data], check=True,
                       stdout=subprocess.DEVNULL)
    result_file = os.path.join(work, "search.json")
    out = json.load(open(result_file)) if os.path.exists(result_file) else {}
    parts = set(args.parts.split(","))
    if "1" in parts:
        part1(fs, work, data, args, out)
    if "4" in parts:
        part4(fs, work, data, args, out)
    if "real" in parts:
        part_real(fs, work, args, out)
    with open(result_file, "w") as f:
        json.dump(out, f, indent=1)
    print(result_file)


if __name__ == "__main__":
    main()
