#!/usr/bin/env python3
"""Ensembles, cross-validation and mixed collections (the ensembles issue's bars):

1. generated `small`, per collection: a 5-seed ensemble's validation score against
   the mean and the best of its members (same valid graphs);
2. K-fold out-of-fold score per collection beside the single train/valid score
   (seed 0's), with the spread over folds;
3. layout:xla:random alone against mixed with layout:nlp:random, scored on
   xla:random valid (N seeds each);
4. per-program on the real AlexNet and unet3d: a 5-seed ensemble against its best
   member on the same held-out configs;
5. out of sample (generated test graphs, runtimes from the generator's answers/):
   part 1's mean ensembles exported (the page's fixed-scale combination) against
   each member exported, ranked with `fastslow rank`; is the ensemble better than
   the member that was best on valid?

Everything is trained through the `fastslow` CLI; finished runs under WORK_DIR are
reused (delete the folder to measure again).

Usage: bench/ensemble_bench.py BUILD_DIR WORK_DIR [--parts 1,2,3,4] [--epochs N]
       [--seeds N] [--folds K] [--mix-seeds N] [--collections a,b]
Prints tables and writes WORK_DIR/ensemble.json.
"""
import argparse
import json
import os
import subprocess
import sys
import time

COLLECTIONS = ["tile:xla", "layout:xla:random", "layout:xla:default", "layout:nlp:random", "layout:nlp:default"]
REAL = ["data/cleaned_alexnet.npz", "data/real/layout_xla_default_train_unet3d.npz"]  # the repository's real samples


def run(cmd):
    t = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.time() - t


def load(path):
    with open(path) as f:
        return json.load(f)


def name(collection):
    return collection.replace(":", "_")


def seeds_and_ensemble(fs, out, train_args, seeds, combine="mean"):
    if not os.path.exists(os.path.join(out, "runs.json")):
        run([fs, "train", *train_args, "--seeds", str(seeds), "--out", out])
    else:  # finish members a cut bench left behind
        run([fs, "train", "--resume", "--out", out])
    ens = out + "-ens-" + combine
    if not os.path.exists(os.path.join(ens, "ensemble.json")):
        run([fs, "ensemble", out, "-o", ens, "--combine", combine])
    return ens


def eval_json(fs, run_dir, split):
    p = subprocess.run([fs, "eval", "--run", run_dir, "--split", split, "--json"], check=True,
                       capture_output=True, text=True)
    return json.loads(p.stdout)


