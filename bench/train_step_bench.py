"""Training step of the default layout model: fastslow's LibTorch model against
the same model written in PyTorch the usual way, in one run.

The C++ side (fastslow_bench_train_step) generates a ~5,000-node layout graph
with a plausible layout context, builds the model (`--model`, default
`focus`, the trainer's default; hidden 64, layers 3), times forward +
backward + AdamW on 16 configs per step (for `attn` also once more with
--dense 1: every node x every config, as the Python model computes it,
instead of computing nodes beyond the configs' reach once per batch), and
writes the graph, the first batch, its targets and the initial weights to
an npz. This script loads them into an equivalent PyTorch
model whose neighbour means use index_select + index_add_, checks that the
first-step losses agree, and times the same step with the same thread count.
Each side runs in its own process, alternating for a few rounds (the
machine may be shared); thread counts are pinned through the environment
for both. The Python side also runs once per round with glibc set the way
the C++ side sets it (fastslow::models::keep_freed_cpu_memory), so the
ratio can be read with and without that difference. Usage:
    python3 bench/train_step_bench.py BUILD_DIR WORK_DIR [--threads T] [--steps N] [--rounds R]
"""
import argparse, json, math, os, statistics, subprocess, sys, time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VALUES = 7  # layout values -1..5


class Graph:
    def to(self, device):
        for k in ("x", "opcode", "dst", "src", "config_nodes", "context", "inv_in", "inv_out"):
            if getattr(self, k) is not None:
                setattr(self, k, getattr(self, k).to(device))
        return self

    def __init__(self, z):
        self.x = torch.from_numpy(z["node_feat"])
        self.opcode = torch.from_numpy(z["node_opcode"]).long()
        e = torch.from_numpy(z["edge_index"]).long()
        self.n = self.x.shape[0]
        self.dst, self.src = e[:, 0].contiguous(), e[:, 1].contiguous()  # row [u, v]: u reads v
        self.config_nodes = torch.from_numpy(z["config_nodes"]).long()
        self.context = torch.from_numpy(z["config_context"]) if "config_context" in z.files else None
        ones = torch.ones(len(e))
        self.inv_in = 1 / torch.zeros(self.n).index_add_(0, self.dst, ones).clamp(min=1)
        self.inv_out = 1 / torch.zeros(self.n).index_add_(0, self.src, ones).clamp(min=1)

    def mean_in(self, h):  # mean over the operands of each node
        s = torch.zeros_like(h).index_add_(0, self.dst, h.index_select(0, self.src))
        return s * self.inv_in.view(-1, *([1] * (h.dim() - 1)))

    def mean_out(self, h):  # mean over the users of each node
        s = torch.zeros_like(h).index_add_(0, self.src, h.index_select(0, self.dst))
        return s * self.inv_out.view(-1, *([1] * (h.dim() - 1)))


class NodeEncoder(nn.Module):
    def __init__(self, vocab, feat, hidden):
        super().__init__()
        self.vocab = vocab
        self.opcode = nn.Embedding(vocab, hidden)
        self.feat = nn.Linear(feat, hidden)

    def forward(self, g):
        return self.opcode(g.opcode.clamp(0, self.vocab - 1)) + self.feat(g.x)


class LayoutValueEmbedding(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.width = width
        self.weight = nn.Parameter(torch.randn(width * VALUES, hidden))

    def forward(self, c):  # [B, nc, Fc] -> [B, nc, H]
        v = c.round().clamp(-1, VALUES - 2).long() + 1
        return F.embedding(v + torch.arange(self.width, device=c.device) * VALUES, self.weight).sum(2)


class ResSageBlock(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.lin = nn.Linear(3 * hidden, hidden)

    def forward(self, g, h):
        u = self.norm(h)
        return h + F.gelu(self.lin(torch.cat([u, g.mean_in(u), g.mean_out(u)], -1)))


class ConfigAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.q, self.k, self.v, self.o = (nn.Linear(hidden, hidden) for _ in range(4))

    def forward(self, z):
        u = self.norm(z)
        a = torch.softmax(self.q(u) @ self.k(u).t() / math.sqrt(z.shape[1]), -1)
        return z + self.o(a @ self.v(u))


class ScoreHead(nn.Module):
    def __init__(self, inp, hidden):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(inp, hidden), nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))).squeeze(-1)


