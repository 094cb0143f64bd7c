#include "train/prepared_data.h"

#include <algorithm>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

std::string count_str(size_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// What a per-program run learns from: a few hundred unique configs over-fit
// differently from 30,000, and the user should see which case they are in.
// The groups a file with runtimes holds none for (empty: a file without
// runtimes, whose groups are all 0 and which nothing trains on).
std::vector<char> unmeasured_of(const CachedGraph& c) {
  return c.has_runtime() ? c.groups.unmeasured() : std::vector<char>{};
}

std::string program_summary(const CachedGraph& c, const HoldoutSplit& h) {
  const int64_t n = c.groups.num_groups();
  const std::vector<char> none = unmeasured_of(c);
  const auto without = static_cast<size_t>(std::count(none.begin(), none.end(), 1));
  std::string s = c.source + ": " + count_str(static_cast<size_t>(n)) + " unique configs of " +
                  count_str(static_cast<size_t>(c.num_configs)) + " measured" +
                  (without > 0 ? " (" + count_str(without) + " without a runtime, left out)" : "") +
                  "; learning from " + count_str(h.train.size()) + ", ";
  if (h.valid.empty()) return s + "validating on the " + count_str(h.holdout.size()) + " held out";
  return s + "validating (early stopping) on " + count_str(h.valid.size()) + ", holding out " +
         count_str(h.holdout.size()) + " (fastslow eval --split holdout)";
}

// One model reads every graph: kinds and feature widths must agree across
// the collections and roots it learns from.
void check_widths(const std::vector<CachedGraph>& train, const std::vector<CachedGraph>& valid, const DataSpec& spec) {
  const CachedGraph& first = train.front();
  auto label = [&](const std::vector<int>& src, size_t i) {
    return spec.source_labels.empty() || i >= src.size() ? std::string() : " (" + spec.source_labels[src[i]] + ")";
  };
  auto check = [&](const CachedGraph& c, const std::string& where) {
    std::string what;
    if (c.kind != first.kind)
      what = std::string("is a ") + graph_kind_name(c.kind) + " graph, " + first.source + " a " +
             graph_kind_name(first.kind) + " one";
    else if (c.node_feat_width != first.node_feat_width)
      what = "has " + std::to_string(c.node_feat_width) + " node features, " + first.source + " has " +
             std::to_string(first.node_feat_width);
    else if (c.config_feat_width != first.config_feat_width)
      what = "has " + std::to_string(c.config_feat_width) + " config features, " + first.source + " has " +
             std::to_string(first.config_feat_width);
    if (!what.empty())
      throw Error(c.source, "", what + where + "; one model learns from graphs of one feature width");
  };
  for (size_t i = 0; i < train.size(); ++i) check(train[i], label(spec.train_source, i));
  for (size_t i = 0; i < valid.size(); ++i) check(valid[i], label(spec.valid_source, i));
}

}  // namespace

const std::vector<int64_t>& validating_groups(const HoldoutSplit& h) { return h.valid.empty() ? h.holdout : h.valid; }

int64_t PreparedData::config_width() const {
  if (kind == GraphKind::Tile) return norm.config.width();
  return train.empty() ? 0 : train.front().cache.config_feat_width;
}

std::vector<size_t> PreparedData::trainable() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < train.size(); ++i)
    if (train[i].train_groups.size() >= 2) out.push_back(i);
  return out;
}

std::vector<CachedGraph> cache_files(const std::vector<std::string>& files, const GraphCacheOptions& options,
                                     const Progress& progress) {
  std::vector<CachedGraph> out;
  for (size_t i = 0; i < files.size(); ++i) {
    if (progress) progress(i, files.size(), files[i]);
    out.push_back(CachedGraph::open(files[i], options));
  }
  if (progress) progress(files.size(), files.size(), "");
  return out;
}

HoldoutSplit program_split(const CachedGraph& graph, const DataSpec::SplitGroups& split) {
  return split(graph.groups.num_groups(), unmeasured_of(graph));
}

std::vector<GraphEntry> make_entries(std::vector<CachedGraph> caches, const Normalizer& norm,
                                     const torch::Device& device, const GroupChoice& groups) {
  std::vector<GraphEntry> out;
  for (CachedGraph& c : caches) {
    GraphEntry e = make_entry(std::move(c), norm, device);
    if (groups) std::tie(e.train_groups, e.eval_groups) = groups(e.cache);
    // A 0 would train as the fastest config of all.
    e.train_groups = without_unmeasured({e.train_groups, {}, {}}, unmeasured_of(e.cache)).train;
    set_targets(&e);
    out.push_back(std::move(e));
  }
  return out;
}

PreparedData prepare(const DataSpec& spec, const torch::Device& device, std::optional<Normalizer> norm,
                     const Progress& progress, const Say& say) {
  auto tell = [&](const std::string& s) {
    if (say) say(s);
  };
  const bool program = static_cast<bool>(spec.split_groups);
  if (program && (spec.train_files.size() != 1 || !spec.valid_files.empty()))
    throw Error(spec.source, "", "per-program preparation takes one graph and no valid files");
  tell("preparing training graphs (cache: " + spec.cache.dir + ")");
  std::vector<CachedGraph> caches = cache_files(spec.train_files, spec.cache, progress);
  if (caches.empty()) throw Error(spec.source, "", "has no training graphs");
  PreparedData d;
  d.kind = caches.front().kind;
  d.source = spec.source;
  d.per_program = program;
  std::vector<CachedGraph> valid_caches;
  if (!program) {
    tell("preparing validation graphs");
    valid_caches = cache_files(spec.valid_files, spec.cache, progress);
  }
  check_widths(caches, valid_caches, spec);
  if (norm) {
    d.norm = std::move(*norm);
  } else {
    std::vector<const CachedGraph*> ptrs;
    for (const CachedGraph& c : caches) ptrs.push_back(&c);
    if (spec.norm_on_valid) {
      for (const CachedGraph& c : valid_caches) ptrs.push_back(&c);
      // In one order whatever the fold: the folds' statistics then agree to the last bit.
      std::sort(ptrs.begin(), ptrs.end(), [](const CachedGraph* a, const CachedGraph* b) { return a->source < b->source; });
    }
    d.norm = fit_normalizer(d.kind, ptrs, spec.tile_features);
  }
  if (!spec.source_labels.empty()) {
    d.sources = spec.source_labels;
    d.source_weight = spec.source_weights;
    d.train_source = spec.train_source;
    d.valid_source = spec.valid_source;
  } else {
    d.train_source.assign(caches.size(), 0);
    d.valid_source.assign(program ? 1 : valid_caches.size(), 0);
  }
  if (program) {
    const HoldoutSplit h = program_split(caches.front(), spec.split_groups);
    tell(program_summary(caches.front(), h));
    d.train = make_entries(std::move(caches), d.norm, device,
                           [&](const CachedGraph&) { return std::make_pair(h.train, h.train); });
    // The same graph: its tensors shared, ranking the groups that validate.
    GraphEntry held = d.train.front();
    held.eval_groups = validating_groups(h);
    d.valid.push_back(std::move(held));
    d.valid_split = h.valid.empty() ? "holdout" : "valid";
  } else {
    d.train = make_entries(std::move(caches), d.norm, device);
    d.valid = make_entries(std::move(valid_caches), d.norm, device);
  }
  for (const GraphEntry& e : d.train)
    if (!e.cache.has_runtime()) throw Error(e.cache.source, "config_runtime", "has no measured runtimes to train on");
  return d;
}

}  // namespace fastslow::train
