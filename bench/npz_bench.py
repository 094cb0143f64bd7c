"""npz reading: fastslow's core against numpy's np.load, in one run.

(a) read every array of a ~150 MB layout npz (stored and deflated) against
    np.load materialising every array; peak RSS of both.
(b) 16 random configs with the core's partial read against the same full
    np.load.
Each side runs in its own process so peak RSS is its own. Usage:
    python3 bench/npz_bench.py BUILD_DIR WORK_DIR [--configs N] [--nodes K]
"""
import argparse, json, os, statistics, subprocess, sys

NUMPY_SIDE = r'''
import json, sys, time
import numpy as np
def rss(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1])
path, repeat = sys.argv[1], int(sys.argv[2])
base = rss('VmRSS:')
secs = []
for _ in range(repeat):
    t0 = time.perf_counter()
    with np.load(path) as z:
        arrays = [z[k] for k in z.files]
    secs.append(time.perf_counter() - t0)
    nbytes = sum(a.nbytes for a in arrays)
    del arrays
print(json.dumps({"seconds": secs, "bytes": nbytes, "peak_rss_kb": rss('VmHWM:'), "baseline_rss_kb": base}))
'''


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--configs", type=int, default=20000)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    tool = os.path.join(args.build_dir, "bin", "fastslow_bench_npz")
    os.makedirs(args.work_dir, exist_ok=True)
    py = [sys.executable, "-c", NUMPY_SIDE]
    print(f"npz read benchmark: {args.configs} configs x {args.nodes} configurable nodes x 18 float32")
    results = {}
    for kind in ("stored", "deflate"):
        path = os.path.join(args.work_dir, f"bench_{kind}_{args.configs}x{args.nodes}.npz")
        if not os.path.exists(path):
            run([tool, "make", path, kind, str(args.configs), str(args.nodes)])
        size = os.path.getsize(path)
        # Alternate the two sides so drift on a noisy machine hits both.
        core, ref, rows = [], [], []
        for _ in range(args.repeat):
            core.append(run([tool, "read-all", path, "1"]))
            ref.append(run(py + [path, "1"]))
            rows.append(run([tool, "read-rows", path, "20", "16"]))
        t_core = statistics.median(r["seconds"][0] for r in core)
        t_ref = statistics.median(r["seconds"][0] for r in ref)
        t_rows = statistics.median(statistics.median(r["seconds"]) for r in rows)
        nbytes = core[0]["bytes"]
        peak_core = max(r["peak_rss_kb"] for r in core) * 1024
        peak_ref = max(r["peak_rss_kb"] for r in ref) * 1024
        base_core = core[0]["baseline_rss_kb"] * 1024
        base_ref = ref[0]["baseline_rss_kb"] * 1024
        results[kind] = dict(file_mb=size / 1e6, array_mb=nbytes / 1e6, core_s=t_core, numpy_s=t_ref,
                             rows16_s=t_rows, read_all_ratio=t_ref / t_core, rows_ratio=t_ref / t_rows,
                             core_peak_over_bytes=peak_core / nbytes,
                             core_peak_above_baseline_over_bytes=(peak_core - base_core) / nbytes,
                             numpy_peak_over_bytes=peak_ref / nbytes,
                             numpy_peak_above_baseline_over_bytes=(peak_ref - base_ref) / nbytes)
        r = results[kind]
        print(f"\n[{kind}] file {r['file_mb']:.1f} MB, arrays {r['array_mb']:.1f} MB")
        print(f"  (a) read all:    core {t_core*1e3:8.1f} ms   numpy np.load {t_ref*1e3:8.1f} ms   "
              f"numpy/core = {r['read_all_ratio']:.2f}x  (target >= 1.0)")
        print(f"  (b) 16 configs:  core {t_rows*1e3:8.3f} ms   numpy full load {t_ref*1e3:8.1f} ms   "
              f"numpy/core = {r['rows_ratio']:.0f}x  (target >= 50 on stored)")
        print(f"  peak RSS / array bytes: core {r['core_peak_over_bytes']:.3f} "
              f"({r['core_peak_above_baseline_over_bytes']:.3f} above start-up), "
              f"numpy {r['numpy_peak_over_bytes']:.3f} ({r['numpy_peak_above_baseline_over_bytes']:.3f} above start-up)"
              f"  (target core <= 1.2)")
    with open(os.path.join(args.work_dir, "npz_bench.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
