#!/usr/bin/python3
"""Writes the fuzzers' seed corpora under fuzz/corpus/<target>/ (committed;
run again only to change them). Small on purpose: a few valid inputs of each
shape the readers meet (numpy's own archives, stored and deflated, zip64,
big-endian, Fortran-ordered, f16, bool, 0-d and empty arrays; tile and
layout graphs; model cards; submission CSVs) and a few broken ones.
Not written here: model_card/real_layout_focus_trimmed.json (the card
`scripts/run.sh` exported for its demo model, cut to 6 node columns) and the
regress-* files (inputs that crashed a fuzzer, kept as seeds and read by the
GoogleTest regression tests through test::fuzz_input).

Usage: /usr/bin/python3 fuzz/make_seeds.py   (Debian python3-numpy)
"""
import io
import json
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npz(arrays, compressed):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def npy(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def npy_header(array, version=None):
    """The header alone (magic .. newline) of np.save's output."""
    buf = io.BytesIO()
    if version is None:
        np.lib.format.write_array_header_1_0(buf, np.lib.format.header_data_from_array_1_0(array))
    else:
        np.lib.format._write_array_header(buf, np.lib.format.header_data_from_array_1_0(array), version)
    return buf.getvalue()


def tile_graph():
    return {
        "node_feat": np.arange(12, dtype=np.float32).reshape(3, 4),
        "node_opcode": np.array([1, 24, 63], dtype=np.uint8),
        "edge_index": np.array([[1, 0], [2, 1]], dtype=np.int64),
        "config_feat": np.array([[1, 2, 3], [4, 5, 6], [1, 2, 3], [7, 8, 9]], dtype=np.float32),
        "config_runtime": np.array([100, 200, 110, 50], dtype=np.int64),
        "config_runtime_normalizers": np.array([10, 10, 10, 10], dtype=np.int64),
    }


def layout_graph():
    return {
        "node_feat": np.arange(12, dtype=np.float32).reshape(4, 3),
        "node_opcode": np.array([1, 26, 63, 26], dtype=np.uint8),
        "edge_index": np.array([[1, 0], [2, 1], [3, 2]], dtype=np.int64),
        "node_config_ids": np.array([1, 3], dtype=np.int64),
        "node_config_feat": np.array([[[0, 1], [1, 0]], [[1, 0], [0, 1]], [[0, 1], [1, 0]]], dtype=np.float32),
        "config_runtime": np.array([300, 200, 310], dtype=np.int64),
        "node_splits": np.array([0, 2], dtype=np.int64),
    }


def odd_arrays():
    return {
        "big_endian": np.arange(6, dtype=">i4").reshape(3, 2),
        "fortran": np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4)),
        "fortran3": np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4)),
        "half": np.array([0.5, -2, 65504], dtype=np.float16),
        "flags": np.array([True, False, True]),
        "scalar": np.array(7, dtype=np.int64),
        "empty": np.zeros((0, 5), dtype=np.float32),
        "unsigned": np.array([1, 2**63], dtype=np.uint64),
    }


def zip64(data):
    """A stored zip rewritten with a zip64 end record and locator, as zip
    writers emit for large archives (the core reads the counts from it)."""
    end = data.rfind(b"PK\x05\x06")
    entries, cd_size, cd_offset = struct.unpack_from("<HII", data, end + 10)
    rec = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, entries, entries, cd_size, cd_offset)
    loc = struct.pack("<IIQI", 0x07064B50, 0, end, 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:end] + rec + loc + eocd


