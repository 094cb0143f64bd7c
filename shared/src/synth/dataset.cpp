#include "fastslow/synth/dataset.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "fastslow/synth/features.h"
#include "fastslow/synth/layout_configs.h"
#include "fastslow/synth/layout_cost.h"
#include "fastslow/synth/price.h"
#include "fastslow/synth/tile_configs.h"
#include "fastslow/synth/tile_cost.h"

namespace fs = std::filesystem;

namespace fastslow::synth {

namespace {

constexpr int kManifestVersion = 11;  // 2: templates drawn by quota per split; 3: layout menus, plateau costs; 4: unet training steps; 5: in training loops; 6: bert training steps; 7: a tensor's users counted once each; 8: bert: ids, gather and scatter, one-hot by iota, dropout, clipping; 9: CSE of scalar constants and broadcasts; 10: gradient accumulation in a conditional; 11: matrix operands read tiny dims in place
// The largest published layout file holds 871 MB of config features
// (100040 x 121 x 18 float32); big graphs get fewer configs to stay within it.
constexpr int64_t kMaxConfigFeatBytes = 900ll << 20;
const char* const kSplits[] = {"train", "valid", "test"};

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Log-uniform integer in [lo, hi] from the Rng's integers only (no libm).
int64_t log_uniform(Rng& rng, int64_t lo, int64_t hi) {
  // Pick an octave, then a value inside it: sizes spread over magnitudes
  // as real graph and config counts do.
  int64_t a = lo;
  std::vector<int64_t> edges{lo};
  while (a * 2 < hi) edges.push_back(a *= 2);
  edges.push_back(hi);
  const size_t k = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(edges.size()) - 2));
  return rng.uniform_int(edges[k], edges[k + 1]);
}

// Files per collection (train, valid, test) in all_collection_ids() order:
// tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random,
// layout:nlp:default. `full` mirrors the published counts (DATA.md).
std::vector<std::array<int, 3>> file_counts(SynthScale scale) {
  switch (scale) {
    case SynthScale::Tiny: return {{6, 2, 2}, {3, 1, 1}, {3, 1, 1}, {3, 1, 1}, {3, 1, 1}};
    case SynthScale::Small: return {{240, 30, 30}, {10, 3, 3}, {10, 3, 3}, {10, 3, 3}, {10, 3, 3}};
    case SynthScale::Full: return {{5709, 676, 844}, {69, 7, 8}, {61, 7, 8}, {207, 20, 17}, {198, 20, 17}};
  }
  return {};
}

struct Sizes {
  int64_t nodes_lo, nodes_hi, configs_lo, configs_hi, test_configs;
};

Sizes layout_sizes(SynthScale scale, bool nlp) {
  switch (scale) {
    case SynthScale::Tiny: return {150, 400, 60, 160, 50};
    case SynthScale::Small: return {300, 2500, 300, 2000, 1000};
    case SynthScale::Full: return {300, 25000, 1000, nlp ? 100000 : 40000, 1000};
  }
  return {};
}

Sizes tile_sizes(SynthScale scale) {
  switch (scale) {
    case SynthScale::Tiny: return {5, 40, 20, 60, 20};
    case SynthScale::Small: return {5, 100, 30, 200, 60};
    case SynthScale::Full: return {5, 100, 100, 5000, 500};
  }
  return {};
}

// The template mix of a collection, in thousandths. xla collections are
// mostly conv nets, nlp mostly transformers. Training steps (unet in xla,
// bert in nlp) come from `small` up: at `tiny` sizes (150-400 nodes) a
// training step is a two-level net or less than one layer, and the tests'
// tiny datasets keep their inference mix.
struct Share {
  ModelTemplate model;
  int64_t thousandths;
};
std::vector<Share> template_mix(SynthScale scale, bool nlp) {
  if (nlp && scale == SynthScale::Tiny)
    return {{ModelTemplate::Transformer, 800}, {ModelTemplate::Mlp, 100}, {ModelTemplate::Rnn, 100}};
  if (nlp)
    return {{ModelTemplate::Transformer, 550}, {ModelTemplate::BertTraining, 250}, {ModelTemplate::Mlp, 100},
            {ModelTemplate::Rnn, 100}};
  if (scale == SynthScale::Tiny) return {{ModelTemplate::ResNet, 700}, {ModelTemplate::Mlp, 150}, {ModelTemplate::Rnn, 150}};
  return {{ModelTemplate::ResNet, 500}, {ModelTemplate::UnetTraining, 200}, {ModelTemplate::Mlp, 150},
          {ModelTemplate::Rnn, 150}};
}

