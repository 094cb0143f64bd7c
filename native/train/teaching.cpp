#include "train/teaching.h"

#include <cstdio>
#include <filesystem>
#include <unordered_set>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "fastslow/numeric.h"
#include "fastslow/rng.h"
#include "fastslow/tune/graph_space.h"
#include "train/ensemble.h"
#include "train/ensemble_spec.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"
#include "train/run_files.h"
#include "train/score_rows.h"

namespace fastslow::train {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The teacher as its folder describes it, no model loaded: its member runs,
// how their scores combine, and the model files whose change makes stored
// materials stale. Reused materials need no more than this.
struct Teacher {
  std::vector<std::string> runs;
  bool ensemble = false;
  Combine combine = Combine::Mean;
  std::vector<double> weights;
  json files = json::array();
};

json file_stamp(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  const auto time = fs::last_write_time(p, ec);
  return {{"file", p.string()},
          {"bytes", ec ? -1 : static_cast<int64_t>(size)},
          {"time", ec ? 0 : static_cast<int64_t>(time.time_since_epoch().count())}};
}

Teacher read_teacher(const std::string& path) {
  if (!fs::is_directory(path)) throw Error(path, "", "--teacher: no such run or ensemble folder");
  Teacher t;
  t.ensemble = EnsembleSpec::is_ensemble(path);
  if (t.ensemble) {
    const EnsembleSpec spec = EnsembleSpec::read(path);
    t.combine = spec.combine;
    for (const EnsembleMember& m : spec.members) {
      t.runs.push_back(m.run);
      t.weights.push_back(m.weight);
      t.files.push_back(file_stamp(fs::path(m.run) / "best.pt"));
    }
    t.files.push_back(file_stamp(fs::path(path) / "ensemble.json"));
  } else {
    if (!fs::exists(fs::path(path) / "best.pt")) throw Error(path, "best.pt", "--teacher: the run holds no trained model yet");
    t.runs = {path};
    t.weights = {1.0};
    t.files.push_back(file_stamp(fs::path(path) / "best.pt"));
  }
  return t;
}

void check_teacher(const Teacher& t, const std::string& path, const TrainOptions& o, const PreparedData& data) {
  const std::string kind = load_run_options(t.runs.front()).kind;
  if (kind != graph_kind_name(data.kind))
    throw Error(path, "", "--teacher ranks " + kind + " configs; this run's graphs are " + graph_kind_name(data.kind) +
                              " graphs");
  for (const std::string& run : t.runs) {
    // Before the cached scores are reused: a teacher this build refuses
    // (another layout context) must not teach from what an older build scored.
    const TrainOptions options = load_run_options(run);
    check_layout_context(run, options, read_stats(RunDir(run)));
    const std::string& graph = options.graph;
    if (graph.empty()) continue;
    // A per-program teacher knows one graph (its wide table is that graph's).
    std::error_code ec;
    if (o.graph.empty() || !fs::equivalent(graph, o.graph, ec))
      throw Error(path, "", "--teacher is a per-program run of " + graph + "; it can teach a run on that graph only (--graph " +
                                graph + ")");
  }
}

// The teacher's models, loaded to score (an ensemble's checked against each other).
std::vector<LoadedRun> load_members(const Teacher& t, const std::string& path, const std::string& device) {
  if (t.ensemble) return load_ensemble(path, device).members;
  std::vector<LoadedRun> members;
  members.push_back(load_run(path, device));
  return members;
}

// One graph's rows scored by every member, combined.
std::vector<double> teacher_scores(const Teacher& t, std::vector<LoadedRun>& members, const CachedGraph& g,
                                   const std::vector<float>& rows) {
  std::vector<std::vector<double>> per_member;
  for (LoadedRun& m : members) {
    const GraphEntry e = std::move(make_entries({g}, m.norm, m.device).front());
    per_member.push_back(score_config_rows(*m.model, e, m.norm, rows, *m.options.eval_chunk, m.device));
  }
  if (per_member.size() == 1) return per_member.front();
  return combine(t.combine, t.weights, per_member);
}

std::string teaching_root(const TrainOptions& o) {
  return o.teaching.empty() ? (fs::path(o.teacher) / "teaching").string() : o.teaching;
}

GraphTeaching read_graph(const std::string& file, int64_t groups, int64_t elems) {
  const NpzReader r = NpzReader::open(file);
  GraphTeaching t;
  t.group_score = r.read("group_score").to_double(file);
  t.rows = r.read("rows").to_float(file);
  t.row_score = r.read("row_score").to_double(file);
  if (static_cast<int64_t>(t.group_score.size()) != groups)
    throw Error(file, "group_score", std::to_string(t.group_score.size()) + " scores for " + std::to_string(groups) +
                                         " configs; delete the folder to score again");
  if (t.rows.size() != t.row_score.size() * static_cast<size_t>(elems))
    throw Error(file, "rows", "not " + std::to_string(t.row_score.size()) + " rows of " + std::to_string(elems) +
                                  " values; delete the folder to score again");
  return t;
}

}  // namespace