class LayoutAttn(nn.Module):
    def __init__(self, feat, width, hidden, layers, vocab=121):
        super().__init__()
        self.encoder = NodeEncoder(vocab, feat, hidden)
        self.values = LayoutValueEmbedding(width, hidden)
        self.layers = layers
        for i in range(layers):
            setattr(self, f"block{i}", ResSageBlock(hidden))
        self.out_norm = nn.LayerNorm(hidden)
        self.pool = nn.Linear(2 * hidden, hidden)
        self.attn = ConfigAttention(hidden)
        self.head_norm = nn.LayerNorm(hidden)
        self.head = ScoreHead(hidden, hidden)

    def forward(self, g, c):
        node = self.encoder(g)
        B = c.shape[0]
        h = node.unsqueeze(1).expand(g.n, B, node.shape[1]).contiguous()
        h = h.index_add(0, g.config_nodes, self.values(c).transpose(0, 1))
        for i in range(self.layers):
            h = getattr(self, f"block{i}")(g, h)
        h = self.out_norm(h)
        z = self.pool(torch.cat([h.mean(0), h.index_select(0, g.config_nodes).mean(0)], -1))
        return self.head(self.head_norm(self.attn(z)))


SLOTS = 6
TENSOR_WIDTH, DIMS, LAYOUT, BITS, PREFER0 = 16, 0, 6, 12, 13  # fastslow/layout_context.h
IN_PRODUCER, KERNEL_PRODUCER = 3 * TENSOR_WIDTH, 3 * TENSOR_WIDTH + 1


def log2_padding(d, m):
    safe = d.clamp(min=1.0)
    return torch.where(d > 0, torch.log2(torch.ceil(safe / m) * m / safe), torch.zeros_like(d))


def place(layout, dims):
    """Sizes, padding and physical order of a layout [B, nc, 6] over dims [B, nc, 6]."""
    valid = layout >= 0
    size = dims.gather(2, layout.clamp(min=0).long()) * valid.float()
    big = (size > 1).float()
    rank = big.cumsum(2)

    def nth(k):
        hit = big * (rank == k).float()
        at = hit.argmax(2, keepdim=True)
        return torch.where(hit.amax(2) > 0, layout.gather(2, at).squeeze(2), torch.full_like(size[..., 0], -1))

    key = (big * (layout + 1) * torch.pow(8.0, (rank - 1).clamp(min=0))).sum(2)
    d0, d1 = size[..., 0], size[..., 1]
    return dict(size=size, valid0=valid[..., 0], d0=d0, d1=d1,
                log_pad=log2_padding(d0, 128) + log2_padding(d1, 8), phys0=nth(1), phys1=nth(2), key=key)


def row_major_key(dims):
    big = (dims > 1).float()
    larger = big.sum(2, keepdim=True) - big.cumsum(2)
    return (big * torch.arange(1, SLOTS + 1, dtype=dims.dtype, device=dims.device) * torch.pow(8.0, larger)).sum(2)


def one_layout(layout, dims, ref, bits, prefs):
    B = layout.shape[0]
    dims, ref = dims.expand(B, -1, -1), ref.expand(B, -1, -1)
    l, r = place(layout, dims), place(ref, dims)
    comparable = (l["valid0"] & r["valid0"]).float()
    elements = dims.clamp(min=1.0).prod(2) * (dims[..., 0] > 0).float()
    nbytes = elements * bits / 8
    padded_l, padded_r = nbytes * torch.exp2(l["log_pad"]), nbytes * torch.exp2(r["log_pad"])
    lg = lambda x, s: torch.log2(1 + x) / s
    p0, p1, avoid = (prefs[..., k].expand_as(l["d0"]) for k in range(3))
    miss = lambda p, slot: ((p >= 0) & (layout[..., slot] != p)).float()
    avoid_hit = ((avoid >= 0) & ((layout[..., 0] == avoid) | (layout[..., 1] == avoid))).float()
    return torch.stack([lg(l["d0"], 8), lg(l["d1"], 8), log2_padding(l["d0"], 128), log2_padding(l["d1"], 8),
                        comparable, comparable * (l["phys0"] == r["phys0"]).float(),
                        comparable * (l["phys1"] == r["phys1"]).float(), comparable * (l["key"] == r["key"]).float(),
                        lg(nbytes, 16), lg(padded_l, 16), lg(padded_r, 16), lg(padded_l + padded_r, 16),
                        miss(p0, 0), miss(p1, 1), avoid_hit, (l["key"] == row_major_key(dims)).float()], 2)