// The templates of a split, in shuffled order. Drawn per file, a 10-file
// training split came out all ResNets one time in 35 and validation then held
// a template training never saw; quotas keep each split close to the mix and
// give training at least one graph of every template.
std::vector<ModelTemplate> split_templates(Rng& rng, const std::vector<Share>& mix, int files, bool train) {
  const size_t kinds = mix.size();
  std::vector<int64_t> count(kinds), remainder(kinds);
  const int64_t floor = train && files >= static_cast<int>(kinds) ? 1 : 0;
  const int64_t rest = files - static_cast<int64_t>(kinds) * floor;
  int64_t given = 0;
  for (size_t k = 0; k < kinds; ++k) {
    count[k] = floor + rest * mix[k].thousandths / 1000;
    remainder[k] = rest * mix[k].thousandths % 1000;
    given += count[k];
  }
  while (given < files) {  // largest remainder; ties go to the commoner template
    size_t best = 0;
    for (size_t k = 1; k < kinds; ++k)
      if (remainder[k] > remainder[best]) best = k;
    ++count[best];
    remainder[best] = -1;
    ++given;
  }
  std::vector<ModelTemplate> out;
  for (size_t k = 0; k < kinds; ++k) out.insert(out.end(), static_cast<size_t>(count[k]), mix[k].model);
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.uniform_int(0, static_cast<int64_t>(i) - 1)]);
  return out;
}

std::string stem(const char* prefix, int index) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s_%04d", prefix, index);
  return buf;
}

int64_t to_ns(double v) { return static_cast<int64_t>(v + 0.5); }

// Repeats some configs, as random and genetic searches revisit configs:
// returns, per final config, the index of the sampled config it copies.
std::vector<int64_t> with_duplicates(Rng& rng, int64_t sampled, int64_t total) {
  std::vector<int64_t> src(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i)
    src[i] = i < sampled ? i : rng.uniform_int(0, sampled - 1);
  // Interleave the copies among the originals.
  for (int64_t i = total - 1; i > 0; --i) std::swap(src[i], src[rng.uniform_int(0, i)]);
  return src;
}

// The arrays tile and layout files share, as the published files hold them.
void add_graph(NpzWriter& out, const HloGraph& g) {
  const int64_t n = g.num_nodes();
  const std::vector<float> nf = node_features(g);
  const std::vector<int32_t> ops32 = g.opcodes();
  const std::vector<int64_t> edges = g.edges();
  out.add("node_feat", nf, {n, static_cast<int64_t>(nf.size()) / std::max<int64_t>(1, n)});
  out.add("node_opcode", std::vector<uint8_t>(ops32.begin(), ops32.end()), {n});
  out.add("edge_index", edges, {static_cast<int64_t>(edges.size() / 2), 2});
}

// Test files carry zero runtimes, as published; the truth goes to answers/.
std::vector<int64_t> published_runtimes(const SynthItem& item, const std::vector<int64_t>& measured) {
  return item.split == "test" ? std::vector<int64_t>(measured.size(), 0) : measured;
}

GeneratorRecord record_of(const SynthItem& item) {
  return {item.seed, item.target_nodes, item.tile() ? -1 : static_cast<int>(item.model)};
}

// The answers, and how the graph was made: what `synth --price` makes it
// again from (price.h).
void write_answers(const std::string& dir, const SynthItem& item, const std::vector<int64_t>& measured,
                   const std::vector<int64_t>& clean) {
  const int64_t n = static_cast<int64_t>(measured.size());
  NpzWriter ans(dir + "/" + item.answer_path(), Compression::Deflate);
  ans.add("config_runtime", measured, {n});
  ans.add("config_runtime_clean", clean, {n});
  const GeneratorRecord r = record_of(item);
  ans.add("generator_seed", std::vector<uint64_t>{r.seed}, {1});
  ans.add("generator_nodes", std::vector<int64_t>{r.target_nodes}, {1});
  ans.add("generator_template", std::vector<int64_t>{r.template_id}, {1});
  ans.close();
}

