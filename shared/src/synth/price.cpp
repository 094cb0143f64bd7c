#include "fastslow/synth/price.h"

#include <cmath>
#include <filesystem>

#include "fastslow/error.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/synth/graph_from_features.h"
#include "fastslow/synth/layout_cost.h"
#include "fastslow/synth/templates.h"
#include "fastslow/synth/tile_cost.h"

namespace fastslow::synth {
namespace {

namespace fs = std::filesystem;

// ROOT/answers/<rel> for the file ROOT/<rel>, trying each folder above it.
std::string find_answers(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::path(path), ec);
  if (ec || !fs::is_regular_file(file)) throw Error(path, "", "no such file");
  for (fs::path root = file.parent_path(); !root.empty(); root = root.parent_path()) {
    const fs::path candidate = root / "answers" / file.lexically_relative(root);
    if (fs::is_regular_file(candidate)) return candidate.string();
    if (root == root.root_path()) break;
  }
  throw Error(path, "", "no answers file beside it (ROOT/answers/<path> for ROOT/<path>): only files `fastslow synth` "
                        "wrote can be priced as made (--from-features prices any layout file as its features describe it)");
}

int64_t scalar(const NpzReader& npz, const char* name) {
  if (!npz.contains(name))
    throw Error(npz.file(), name, "missing: the answers file predates the generator record; generate the data again");
  std::vector<int64_t> v;
  try {
    v = npz.read(name).to_int64(name);
  } catch (const Error& e) {
    throw Error(npz.file(), name, e.problem());
  }
  if (v.size() != 1) throw Error(npz.file(), name, "expected one value");
  return v[0];
}

}  // namespace

HloGraph generated_graph(const GeneratorRecord& r) {
  Rng rng(r.seed);
  if (r.template_id < 0) return tile_kernel(rng, r.target_nodes);
  if (r.template_id >= static_cast<int>(all_templates().size())) throw Error("generator record: unknown template " + std::to_string(r.template_id));
  return generate(static_cast<ModelTemplate>(r.template_id), rng, r.target_nodes);
}

Pricer Pricer::for_file(const std::string& path) {
  Pricer p;
  p.answers_ = find_answers(path);
  const NpzReader ans = NpzReader::open(p.answers_);
  GeneratorRecord r;
  if (!ans.contains("generator_seed"))
    throw Error(p.answers_, "generator_seed", "missing: the answers file predates the generator record; generate the data again");
  const NpyArray seed = ans.read("generator_seed");
  if (seed.dtype() != DType::U64 || seed.count() != 1) throw Error(p.answers_, "generator_seed", "expected one uint64");
  r.seed = seed.as<uint64_t>()[0];
  r.target_nodes = static_cast<int>(scalar(ans, "generator_nodes"));
  r.template_id = static_cast<int>(scalar(ans, "generator_template"));
  p.tile_ = r.template_id < 0;
  try {
    p.g_ = generated_graph(r);
  } catch (const Error& e) {
    throw Error(p.answers_, "generator_template", e.problem());
  }

  // The graph made again must be the file's: a file edited or written by
  // another version of the generator would be priced wrongly.
  const NpzReader file = NpzReader::open(path);
  const std::vector<int64_t> ops = file.read("node_opcode").to_int64("node_opcode");
  const std::vector<int32_t> want = p.g_.opcodes();
  bool same = ops.size() == want.size();
  for (size_t i = 0; same && i < ops.size(); ++i) same = ops[i] == want[i];
  if (!same)
    throw Error(path, "node_opcode", "differs from the graph its answers file says was generated (" +
                                         std::to_string(ops.size()) + " nodes, made again " + std::to_string(want.size()) + ")");
  if (p.tile_) {
    p.tile_space_ = tile_space(p.g_);
  } else {
    p.layout_ = layout_space(p.g_);
    if (file.read("node_config_ids").to_int64("node_config_ids") != p.layout_.nodes)
      throw Error(path, "node_config_ids", "differs from the configurable nodes of the graph made again");
  }
  return p;
}

Pricer Pricer::from_features(const std::string& path) {
  LoadOptions options;
  options.config_features = false;
  const Graph file = load_graph(NpzReader::open(path), options);
  const auto* l = std::get_if<LayoutGraph>(&file);
  if (!l) throw Error(path, "", "is a tile kernel: only layout graphs are read back from their features");
  return from_features(*l);
}

Pricer Pricer::from_features(const LayoutGraph& file) {
  Pricer p;
  p.answers_ = file.file;
  p.g_ = graph_from_features(file);
  p.layout_ = layout_space(p.g_, file.node_config_ids);
  return p;
}

int64_t Pricer::row_elems() const { return tile_ ? 24 : layout_.size() * kLayoutConfigWidth; }

double Pricer::runtime(const float* config) const {
  return tile_ ? tile_runtime(g_, tile_space_, config) : layout_runtime(g_, layout_, config);
}

std::vector<int64_t> Pricer::runtimes_ns(const std::vector<float>& configs) const {
  const int64_t w = row_elems();
  if (w == 0 || configs.size() % static_cast<size_t>(w) != 0)
    throw Error(answers_, "", std::to_string(configs.size()) + " values are not whole configs of " + std::to_string(w));
  std::vector<int64_t> out;
  for (size_t i = 0; i < configs.size(); i += static_cast<size_t>(w))
    out.push_back(static_cast<int64_t>(runtime(configs.data() + i) + 0.5));  // the generator's rounding
  return out;
}

}  // namespace fastslow::synth