def main():
    # --- npz archives: the zip layer, whole and partial reads, graphs ---
    tile_c = npz(tile_graph(), True)
    layout_s = npz(layout_graph(), False)
    layout_c = npz(layout_graph(), True)
    odd_s = npz(odd_arrays(), False)
    odd_c = npz(odd_arrays(), True)
    for target in ("zip_directory", "npz_read", "npz_partial", "graph_validate"):
        put(target, "tile_deflated.npz", tile_c)
        put(target, "layout_stored.npz", layout_s)
        put(target, "layout_deflated.npz", layout_c)
        put(target, "truncated.npz", layout_c[: len(layout_c) // 2])
    for target in ("zip_directory", "npz_read", "npz_partial"):
        put(target, "odd_stored.npz", odd_s)
        put(target, "odd_deflated.npz", odd_c)
        put(target, "zip64_end_record.npz", zip64(npz({"a": np.arange(4, dtype=np.int32)}, False)))
    # A member that is not .npy, and an archive with a comment.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("readme.txt", "not an array")
        z.writestr("x.npy", npy(np.arange(3, dtype=np.int8)))
        z.comment = b"fuzz seed"
    put("zip_directory", "comment_and_text.zip", buf.getvalue())
    put("npz_read", "comment_and_text.zip", buf.getvalue())
    put("zip_directory", "empty.zip", b"PK\x05\x06" + b"\0" * 18)
    # Graphs that load but do not validate, and a layout without splits.
    bad = layout_graph()
    bad["edge_index"] = np.array([[1, 0], [9, 1], [3, 3]], dtype=np.int64)
    bad["node_config_ids"] = np.array([3, 3], dtype=np.int64)
    bad["node_feat"][0, 0] = np.nan
    put("graph_validate", "layout_invalid.npz", npz(bad, False))
    nosplit = layout_graph()
    del nosplit["node_splits"]
    nosplit["edge_index"] = np.zeros((0,), dtype=np.int64)  # empty 1-d edge list
    put("graph_validate", "layout_no_splits.npz", npz(nosplit, True))
    tile_bad = tile_graph()
    tile_bad["config_runtime_normalizers"][1] = 0
    tile_bad["node_opcode"] = np.array([1.0, 2.0, 3.0], dtype=np.float16)  # integral: converts
    put("graph_validate", "tile_invalid.npz", npz(tile_bad, False))

    # --- .npy headers (the header alone, or header and data) ---
    put("npy_header", "v1_f32_2d.npy", npy(np.zeros((2, 3), dtype=np.float32)))
    put("npy_header", "v1_scalar.bin", npy_header(np.array(1.5)))
    put("npy_header", "v1_empty.bin", npy_header(np.zeros((0, 7), dtype=np.int64)))
    put("npy_header", "v1_big_endian.bin", npy_header(np.zeros(4, dtype=">u2")))
    put("npy_header", "v1_fortran.bin", npy_header(np.asfortranarray(np.zeros((2, 3), dtype=np.int8))))
    put("npy_header", "v1_bool_4d.bin", npy_header(np.zeros((1, 2, 3, 4), dtype=bool)))
    put("npy_header", "v2.bin", npy_header(np.zeros(5, dtype=np.float16), (2, 0)))
    put("npy_header", "v3.bin", npy_header(np.zeros(5, dtype="<i8"), (3, 0)))
    put("npy_header", "py2_long.bin", b"\x93NUMPY\x01\x00\x46\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 2L), }       \n")
    put("npy_header", "structured.bin", npy_header(np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")])))
    put("npy_header", "object.bin", npy_header(np.array([None, 1], dtype=object)))
    put("npy_header", "truncated.bin", npy_header(np.zeros((2, 3), dtype=np.float32))[:40])

    # --- model cards ---
    def stats(width):
        return {"log_scale": [i % 2 for i in range(width)],
                "mean": [0.5 * i for i in range(width)],
                "stddev": [1.0 + i for i in range(width)]}

    def card(kind, **extra):
        c = {"format": "fastslow-model", "format_version": 1, "kind": kind,
             "model": {"name": "sage" if kind == "tile" else "attn", "hidden": 32, "layers": 2, "opcode_vocab": 121},
             "node_feat_width": 3, "config_feat_width": 5 if kind == "tile" else 4,
             "normalization": {"node": stats(3)}, "pruning": {"khop": 1}, "batching": {"chunk": 64}}
        if kind == "tile":
            c["normalization"]["config"] = stats(5)
        c.update(extra)
        return c

    def dump(c):
        return json.dumps(c, separators=(",", ":"))

    put("model_card", "layout_min.json", dump(card("layout")))
    put("model_card", "tile_min.json", dump(card("tile")))
    tf = card("tile", config_feat_width=48)
    tf["normalization"]["config"] = stats(48)
    tf["normalization"]["tile_features"] = True
    tf["data"] = {"collection": "tile:xla"}
    tf["training_data"] = {"version": 1, "kind": "tile", "origin": "generated", "source": "fuzz", "graphs": 2,
                           "nodes": [3, 9], "node_min": [0, 0, 0], "node_max": [1, 2, 3], "opcodes": [1, 24, 63],
                           "config_min": [1, 2], "config_max": [7, 9]}
    put("model_card", "tile_features_profile.json", dump(tf))
    wide = card("layout")
    wide["model"]["wide_nodes"] = 2
    wide["data"] = {"program": {"graph": "g", "nodes": 4, "edges": 3, "config_nodes": 2}}
    put("model_card", "layout_wide_program.json", dump(wide))
    ens = card("layout", data={"collection": "layout:nlp:default"})
    ens["model"]["name"] = "ensemble"
    ens["ensemble"] = {"combine": "weighted", "members": [
        {"run": "a", "model": "sage", "hidden": 32, "layers": 2, "weight": 0.25, "scale": 1.5,
         "weights_file": "member-0.pt", "valid_score": 0.5},
        {"run": "b", "model": "attn", "join": "late", "hidden": 16, "layers": 1, "parameters": 100,
         "weight": 0.75, "scale": 2.0, "weights_file": "member-1.pt"}]}
    put("model_card", "layout_ensemble.json", dump(ens))
    put("model_card", "not_a_card.json", '{"format": "other"}')
    put("model_card", "broken.json", '{"format": "fastslow-model", "format_version": 1, "kind": [')

    # --- submission CSVs ---
    put("submission_csv", "mixed.csv",
        "ID,TopConfigs\ntile:xla:alexnet_train_batch_32_-1bae27a41d70f4dc,2;0;1;4;3\n"
        "layout:xla:random:unet_3d.4x4.bf16,0;2;1\nlayout:nlp:default:bert_l-2_h-128,1;0\n")
    put("submission_csv", "crlf_bom.csv", "\xef\xbb\xbfID,TopConfigs\r\nlayout:nlp:random:small,5;3;9\r\n".encode("latin-1"))
    put("submission_csv", "header_only.csv", "ID,TopConfigs\n")
    put("submission_csv", "bad_rows.csv",
        "ID,TopConfigs\nlayout:xla:default:x,1;1\ntile:xla:y,-3\nlayout:foo:z,1\nlayout:xla:random:q,\n")

    # --- search queries (the explorer's search box) ---
    put("node_search", "pattern.txt", "dot -> add -> tanh")
    put("node_search", "terms.txt", "reduce configurable rank:2 dim:16")
    put("node_search", "shape.txt", "shape:8x*x32 -> op:add")
    put("node_search", "ids.txt", "#5 -> 6")
    put("node_search", "bad.txt", "colour:red -> -> shape:")


if __name__ == "__main__":
    main()