std::vector<float> sample_teaching_configs(const CachedGraph& g, const std::vector<float>& known, int64_t count,
                                          uint64_t seed) {
  const std::unique_ptr<ConfigSpace> space = config_space(g, known, SpaceKind::Menu);
  const int64_t elems = g.config_row_elems;
  const auto held = static_cast<int64_t>(known.size()) / elems;
  std::unordered_set<ConfigHash, ConfigHashOf> seen;
  for (int64_t i = 0; i < held; ++i) seen.insert(hash_config(known.data() + i * elems, elems));
  Rng rng(seed);
  std::vector<float> out, a(static_cast<size_t>(elems)), b(a.size());
  int64_t made = 0;
  // A small space runs out of new configs: stop after many repeats in a row.
  for (int64_t misses = 0; made < count && misses < 200 + 20 * count;) {
    if (made % 2 == 0 || held == 0) {
      space->random_config(rng, a.data());
    } else {
      const int64_t parent = rng.uniform_int(0, held - 1);
      std::copy(known.begin() + parent * elems, known.begin() + (parent + 1) * elems, a.begin());
      for (int64_t k = rng.uniform_int(1, 3); k > 0; --k) {
        space->mutate(a.data(), rng, b.data());
        std::swap(a, b);
      }
    }
    if (!space->why_illegal(a.data()).empty() || !seen.insert(hash_config(a.data(), elems)).second) {
      ++misses;
      continue;
    }
    misses = 0;
    out.insert(out.end(), a.begin(), a.end());
    ++made;
  }
  return out;
}

std::vector<float> sample_teaching_configs(const CachedGraph& g, int64_t count, uint64_t seed) {
  return sample_teaching_configs(g, g.config_rows(g.all_groups()), count, seed);
}