void write_layout(const std::string& dir, const SynthItem& item) {
  Rng rng(item.seed);
  const HloGraph g = generate(item.model, rng, item.target_nodes);  // as generated_graph(record_of(item))
  const LayoutSpace space = layout_space(g);
  const bool random = item.collection.find(":random") != std::string::npos;
  const int64_t nc = space.size();
  const int64_t w = 18;
  const int64_t configs = std::min(item.configs, std::max<int64_t>(1, kMaxConfigFeatBytes / (nc * w * 4 + 1)));
  // Real training files re-measure many configs (AlexNet 37 %, unet3d 41 %
  // of their configs are repeats); the published test files hardly any.
  const int64_t dup = configs * (item.split == "test" ? 1 : random ? 35 : 40) / 100;
  const int64_t sampled = std::max<int64_t>(1, configs - dup);
  const std::vector<float> pool =
      sample_layout_configs(g, space, random ? LayoutSearch::Random : LayoutSearch::Default, sampled, rng);
  std::vector<double> pool_clean(static_cast<size_t>(sampled));
  for (int64_t i = 0; i < sampled; ++i) pool_clean[i] = layout_runtime(g, space, pool.data() + i * nc * w);
  const std::vector<int64_t> src = with_duplicates(rng, sampled, configs);

  std::vector<float> feat(static_cast<size_t>(configs * nc * w));
  std::vector<int64_t> clean(static_cast<size_t>(configs)), measured(clean.size());
  for (int64_t i = 0; i < configs; ++i) {
    std::copy_n(pool.data() + src[i] * nc * w, nc * w, feat.data() + i * nc * w);
    clean[i] = to_ns(pool_clean[src[i]]);
    measured[i] = to_ns(pool_clean[src[i]] * measurement_noise(rng, kLayoutNoise));
  }
  // Real files are np.savez_compressed with these dtypes (DATA.md).
  NpzWriter out(dir + "/" + item.path, Compression::Deflate);
  add_graph(out, g);
  out.add("node_config_ids", space.nodes, {nc});
  out.add("node_config_feat", feat, {configs, nc, w});
  out.add("config_runtime", published_runtimes(item, measured), {configs});
  out.add("node_splits", g.node_splits, {1, static_cast<int64_t>(g.node_splits.size())});
  out.close();
  write_answers(dir, item, measured, clean);
}

void write_tile(const std::string& dir, const SynthItem& item) {
  Rng rng(item.seed);
  const HloGraph g = tile_kernel(rng, item.target_nodes);  // as generated_graph(record_of(item))
  const TileSpace space = tile_space(g);
  const int64_t w = 24;
  const int64_t dup = item.configs * 5 / 100;
  const int64_t sampled = std::max<int64_t>(1, item.configs - dup);
  const std::vector<float> pool = sample_tile_configs(g, space, sampled, rng);
  const double normalizer = tile_normalizer(g, space);
  const std::vector<int64_t> src = with_duplicates(rng, sampled, item.configs);
  std::vector<float> feat(static_cast<size_t>(item.configs * w));
  std::vector<int64_t> clean(static_cast<size_t>(item.configs)), measured(clean.size()), norm(clean.size());
  for (int64_t i = 0; i < item.configs; ++i) {
    const float* cfg = pool.data() + src[i] * w;
    std::copy_n(cfg, w, feat.data() + i * w);
    const double t = tile_runtime(g, space, cfg);
    clean[i] = to_ns(t);
    measured[i] = to_ns(t * measurement_noise(rng));
    // The default config is re-measured next to each config.
    norm[i] = std::max<int64_t>(1, to_ns(normalizer * measurement_noise(rng)));
  }
  NpzWriter out(dir + "/" + item.path, Compression::Deflate);
  add_graph(out, g);
  out.add("config_feat", feat, {item.configs, w});
  out.add("config_runtime", published_runtimes(item, measured), {item.configs});
  out.add("config_runtime_normalizers", norm, {item.configs});
  out.close();
  write_answers(dir, item, measured, clean);
}

nlohmann::json manifest(SynthScale scale, uint64_t seed, size_t files, const std::vector<std::string>& collections) {
  nlohmann::json j = {{"generator", "fastslow synth"},
                      {"version", kManifestVersion},
                      {"scale", synth_scale_name(scale)},
                      {"seed", seed},
                      {"files", files}};
  if (!collections.empty()) j["collections"] = collections;  // absent: all of them
  return j;
}

}  // namespace

SynthScale parse_synth_scale(const std::string& name) {
  if (name == "tiny") return SynthScale::Tiny;
  if (name == "small") return SynthScale::Small;
  if (name == "full") return SynthScale::Full;
  throw Error("unknown scale '" + name + "' (tiny, small or full)");
}

const char* synth_scale_name(SynthScale scale) {
  switch (scale) {
    case SynthScale::Tiny: return "tiny";
    case SynthScale::Small: return "small";
    case SynthScale::Full: return "full";
  }
  return "?";
}

double measurement_noise(Rng& rng, double half_width) { return 1.0 + half_width * (2 * rng.uniform() - 1); }

