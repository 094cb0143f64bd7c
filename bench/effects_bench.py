"""What the measurements depend on (fastslow info --nodes) against numpy.

For each layout file with runtimes: the core's node_effects streamed from
the archive, as `fastslow info --nodes` and the page run it (the grouping
and the forward selection; fastslow_bench_effects, in process) against the
same definitions in numpy (node_effects.h, joint_share.h: per node its
rows' one-way share of the variance of log runtime, twins merged; then a
forward selection over the 64 entries largest alone, crossing their rows,
scored by omega squared, stopping at a gain under 0.1 %, at a pick whose
partial F test's p-value is over 0.05 / candidates, or at 8 picks), from
the file to the answer, best of --repeat. The two answers must agree (the
entries' order, nodes, shares and gains to 1e-9) or the row says where
they differ. Files without runtimes (test files) are skipped.

Usage: effects_bench.py BUILD_DIR [--repeat R] [FILE ...]
"""
import argparse
import os
import json
import math
import subprocess
import time

import numpy as np

CANDIDATES, PICKS, MIN_GAIN, ALPHA = 64, 8, 0.001, 0.05


def f_survival(f, d1, d2):
    """P(F >= f): the F density integrated numerically (scipy is not at
    hand), on a substitution that maps the tail to a finite interval."""
    if f <= 0:
        return 1.0
    if math.isinf(f):
        return 0.0
    t = np.linspace(0.0, 1.0 - 1e-9, 200001)
    x = f + t / (1 - t)
    log_c = math.lgamma((d1 + d2) / 2) - math.lgamma(d1 / 2) - math.lgamma(d2 / 2) + (d1 / 2) * math.log(d1 / d2)
    dens = np.exp(log_c + (d1 / 2 - 1) * np.log(x) - ((d1 + d2) / 2) * np.log1p(d1 * x / d2)) / (1 - t) ** 2
    return float(np.trapz(dens, t))


def omega(between, total, n, k):
    if not total > 0 or n <= k:
        return 0.0
    within = max(0.0, total - between) / (n - k)
    return max(0.0, (between - (k - 1) * within) / (total + within))


def first_appearance(keys):
    """Groups numbered by first appearance, as the core numbers them."""
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()]


def numpy_effects(path):
    z = np.load(path)
    rt = z["config_runtime"].astype(np.float64)
    ids = z["node_config_ids"]
    feat = z["node_config_feat"]
    keep = rt > 0
    y = np.log(rt[keep])
    feat = feat[keep]
    n = len(y)
    mean = y.mean()
    total = ((y - mean) ** 2).sum()

    def between(cells):
        k = cells.max() + 1
        s = np.bincount(cells, y, k)
        c = np.bincount(cells, None, k)
        return (c * (s / c - mean) ** 2).sum(), k

    entries, seen = [], {}
    for j in range(feat.shape[1]):
        g = first_appearance(feat[:, j, :])
        if g.max() < 1:
            continue
        key = g.tobytes()
        if key in seen:
            entries[seen[key]]["nodes"].append(int(ids[j]))
            continue
        b, k = between(g)
        seen[key] = len(entries)
        entries.append({"nodes": [int(ids[j])], "share": min(1.0, b / total), "group": g})
    order = sorted(range(len(entries)), key=lambda i: -entries[i]["share"])  # stable: file order on ties
    cand = order[:CANDIDATES]
    cell = np.zeros(n, dtype=np.int64)
    have, explained, cells, picked = 0.0, 0.0, 1, []
    for _ in range(PICKS):
        best, tried = None, 0
        for i in cand:
            if i in picked:
                continue
            tried += 1
            g = entries[i]["group"]
            c = first_appearance(cell * (g.max() + 1) + g)
            b, k = between(c)
            gain = omega(b, total, n, k) - have
            if best is None or gain > best[0]:
                best = (gain, i, c, b, k)
        if best is None or best[0] < MIN_GAIN:
            break
        gain, i, c, b, k = best
        d1, d2, within = k - cells, n - k, max(0.0, total - b)
        p = 1.0
        if d1 > 0 and d2 > 0:
            p = 0.0 if within <= 1e-12 * total else f_survival(((b - explained) / d1) / (within / d2), d1, d2)
        if p > ALPHA / tried:
            break
        cell, explained, cells = c, b, k
        entries[i]["adds"] = gain
        have += gain
        picked.append(i)
    ranked = picked + [i for i in order if i not in picked]
    return [{"nodes": sorted(entries[i]["nodes"]), "share": entries[i]["share"], "adds": entries[i].get("adds")}
            for i in ranked], have


def agree(a, b):
    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} entries"
    for k, (x, y) in enumerate(zip(a, b)):
        if x["nodes"] != y["nodes"]:
            return f"entry {k}: nodes {x['nodes'][:4]} vs {y['nodes'][:4]}"
        if abs(x["share"] - y["share"]) > 1e-9:
            return f"entry {k}: share {x['share']} vs {y['share']}"
        if (x["adds"] is None) != (y["adds"] is None) or (x["adds"] is not None and abs(x["adds"] - y["adds"]) > 1e-9):
            return f"entry {k}: adds {x['adds']} vs {y['adds']}"
    return "yes"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("files", nargs="*", default=["data/real/layout_xla_default_train_unet3d.npz", "data/cleaned_alexnet.npz"])
    a = p.parse_intermixed_args()
    exe = f"{a.build}/bin/fastslow_bench_effects"
    print(f"{'file':44} {'configs':>8} {'nodes':>6} {'fastslow s':>11} {'numpy s':>9} {'numpy/fastslow':>15}  picks (adds)  agree")
    for f in a.files:
        if not (np.load(f)["config_runtime"] > 0).any():
            print(f"{os.path.basename(f)[-44:]:44} no runtimes: skipped")
            continue
        out = json.loads(subprocess.run([exe, f, str(a.repeat)], check=True, capture_output=True, text=True).stdout)
        t_fs = [out["seconds"]]
        t_np = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            mine, joint = numpy_effects(f)
            t_np.append(time.perf_counter() - t0)
        e = out["node_effects"]
        theirs = [{"nodes": x["nodes"], "share": x["share"], "adds": x["adds"]} for x in e["entries"]]
        picks = ", ".join(f"#{x['nodes'][0]} {100 * x['adds']:.1f}%" for x in theirs if x["adds"] is not None)
        nodes = np.load(f)["node_config_ids"].size
        print(f"{os.path.basename(f)[-44:]:44} {e['configs']:8d} {nodes:6d} {min(t_fs):11.3f} {min(t_np):9.3f} {min(t_np) / min(t_fs):15.1f}  "
              f"{picks}  {agree(theirs, mine)}")


if __name__ == "__main__":
    main()