TeachingMaterials teaching_materials(const TrainOptions& o, const PreparedData& data, bool write, const Say& say,
                                     const Progress& progress) {
  if (o.teacher.empty()) throw Error("teaching materials: no --teacher");
  const int64_t samples = o.teach_samples.value_or(256);
  const Teacher teacher = read_teacher(o.teacher);
  check_teacher(teacher, o.teacher, o, data);

  json key = {{"format", 1}, {"teacher", o.teacher}, {"models", teacher.files}, {"samples", samples},
              {"seed", o.seed}, {"space", space_kind_name(SpaceKind::Menu)}, {"graphs", json::array()}};
  for (const GraphEntry& e : data.train)
    key["graphs"].push_back({{"file", fs::path(e.cache.source).filename().string()},
                             {"groups", e.cache.groups.num_groups()},
                             {"row_elems", e.cache.config_row_elems}});
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key.dump())));
  TeachingMaterials m;
  m.dir = (fs::path(teaching_root(o)) / name).string();
  const std::string manifest = (fs::path(m.dir) / "teaching.json").string();
  auto graph_file = [&](size_t i) { return (fs::path(m.dir) / ("graph-" + std::to_string(i) + ".npz")).string(); };

  if (fs::exists(manifest) &&
      parse_json_text(read_whole_file(manifest), manifest, "malformed teaching materials") == key) {
    for (size_t i = 0; i < data.train.size(); ++i) {
      const CachedGraph& g = data.train[i].cache;
      m.graphs.push_back(read_graph(graph_file(i), g.groups.num_groups(), g.config_row_elems));
    }
    m.reused = true;
    if (say) say("teaching materials: " + m.dir + " (scored before, reused)");
    return m;
  }

  if (say) say("teaching materials: the teacher scores " + std::to_string(data.train.size()) + " graphs' configs and " +
               std::to_string(samples) + " new ones each into " + m.dir);
  std::vector<LoadedRun> members = load_members(teacher, o.teacher, o.device);
  for (size_t i = 0; i < data.train.size(); ++i) {
    const CachedGraph& g = data.train[i].cache;
    if (progress) progress(i, data.train.size(), g.source);
    GraphTeaching t;
    std::vector<float> rows = g.config_rows(g.all_groups());
    const int64_t held = g.groups.num_groups();
    try {
      t.rows = sample_teaching_configs(g, rows, samples, mix_seed(o.seed, fnv1a(fs::path(g.source).filename().string())));
    } catch (const Error& e) {
      // A graph whose space cannot be built still teaches through its own configs.
      if (say) say("teaching materials: no new configs for " + g.source + ": " + e.what());
    }
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
    const std::vector<double> s = teacher_scores(teacher, members, g, rows);
    t.group_score.assign(s.begin(), s.begin() + held);
    t.row_score.assign(s.begin() + held, s.end());
    m.graphs.push_back(std::move(t));
  }
  if (progress) progress(data.train.size(), data.train.size(), "");
  if (write) {
    try {
      fs::create_directories(m.dir);
      for (size_t i = 0; i < m.graphs.size(); ++i) {
        const GraphTeaching& t = m.graphs[i];
        NpzWriter w(graph_file(i), Compression::Deflate);
        w.add("group_score", t.group_score, {static_cast<int64_t>(t.group_score.size())});
        w.add("rows", t.rows, {t.samples(), data.train[i].cache.config_row_elems});
        w.add("row_score", t.row_score, {t.samples()});
        w.close();
      }
      // Last: a folder without it is incomplete and is scored again.
      write_file_atomically(manifest, key.dump(1) + "\n");
    } catch (const std::exception& e) {
      // The run has what it needs in memory; only the reuse is lost.
      if (say) say(std::string("teaching materials: not kept (") + e.what() + "); --teaching DIR keeps them elsewhere");
    }
  }
  return m;
}

int64_t copy_teacher_table(models::ProgramModelImpl& student, const TrainOptions& o) {
  if (o.teacher.empty() || EnsembleSpec::is_ensemble(o.teacher)) return 0;
  const LoadedRun teacher = load_run(o.teacher, "cpu");
  auto* theirs = dynamic_cast<const models::ProgramModelImpl*>(teacher.model.get());
  if (!theirs) return 0;
  torch::NoGradGuard no_grad;
  auto ours = student.named_parameters(true);
  auto our_buffers = student.named_buffers(true);
  int64_t copied = 0;
  auto copy = [&](const torch::OrderedDict<std::string, torch::Tensor>& from) {
    for (const auto& item : from) {
      // The deep part and its gate are what the student learns.
      if (item.key().rfind("deep.", 0) == 0 || item.key() == "gate") continue;
      torch::Tensor* to = ours.find(item.key());
      if (!to) to = our_buffers.find(item.key());
      if (!to || to->sizes() != item.value().sizes())
        throw Error(o.teacher, "best.pt", "--teacher: its wide table's '" + item.key() +
                                              "' does not fit this run's (another graph or config width)");
      to->copy_(item.value().to(to->device()));
      ++copied;
    }
  };
  copy(theirs->named_parameters(true));
  copy(theirs->named_buffers(true));
  return copied;
}

}  // namespace fastslow::train