std::vector<SynthItem> synth_plan(SynthScale scale, uint64_t seed) {
  std::vector<SynthItem> plan;
  const std::vector<std::array<int, 3>> counts = file_counts(scale);
  const std::vector<std::string>& ids = all_collection_ids();
  for (size_t ci = 0; ci < ids.size(); ++ci) {
    const uint64_t c_index = ci + 1;
    const CollectionId id = parse_collection_id(ids[ci]);
    const bool tile = id.kind == GraphKind::Tile;
    const bool nlp = id.source == "nlp";
    const std::string dir = "npz/" + std::string(graph_kind_name(id.kind)) + "/" + id.source + (id.search.empty() ? "" : "/" + id.search);
    int index = 0;
    for (int s = 0; s < 3; ++s) {
      Rng split_rng(splitmix(splitmix(seed) ^ (c_index << 8) ^ static_cast<uint64_t>(s + 1)));
      const std::vector<ModelTemplate> models =
          tile ? std::vector<ModelTemplate>{} : split_templates(split_rng, template_mix(scale, nlp), counts[ci][s], s == 0);
      for (int f = 0; f < counts[ci][s]; ++f, ++index) {
        SynthItem item;
        item.collection = ids[ci];
        item.split = kSplits[s];
        item.seed = splitmix(splitmix(splitmix(seed) ^ c_index) ^ static_cast<uint64_t>(index));
        Rng rng(item.seed ^ 0x5eed);
        const Sizes z = tile ? tile_sizes(scale) : layout_sizes(scale, nlp);
        item.target_nodes = static_cast<int>(log_uniform(rng, z.nodes_lo, z.nodes_hi));
        item.configs = s == 2 ? z.test_configs : log_uniform(rng, z.configs_lo, z.configs_hi);
        std::string prefix = "kernel";
        if (!tile) {
          item.model = models[static_cast<size_t>(f)];
          prefix = template_name(item.model);
        }
        item.path = dir + "/" + kSplits[s] + "/" + stem(prefix.c_str(), index) + ".npz";
        plan.push_back(std::move(item));
      }
    }
  }
  return plan;
}

void synth_write(const std::string& dir, const SynthItem& item) {
  fs::create_directories(fs::path(dir) / fs::path(item.path).parent_path());
  fs::create_directories(fs::path(dir) / fs::path(item.answer_path()).parent_path());
  if (item.tile()) {
    write_tile(dir, item);
  } else {
    write_layout(dir, item);
  }
}

std::vector<SynthItem> synth_plan(SynthScale scale, uint64_t seed, const std::vector<std::string>& collections,
                                  const std::string& dir) {
  const std::vector<std::string>& ids = all_collection_ids();
  for (const std::string& c : collections)
    if (std::find(ids.begin(), ids.end(), c) == ids.end())
      throw Error(dir, "", "unknown collection '" + c + "' (tile:xla, layout:xla:random, layout:xla:default, "
                           "layout:nlp:random or layout:nlp:default)");
  std::vector<SynthItem> plan = synth_plan(scale, seed);
  if (collections.empty()) return plan;
  plan.erase(std::remove_if(plan.begin(), plan.end(),
                            [&](const SynthItem& item) {
                              return std::find(collections.begin(), collections.end(), item.collection) ==
                                     collections.end();
                            }),
             plan.end());
  return plan;
}

bool synth_dataset(const std::string& dir, SynthScale scale, uint64_t seed,
                   const std::function<bool(const SynthProgress&)>& progress,
                   const std::vector<std::string>& collections) {
  const std::vector<SynthItem> plan = synth_plan(scale, seed, collections, dir);
  std::vector<std::string> wanted;  // the selection in plan order, once each: the manifest's record
  if (!collections.empty())
    for (const std::string& id : all_collection_ids())
      if (std::find(collections.begin(), collections.end(), id) != collections.end()) wanted.push_back(id);
  const fs::path root(dir);
  const fs::path manifest_path = root / "synth.json";
  const nlohmann::json want = manifest(scale, seed, plan.size(), wanted);
  std::error_code ec;
  if (fs::exists(manifest_path)) {
    const nlohmann::json have = parse_json_text(read_whole_file(manifest_path.string()), manifest_path.string(),
                                                "unreadable manifest; remove it or choose another --out");
    if (have != want)
      throw Error(dir, "", "holds a dataset generated with other settings (" + have.dump() +
                               "); choose another --out or remove it");
  } else {
    if (fs::exists(root) && !fs::is_empty(root, ec))
      throw Error(dir, "", "exists and is not empty; choose an empty or new folder");
    fs::create_directories(root);
    write_file_atomically(manifest_path.string(), want.dump(2) + "\n");
  }
  SynthProgress p;
  p.total = plan.size();
  for (const SynthItem& item : plan) {
    if (fs::exists(root / item.path) && fs::exists(root / item.answer_path())) {
      ++p.skipped;
    } else {
      synth_write(dir, item);
    }
    ++p.done;
    p.item = &item;
    if (progress && !progress(p)) return p.done == p.total;
  }
  return true;
}

}  // namespace fastslow::synth
