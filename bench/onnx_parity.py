"""ONNX Runtime (Python) against `fastslow rank`: the exported model.onnx run
on what `fastslow rank --inputs` says the model was fed, chunk by chunk, and
its scores compared with each ranking CSV's (one per device). The GPU check
runs it; any machine with python3-onnxruntime can.

    python3 bench/onnx_parity.py MODEL_DIR INPUTS.npz RANK.csv [RANK.csv ...] [--json OUT]

Prints one line per CSV (largest absolute and relative difference, whether
the orders agree) and exits 1 when a score differs by more than 1e-4
relative (1e-5 absolute) or 1 when onnxruntime is missing.
"""
import argparse, csv, json, os, sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("inputs")
    ap.add_argument("csvs", nargs="+")
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        import onnxruntime as ort
    except ImportError:
        print("onnx_parity: no onnxruntime for this python", file=sys.stderr)
        return 1
    z = np.load(args.inputs)
    sess = ort.InferenceSession(os.path.join(args.model_dir, "model.onnx"), providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    graph = {k: z[k] for k in ("node_feat", "node_opcode", "edge_index", "config_nodes", "config_context")
             if k in z.files and k in names}
    feat, chunk = z["config_feat"], int(z["chunk"][0])
    scores = []
    for at in range(0, feat.shape[0], chunk):
        out = sess.run(None, dict(graph, config_feat=feat[at:at + chunk]))[0]
        scores.append(np.asarray(out, dtype=np.float64).reshape(-1))
    ort_scores = np.concatenate(scores) if scores else np.zeros(0)
    report, ok = {"onnxruntime": ort.__version__, "groups": int(ort_scores.size), "csv": {}}, True
    for path in args.csvs:
        by_group = {}
        order = []
        with open(path) as f:
            for row in csv.DictReader(f):
                g = int(row["group"])
                if g not in by_group:
                    by_group[g] = float(row["score"])
                    order.append(g)
        ref = np.array([by_group[g] for g in range(len(by_group))])
        if ref.size != ort_scores.size:
            print(f"{path}: {ref.size} groups in the CSV, {ort_scores.size} scored by ONNX Runtime")
            ok = False
            continue
        diff = np.abs(ref - ort_scores)
        rel = float((diff / np.maximum(np.abs(ref), 1e-12)).max()) if diff.size else 0.0
        worst = float(diff.max()) if diff.size else 0.0
        agree = bool(np.all(diff <= 1e-5 + 1e-4 * np.abs(ref)))
        same_order = bool(np.array_equal(np.argsort(ort_scores, kind="stable"), np.argsort(ref, kind="stable")))
        ok &= agree
        report["csv"][path] = {"max_abs": worst, "max_rel": rel, "agree": agree, "same_order": same_order}
        print(f"{os.path.basename(path)}: {ref.size} groups, max |diff| {worst:.2e} (relative {rel:.2e}), "
              f"{'agree' if agree else 'DIFFER'}, order {'same' if same_order else 'differs (ties within tolerance)'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