def test_files_with_runtimes(data, collection, work):
    """The generated test graphs with their measured runtimes put back (the
    generator keeps them in answers/, as the competition kept them hidden)."""
    import numpy as np
    sub = os.path.join("npz", *collection.split(":"), "test")
    out_dir = os.path.join(work, sub)
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for name_ in sorted(os.listdir(os.path.join(data, sub))):
        dst = os.path.join(out_dir, name_)
        if not os.path.exists(dst):
            arrays = dict(np.load(os.path.join(data, sub, name_)))
            arrays["config_runtime"] = np.load(os.path.join(data, "answers", sub, name_))["config_runtime"]
            np.savez(dst, **arrays)
        files.append(dst)
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--parts", default="1,2,3,4,5")
    ap.add_argument("--epochs", type=int, default=4, help="per collection run (0 = the trainer's default)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--mix-seeds", type=int, default=3)
    ap.add_argument("--collections", default=",".join(COLLECTIONS))
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    fs = os.path.join(args.build, "bin", "fastslow")
    parts = set(args.parts.split(","))
    os.makedirs(args.work, exist_ok=True)
    data = os.path.join(args.work, "small")
    if not os.path.exists(os.path.join(data, "synth.json")):
        subprocess.run([fs, "synth", "--scale", "small", "--seed", "0", "--out", data], check=True)
    common = ["--threads", str(args.threads)] + (["--epochs", str(args.epochs)] if args.epochs else [])
    collections = args.collections.split(",")
    report = {"epochs": args.epochs, "seeds": args.seeds, "folds": args.folds}
    t0 = time.time()

    if "1" in parts or "2" in parts:
        rows = []
        for c in collections:
            out = os.path.join(args.work, "seeds", name(c))
            ens = seeds_and_ensemble(fs, out, ["--data", data, "--collection", c, *common], args.seeds)
            f = load(os.path.join(ens, "ensemble.json"))["fitted_on"]
            members = [m["valid_score"] for m in load(os.path.join(ens, "ensemble.json"))["members"]]
            other = {how: load(os.path.join(seeds_and_ensemble(fs, out, [], args.seeds, how), "ensemble.json"))
                     for how in ("rank", "weighted")}
            rows.append({"collection": c, "ensemble": f["score"], "member_mean": f["member_mean"],
                         "member_best": f["member_best"], "members": members, "seed0": members[0],
                         "rank": other["rank"]["fitted_on"]["score"],
                         "weighted": other["weighted"]["fitted_on"]["score"],
                         "weights": [m["weight"] for m in other["weighted"]["members"]]})
        report["seeds_table"] = rows
        if "1" in parts:
            print(f"\n1. {args.seeds}-seed ensemble (mean of per-graph standardised scores) on generated small, "
                  f"valid split, {args.epochs or 'default'} epochs per member")
            print(f"{'collection':22} {'ensemble':>9} {'mean':>8} {'best':>8} {'ens-best':>9} {'rank':>8} "
                  f"{'weighted*':>9}  weights*")
            wins = 0
            for r in rows:
                wins += r["ensemble"] > r["member_best"]
                print(f"{r['collection']:22} {r['ensemble']:9.4f} {r['member_mean']:8.4f} {r['member_best']:8.4f} "
                      f"{r['ensemble'] - r['member_best']:+9.4f} {r['rank']:8.4f} {r['weighted']:9.4f}  "
                      + " ".join(f"{w:.2f}" for w in r["weights"]))
            print(f"the mean ensemble beats its best member on {wins} of {len(rows)} collections (target: 4 of 5); "
                  "* weights fitted on these same valid graphs (in-sample)")
            report["wins"] = wins

    if "2" in parts:
        print(f"\n2. {args.folds}-fold out-of-fold score (generated small) beside the single train/valid run (seed 0)")
        print(f"{'collection':22} {'oof':>8} {'fold mean':>10} {'sd':>7} {'min':>7} {'max':>7} {'single':>8}")
        rows = []
        for i, c in enumerate(collections):
            out = os.path.join(args.work, "folds", name(c))
            if not os.path.exists(os.path.join(out, "oof.json")):
                cmd = [fs, "train", "--resume", "--out", out] if os.path.exists(os.path.join(out, "runs.json")) else \
                      [fs, "train", "--data", data, "--collection", c, *common, "--folds", str(args.folds), "--out", out]
                run(cmd)
            oof = load(os.path.join(out, "oof.json"))
            s = oof["fold_spread"]
            single = report["seeds_table"][i]["seed0"]
            rows.append({"collection": c, "oof": oof["score"], "spread": s, "single": single})
            print(f"{c:22} {oof['score']:8.4f} {s['mean']:10.4f} {s['sd']:7.4f} {s['min']:7.4f} {s['max']:7.4f} "
                  f"{single:8.4f}")
        report["folds_table"] = rows

    if "3" in parts:
        print(f"\n3. layout:xla:random alone vs mixed with layout:nlp:random (generated small, {args.mix_seeds} seeds), "
              "scored on xla:random valid at each run's best epoch")
        res = {}
        for label, colls in [("alone", ["layout:xla:random"]), ("mixed", ["layout:xla:random", "layout:nlp:random"])]:
            scores = []
            for seed in range(args.mix_seeds):
                out = os.path.join(args.work, "mix", f"{label}-{seed}")
                if not os.path.exists(os.path.join(out, "metrics.json")):
                    cmd = [fs, "train", "--data", data, *sum((["--collection", c] for c in colls), []), *common,
                           "--seed", str(seed), "--out", out]
                    run(cmd)
                m = load(os.path.join(out, "metrics.json"))
                scores.append(m["collections"]["layout:xla:random"]["score"] if "collections" in m else m["score"])
            res[label] = scores
            print(f"{label:6} " + " ".join(f"{s:.4f}" for s in scores) + f"   mean {sum(scores) / len(scores):.4f}")
        report["mix"] = res

    if "4" in parts:
        print(f"\n4. per-program on real graphs: {args.seeds}-seed ensemble vs its members, held-out configs (real data)")
        print(f"{'graph':34} {'ensemble':>9} {'mean':>8} {'best':>8} {'ens-best':>9} {'rank':>8} {'weighted':>9}   members")
        rows = []
        for g in REAL:
            if not os.path.exists(g):
                print(f"{g}: missing, skipped")
                continue
            out = os.path.join(args.work, "real", os.path.basename(g)[:-4])
            ens = seeds_and_ensemble(fs, out, ["--graph", g, "--threads", str(args.threads)], args.seeds)
            members = [m["run"] for m in load(os.path.join(ens, "ensemble.json"))["members"]]
            held = [eval_json(fs, m if os.path.isabs(m) else os.path.join(ens, m), "holdout")["score"]
                    for m in members]
            e = eval_json(fs, ens, "holdout")["score"]
            # Weights fitted on the valid share, scored on the held-out configs: out of sample.
            other = {how: eval_json(fs, seeds_and_ensemble(fs, out, [], args.seeds, how), "holdout")["score"]
                     for how in ("rank", "weighted")}
            mean, best = sum(held) / len(held), max(held)
            rows.append({"graph": os.path.basename(g), "ensemble": e, "member_mean": mean, "member_best": best,
                         "members": held, **other})
            print(f"{os.path.basename(g)[:34]:34} {e:9.4f} {mean:8.4f} {best:8.4f} {e - best:+9.4f} "
                  f"{other['rank']:8.4f} {other['weighted']:9.4f}   " + " ".join(f"{h:.4f}" for h in held))
        report["real"] = rows

    if "5" in parts:
        print("\n5. out of sample: exported mean ensembles vs their members on the generated test graphs "
              "(runtimes from answers/; `fastslow rank`, fixed-scale combination)")
        print(f"{'collection':22} {'graphs':>6} {'ensemble':>9} {'mean':>8} {'best':>8} {'valid-best':>10}")
        rows = []
        for c in collections:
            out = os.path.join(args.work, "seeds", name(c))
            ens = out + "-ens-mean"
            if not os.path.exists(os.path.join(ens, "ensemble.json")):
                print(f"{c}: no part 1 ensemble, skipped")
                continue
            spec = load(os.path.join(ens, "ensemble.json"))
            models = {"ensemble": ens}
            for i, m in enumerate(spec["members"]):
                models[f"m{i}"] = m["run"] if os.path.isabs(m["run"]) else os.path.join(ens, m["run"])
            exported = {}
            for key, run_dir in models.items():
                exported[key] = os.path.join(args.work, "test-export", name(c), key)
                if not os.path.exists(os.path.join(exported[key], "model.onnx")):
                    run([fs, "export", "--run", run_dir, "-o", exported[key]])
            scores = {k: [] for k in models}
            for f in test_files_with_runtimes(data, c, os.path.join(args.work, "test-with-runtimes")):
                for key, model in exported.items():
                    p = subprocess.run([fs, "rank", "--model", model, f, "--cache", os.path.join(args.work, ".rank-cache")],
                                       check=True, capture_output=True, text=True)
                    line = next(l for l in p.stdout.splitlines() if l.startswith("kendall"))
                    cells = line.split()
                    value = cells[cells.index("kendall") + 1] if c != "tile:xla" else cells[cells.index("top5err") + 1]
                    v = float(value)
                    scores[key].append(v if c != "tile:xla" else 1.0 - v)
            avg = {k: sum(v) / len(v) for k, v in scores.items()}
            members = [avg[f"m{i}"] for i in range(len(spec["members"]))]
            valid_best = max(range(len(members)), key=lambda i: spec["members"][i]["valid_score"])
            rows.append({"collection": c, "graphs": len(scores["ensemble"]), "ensemble": avg["ensemble"],
                         "members": members, "valid_best_member": valid_best})
            print(f"{c:22} {len(scores['ensemble']):6d} {avg['ensemble']:9.4f} {sum(members) / len(members):8.4f} "
                  f"{max(members):8.4f} {members[valid_best]:10.4f}")
        report["test_table"] = rows

    report["seconds"] = time.time() - t0
    path = os.path.join(args.work, "ensemble.json")
    if os.path.exists(path):  # parts run separately add up
        report = {**load(path), **report}
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
    print(f"\n{os.path.join(args.work, 'ensemble.json')} ({report['seconds']:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