def tiling_features(config, context):
    """models/layout_tiling.cpp in PyTorch: [B, nc, 18], [nc, 50] -> [B, nc, 48]."""
    values = config.round().clamp(-1, SLOTS - 1)
    ctx = context.unsqueeze(0)
    slots = lambda t, at: t[..., at:at + SLOTS]

    def producer_layout(col, tensor):
        p = context[:, col].round().long()
        from_config = slots(values.index_select(1, p.clamp(min=0)), 0)
        return torch.where((p >= 0).view(1, -1, 1), from_config, slots(ctx, tensor + LAYOUT))

    def block(at, tensor, ref):
        return one_layout(slots(values, at), slots(ctx, tensor + DIMS), ref, ctx[..., tensor + BITS],
                          ctx[..., tensor + PREFER0:tensor + PREFER0 + 3])

    return torch.cat([block(0, 0, slots(ctx, LAYOUT)),
                      block(6, TENSOR_WIDTH, producer_layout(IN_PRODUCER, TENSOR_WIDTH)),
                      block(12, 2 * TENSOR_WIDTH, producer_layout(KERNEL_PRODUCER, 2 * TENSOR_WIDTH))], 2)


class ResMlpBlock(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm, self.fc1, self.fc2 = nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class LayoutFocus(nn.Module):
    TERMS, NODE_BLOCKS = 4, 2

    def __init__(self, feat, width, hidden, layers, vocab=121):
        super().__init__()
        self.encoder = NodeEncoder(vocab, feat, hidden)
        self.layers = layers
        for i in range(layers):
            setattr(self, f"block{i}", ResSageBlock(hidden))
        self.graph_norm = nn.LayerNorm(hidden)
        c = max(8, hidden // 2)  # stage 2 is half as wide
        self.node_in = nn.Linear(hidden, c)
        self.values = LayoutValueEmbedding(width, c)
        self.tiling = nn.Linear(3 * 16, c)
        for i in range(self.NODE_BLOCKS):
            setattr(self, f"node_block{i}", ResMlpBlock(c))
        self.node_norm = nn.LayerNorm(c)
        self.cost_fc1, self.cost_fc2 = nn.Linear(c, c), nn.Linear(c, self.TERMS)
        self.cost_direct = nn.Linear(3 * 16, self.TERMS)
        self.log_scale = nn.Parameter(torch.zeros(1))

    def forward(self, g, c):
        h = self.encoder(g)
        for i in range(self.layers):
            h = getattr(self, f"block{i}")(g, h)
        node = self.node_in(self.graph_norm(h).index_select(0, g.config_nodes))
        t = tiling_features(c, g.context)
        x = node.unsqueeze(0) + self.values(c) + self.tiling(t)
        for i in range(self.NODE_BLOCKS):
            x = getattr(self, f"node_block{i}")(x)
        terms = self.cost_fc2(torch.relu(self.cost_fc1(self.node_norm(x)))) + self.cost_direct(t)
        return torch.logsumexp(terms.flatten(1), 1) * self.log_scale.exp()


# glibc settings equal to fastslow::models::keep_freed_cpu_memory().
KEEP_MEMORY_TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=2147483647"


def python_side(args):
    """Times the PyTorch model in this process; prints one JSON line.

    On a GPU the steps are timed in blocks that end with one
    torch.cuda.synchronize() (the loss is read back on the first step only),
    as the C++ side times its own; on the CPU step by step. With --engine
    fastslow the step clips the gradient norm to 1, as the trainer's does."""
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    z = np.load(args.python_side)
    g = Graph(z).to(device)
    configs, target = torch.from_numpy(z["configs"]).to(device), torch.from_numpy(z["target"]).to(device)
    model = (LayoutFocus if args.model == "focus" else LayoutAttn)(g.x.shape[1], configs.shape[2], args.hidden,
                                                                     args.layers)
    state = {k[len("param/"):]: torch.from_numpy(z[k]) for k in z.files if k.startswith("param/")}
    model.load_state_dict(state, strict=True)
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    clip = args.engine == "fastslow"
    loss0 = None

    def step():
        nonlocal loss0
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(g, configs), target)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if loss0 is None:
            loss0 = loss.item()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    block = max(1, args.steps // 3) if device.type == "cuda" else 1
    for _ in range(args.warmup):
        step()
    sync()
    secs, done = [], 0
    while done < args.steps:
        t0 = time.perf_counter()
        for _ in range(block):
            step()
        sync()
        secs.append((time.perf_counter() - t0) / block)
        done += block
    print(json.dumps({"loss0": loss0, "step_seconds": secs, "threads": torch.get_num_threads(),
                      "torch": torch.__version__, "device": str(device)}))


def run_json(cmd, env):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir", nargs="?")
    ap.add_argument("work_dir", nargs="?")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=8, help="timed steps per round and side")
    ap.add_argument("--rounds", type=int, default=3, help="C++ and Python alternate, one process each per round")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--model", choices=["focus", "attn"], default="focus")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--device", default="cpu", help="cpu or cuda: both sides run there")
    ap.add_argument("--engine", choices=["torch", "fastslow"], default="torch",
                    help="C++ side: the plain LibTorch loop (torch) or the trainer's step (fastslow: FlatAdamW, "
                         "clipping, CUDA graphs on a GPU; the PyTorch side then clips too)")
    ap.add_argument("--python-side", metavar="NPZ", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.python_side:
        return python_side(args)
    if not args.build_dir or not args.work_dir:
        ap.error("BUILD_DIR and WORK_DIR are required")
    os.makedirs(args.work_dir, exist_ok=True)
    npz = os.path.join(args.work_dir, "train_step.npz")
    tool = os.path.join(args.build_dir, "bin", "fastslow_bench_train_step")
    common = ["--model", args.model, "--threads", str(args.threads), "--steps", str(args.steps), "--warmup", str(args.warmup),
              "--hidden", str(args.hidden), "--layers", str(args.layers), "--device", args.device,
              "--engine", args.engine]
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = str(args.threads)
    env.pop("GLIBC_TUNABLES", None)
    env_keep = dict(env, GLIBC_TUNABLES=KEEP_MEMORY_TUNABLES)
    py = [sys.executable, os.path.abspath(__file__), "--python-side", npz] + common

    sides = {"cpp": [], "cpp_dense": [], "py": [], "py_keep": []}
    cpp = pyr = None
    for _ in range(args.rounds):
        cpp = run_json([tool, npz, "--nodes", str(args.nodes)] + common, env)
        sides["cpp"] += cpp["step_seconds"]
        if args.model == "attn":
            dense = run_json([tool, npz, "--nodes", str(args.nodes), "--dense", "1"] + common, env)
            sides["cpp_dense"] += dense["step_seconds"]
            assert abs(dense["loss0"] - cpp["loss0"]) <= 1e-4 * abs(cpp["loss0"]), (dense["loss0"], cpp["loss0"])
        pyr = run_json(py, env)
        sides["py"] += pyr["step_seconds"]
        if args.device == "cpu":  # malloc settings matter to the CPU side only
            sides["py_keep"] += run_json(py, env_keep)["step_seconds"]

    rel = abs(cpp["loss0"] - pyr["loss0"]) / max(abs(pyr["loss0"]), 1e-12)
    assert rel < 1e-4, f"first-step losses differ: C++ {cpp['loss0']} vs PyTorch {pyr['loss0']} (relative {rel:.2e})"
    batch = cpp["batch"]
    sides = {k: v for k, v in sides.items() if v}
    med = {k: statistics.median(v) for k, v in sides.items()}
    best = {k: min(v) for k, v in sides.items()}
    print(f"train step, layout {args.model} (hidden {args.hidden}, layers {args.layers}, {cpp['params']} parameters), "
          f"{cpp['nodes']} nodes, {cpp['edges']} edges, {cpp['configurable']} configurable, "
          f"{batch} configs/step, {args.threads} thread(s), torch {torch.__version__}, {args.device}, "
          f"C++ engine {args.engine}, "
          f"{args.rounds} rounds x {args.steps} steps per side")
    print(f"  first-step loss      C++ {cpp['loss0']:.6f}  PyTorch {pyr['loss0']:.6f}  (relative difference {rel:.1e})")
    names = {"cpp": "C++ (fastslow)", "cpp_dense": "C++, dense (no shared rows)", "py": "PyTorch",
             "py_keep": "PyTorch, same malloc settings"}
    for k in sides:
        print(f"  {names[k]:30s} median {med[k] * 1e3:7.1f} ms/step  {batch / med[k]:6.1f} configs/s"
              f"   (best {best[k] * 1e3:.1f} ms)")
    print(f"  ratio C++/Python                {med['py'] / med['cpp']:.2f}  (best steps {best['py'] / best['cpp']:.2f})")
    if "py_keep" in med:
        print(f"  ratio C++/Python, same malloc   {med['py_keep'] / med['cpp']:.2f}  "
              f"(best steps {best['py_keep'] / best['cpp']:.2f})")
    if "cpp_dense" in med:
        print(f"  ratio C++ dense/Python          {med['py'] / med['cpp_dense']:.2f}")


if __name__ == "__main__":
    main()
