// Configs nobody measured, judged by the truth: on generated graphs the
// generator's cost model (synth --price) gives the true runtime of any
// config, so a proposal can be checked. Per graph, per space (menu, and
// orders for layout graphs or sizes and shape for tile kernels):
// the true runtime of the best of the top-10 proposals of a search with a
// model fitted on the file's measurements as its oracle (ridge, fastslow,
// and for layout graphs physics: ridge with terms every node shares),
// against the best config the file measured (noise free) and against the
// same search, same budget, with the true cost as its oracle; and the time
// per 1,000 candidates scored.
// Real files have no generator: there half the file's unique configs (a
// seeded draw) play the measured ones, the search runs on a graph of those
// alone, and a proposal that is one of the other half has a true runtime
// (--real FILE, repeatable).
// A graph of a collection given a prior (--prior COLLECTION=RUN: a run
// trained on that collection's graphs of another seed) also gets the
// "prior" row, that run scoring it as it is, and "fine-tuned", the run
// fine-tuned on the graph's configs (tune --init RUN).
// Where a space is small enough to price whole, the bench also gives its
// ceiling: the fastest config the file lacks. When that is slower than the
// file's best, no proposal can be as fast (the file measured the optimum).
// Usage: fastslow_bench_propose OUT [--budget B] [--count K] [--prior COLLECTION=RUN]... [--real FILE]... FILE...
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "fastslow/data/collection.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph_write.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/rng.h"
#include "fastslow/tune/config_space.h"
#include "fastslow/synth/price.h"
#include "stale_run.h"
#include "tune/propose.h"
#include "tune/scorers.h"
#include "train/options.h"

using namespace fastslow;

namespace {

volatile std::sig_atomic_t g_stop = 0;

// The generator's cost as an oracle: log runtime, as the models score.
class TrueCost : public tune::Fitted {
 public:
  explicit TrueCost(const synth::Pricer& p) : p_(p) {}
  std::vector<double> score_rows(const std::vector<float>& rows) override {
    std::vector<double> out;
    const auto w = static_cast<size_t>(p_.row_elems());
    for (size_t i = 0; i < rows.size(); i += w) out.push_back(std::log(p_.runtime(rows.data() + i)));
    return out;
  }

 private:
  const synth::Pricer& p_;
};

// A fit's run (tune's run scorer keeps it and reuses it) is done again when
// an older build trained it, or, fine-tuned, when its prior was trained
// after it: no row prints an older model's figure.
void drop_stale_fit(const std::string& dir, const std::string& prior = "") {
  namespace fs = std::filesystem;
  const fs::path cfg = fs::path(dir) / "run" / "config.json";
  std::error_code ec;
  if (!fs::exists(cfg, ec)) return;
  bool stale = bench::older_than_this_build(cfg);
  if (!prior.empty()) {
    const auto trained = fs::last_write_time(fs::path(prior) / "best.pt", ec);
    if (!ec && fs::last_write_time(cfg, ec) < trained) stale = true;
  }
  if (stale) fs::remove_all(fs::path(dir) / "run", ec);
}

// The held-out half of a real file against proposals searched from the
// other half: how many proposals it holds and how fast those run.
void real_holdout(const std::string& out, const std::string& file, int64_t budget, int64_t count) {
  namespace fs = std::filesystem;
  const std::string stem = fs::path(file).stem().string();
  const std::string dir = out + "/real-" + stem;
  fs::create_directories(dir);
  const CachedGraph full = CachedGraph::open(file, {out + "/.cache", 1});
  // The measured configs (runtime 0: never measured) split in halves.
  std::vector<int64_t> order;
  const std::vector<char> unmeasured = full.groups.unmeasured();
  for (int64_t k = 0; k < full.groups.num_groups(); ++k)
    if (!unmeasured[static_cast<size_t>(k)]) order.push_back(k);
  Rng rng(7);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(i) - 1))]);
  const std::vector<int64_t> half(order.begin(), order.begin() + static_cast<int64_t>(order.size() / 2));
  const std::vector<int64_t> rest(order.begin() + static_cast<int64_t>(order.size() / 2), order.end());
  std::vector<int64_t> rt;
  double half_best = INFINITY, full_best = INFINITY;
  for (int64_t k : half) rt.push_back(static_cast<int64_t>(std::llround(full.groups.best_runtime[static_cast<size_t>(k)])));
  for (int64_t k : half) half_best = std::min(half_best, full.groups.best_runtime[static_cast<size_t>(k)]);
  for (int64_t k : order) full_best = std::min(full_best, full.groups.best_runtime[static_cast<size_t>(k)]);
  LoadOptions lo;
  lo.config_features = false;
  const std::string measured = dir + "/measured-half.npz";
  write_layout_graph(measured, load_layout_graph(NpzReader::open(file), lo), full.config_rows(half), rt);
  const CachedGraph g = CachedGraph::open(measured, {out + "/.cache", 1});
  const int64_t row = g.config_row_elems;
  std::map<std::pair<uint64_t, uint64_t>, double> held_out;
  const std::vector<float> rest_rows = full.config_rows(rest);
  for (size_t i = 0; i < rest.size(); ++i) {
    const ConfigHash h = hash_config(rest_rows.data() + static_cast<int64_t>(i) * row, row);
    held_out[{h.a, h.b}] = full.groups.best_runtime[static_cast<size_t>(rest[i])];
  }
  tune::Measured m;
  for (int64_t k = 0; k < g.groups.num_groups(); ++k) {
    m.candidates.push_back(k);
    m.runtimes.push_back(g.groups.best_runtime[static_cast<size_t>(k)]);
  }
  train::TrainOptions o;
  o.cache = out + "/.cache";
  for (const std::string p : {"ridge", "physics", "fastslow"}) {
    drop_stale_fit(dir + "/" + p);
    const std::unique_ptr<tune::Fitted> model =
        p == "ridge"     ? tune::make_ridge_scorer(g, 0)->fit(m, dir + "/" + p)
        : p == "physics" ? tune::make_physics_scorer(g, 0)->fit(m, "")
                         : tune::make_run_scorer(g, measured, o, 0)->fit(m, dir + "/" + p);
    tune::ProposeRequest req;
    req.count = count;
    req.search.budget = budget;
    const tune::ProposeOutcome po = tune::propose(g, *model, nullptr, m, req, {}, [] { return g_stop != 0; });
    int hits = 0;
    double best = INFINITY, sum = 0;
    for (const tune::Proposal& q : po.proposals) {
      const ConfigHash h = hash_config(q.config.data(), row);
      const auto it = held_out.find({h.a, h.b});
      if (it == held_out.end()) continue;
      ++hits;
      best = std::min(best, it->second);
      sum += it->second;
    }
    std::printf("%-34s %-8s %zu proposals, %d held out (their true runtimes known): best %.4fx, mean %.4fx the measured "
                "half's best (the whole file's best: %.4fx)\n",
                stem.c_str(), p.c_str(), po.proposals.size(), hits, hits ? best / half_best : NAN,
                hits ? sum / hits / half_best : NAN, full_best / half_best);
    std::fflush(stdout);
  }
}

// Where a file of a dataset tree lies: DATASET/npz/tile/xla/valid/k.npz is
// collection tile:xla, its fits' stem DATASET/tile-xla-k (names repeat
// across collections and datasets, that is seeds);
// DATASET/npz/layout/nlp/random/valid/g.npz is layout:nlp:random, DATASET/nlp-random-g.
struct Place {
  std::string collection, stem;
};
Place place_of(const std::string& file) {
  const std::filesystem::path path(file);
  std::vector<std::string> parts;
  for (const auto& p : path.parent_path()) parts.push_back(p.string());
  for (size_t i = parts.size(); i-- > 1;) {
    if (parts[i] != "npz" || parts.size() < i + 4) continue;
    Place pl;
    for (size_t j = i + 1; j + 1 < parts.size(); ++j) pl.collection += (pl.collection.empty() ? "" : ":") + parts[j];
    const size_t split = parts.size() - 1;
    pl.stem = parts[i - 1] + "/" + parts[split - 2] + "-" + parts[split - 1] + "-" + path.stem().string();
    return pl;
  }
  throw Error(file, "", "not a file of a dataset tree (DATASET/npz/KIND/.../SPLIT/FILE.npz)");
}

struct Row {
  double ratio_file = 0, ratio_oracle = 0, ms_per_1000 = 0;
};

// Spaces of at most this many combinations are priced whole (about 2 us a
// config for a kernel).
constexpr int64_t kListLimit = int64_t{1} << 22;

// Per space: graphs whose every config was priced, and on how many of them a
// config the file lacks is at least as fast as the file's best (so a proposal
// can be), and the true-oracle search found one.
struct Ceiling {
  int listed = 0, reachable = 0, truth_found = 0, too_big = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT [--budget B] [--count K] [--prior COLLECTION=RUN]... [--real FILE]... FILE...\n",
                 argv[0]);
    return 1;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  const std::string out = argv[1];
  int64_t budget = 4096, count = 10;
  std::map<std::string, std::string> priors;  // collection id -> a run trained on its graphs of another seed
  std::vector<std::string> files, real;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--real" && i + 1 < argc) real.push_back(argv[++i]);
    else if (a == "--budget" && i + 1 < argc) budget = std::stoll(argv[++i]);
    else if (a == "--count" && i + 1 < argc) count = std::stoll(argv[++i]);
    else if (a == "--prior" && i + 1 < argc) {
      const std::string v = argv[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--prior %s: expected COLLECTION=RUN (e.g. tile:xla=runs/tile)\n", v.c_str());
        return 1;
      }
      try {
        priors[parse_collection_id(v.substr(0, eq)).str()] = v.substr(eq + 1);
      } catch (const Error& e) {
        std::fprintf(stderr, "--prior %s: %s\n", v.c_str(), e.what());
        return 1;
      }
    }
    else files.push_back(a);
  }
  std::vector<std::string> predictors = {"ridge", "fastslow"};
  std::map<std::string, std::vector<Row>> rows;  // "<space>/<oracle>"
  std::map<std::string, std::pair<double, int>> oracle_ms;  // per space: sum, graphs
  std::map<std::string, int> exhausted;                      // per space: graphs with no config the file lacks
  std::map<std::string, Ceiling> ceilings;
  try {
    for (const std::string& f : real) real_holdout(out, f, budget, count);
    if (files.empty()) return 0;
    std::printf("%-52s %-13s %12s %10s | %-10s %9s %9s\n", "graph", "space", "file best ns", "oracle", "model",
                "vs file", "vs oracle");
    for (const std::string& f : files) {
      const Place place = place_of(f);
      const std::string& stem = place.stem;  // fits under OUT/fits/
      const synth::Pricer pricer = synth::Pricer::for_file(f);
      const CachedGraph g = CachedGraph::open(f, {out + "/.cache", 1});
      // The engineer's measurements: every config the file holds.
      tune::Measured m;
      for (int64_t k = 0; k < g.groups.num_groups(); ++k) {
        m.candidates.push_back(k);
        m.runtimes.push_back(g.groups.best_runtime[static_cast<size_t>(k)]);
      }
      std::vector<int64_t> all(m.candidates);
      const std::vector<float> known = g.config_rows(all);
      double file_best = INFINITY;
      for (size_t i = 0; i < known.size(); i += static_cast<size_t>(pricer.row_elems()))
        file_best = std::min(file_best, pricer.runtime(known.data() + i));
      std::map<std::string, std::unique_ptr<tune::Fitted>> models;
      train::TrainOptions o;
      o.cache = out + "/.cache";
      for (const std::string& p : predictors) {
        const std::string dir = out + "/fits/" + stem + "/" + p;
        drop_stale_fit(dir);
        models[p] = p == "ridge" ? tune::make_ridge_scorer(g, 0)->fit(m, dir)
                                 : tune::make_run_scorer(g, f, o, 0)->fit(m, dir);
      }
      const bool tile = g.kind == GraphKind::Tile;
      if (!tile) models["physics"] = tune::make_physics_scorer(g, 0)->fit(m, "");
      if (const auto pr = priors.find(place.collection); pr != priors.end()) {
        models["prior"] = tune::load_fitted(pr->second, g);
        // The prior fine-tuned on this graph's measurements (tune --init).
        train::TrainOptions fo = o;
        fo.init = pr->second;
        const std::string tuned = out + "/fits/" + stem + "/fine-tuned";
        drop_stale_fit(tuned, pr->second);
        models["fine-tuned"] = tune::make_run_scorer(g, f, fo, 0)->fit(m, tuned);
      }
      TrueCost truth(pricer);
      std::unordered_set<ConfigHash, ConfigHashOf> in_file;  // what a space's ceiling leaves out
      for (size_t i = 0; i < known.size(); i += static_cast<size_t>(g.config_row_elems))
        in_file.insert(hash_config(known.data() + i, g.config_row_elems));
      const std::vector<SpaceKind> spaces =
          tile ? std::vector<SpaceKind>{SpaceKind::Menu, SpaceKind::Sizes, SpaceKind::Shape}
               : std::vector<SpaceKind>{SpaceKind::Menu, SpaceKind::Orders};
      for (SpaceKind space : spaces) {
        tune::ProposeRequest req;
        req.count = count;
        req.space = space;
        req.search.budget = budget;
        auto best_of = [&](const tune::ProposeOutcome& po) {
          double b = INFINITY;
          for (const tune::Proposal& p : po.proposals) b = std::min(b, pricer.runtime(p.config.data()));
          return b;
        };
        const tune::ProposeOutcome oracle = tune::propose(g, truth, nullptr, m, req, {}, [] { return g_stop != 0; });
        const double oracle_best = best_of(oracle);
        const std::string sp = std::string(tile ? "tile " : "layout ") + space_kind_name(space);
        // The ceiling: the fastest config the file lacks, where the space is
        // small enough to price whole.
        {
          const std::unique_ptr<ConfigSpace> listed = config_space(g, known, space);
          double lacking = INFINITY;
          const int64_t legal = listed->for_each_config(kListLimit, [&](const float* c) {
            if (!in_file.count(hash_config(c, g.config_row_elems))) lacking = std::min(lacking, pricer.runtime(c));
          });
          if (legal >= 0 && !oracle.proposals.empty()) {
            Ceiling& cl = ceilings[sp];
            ++cl.listed;
            cl.reachable += lacking <= file_best;
            cl.truth_found += oracle_best <= file_best;
            std::printf("%-52s %-13s %12.0f  the fastest of the %lld configs the file lacks: %.4fx the file's best\n",
                        stem.c_str(), sp.c_str(), file_best, static_cast<long long>(legal - static_cast<int64_t>(in_file.size())),
                        lacking / file_best);
          } else if (legal < 0) {
            ++ceilings[sp].too_big;
          }
        }
        if (oracle.proposals.empty()) {  // every config of the space is in the file: nothing to propose
          std::printf("%-52s %-13s %12.0f  the file holds every config of this space\n", stem.c_str(), sp.c_str(), file_best);
          ++exhausted[sp];
          continue;
        }
        oracle_ms[sp].first += 1e6 * oracle.score_seconds / static_cast<double>(std::max<int64_t>(1, oracle.rows_scored));
        ++oracle_ms[sp].second;
        for (const auto& [p, model] : models) {
          const tune::ProposeOutcome po = tune::propose(g, *model, nullptr, m, req, {}, [] { return g_stop != 0; });
          if (g_stop) throw Error("interrupted");
          const double best = best_of(po);
          Row r{best / file_best, best / oracle_best,
                1e6 * po.score_seconds / static_cast<double>(std::max<int64_t>(1, po.rows_scored))};
          rows[sp + "/" + p].push_back(r);
          std::printf("%-52s %-13s %12.0f %9.4fx | %-10s %8.4fx %8.4fx\n", stem.c_str(), sp.c_str(), file_best,
                      oracle_best / file_best, p.c_str(), r.ratio_file, r.ratio_oracle);
        }
        std::fflush(stdout);
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  std::printf("\nsummary over %zu graphs, top-%lld proposals, %lld candidates per search (targets: a proposal at least as "
              "fast as the file's best on >= 80 %% of graphs; within 5 %% of the true-oracle search on average)\n",
              files.size(), static_cast<long long>(count), static_cast<long long>(budget));
  std::printf("%-24s %18s %22s %22s %16s\n", "space/model", "graphs >= file best", "mean vs file best",
              "mean vs true oracle", "ms / 1000 scored");
  for (const auto& [key, rs] : rows) {
    int wins = 0;
    double vf = 0, vo = 0, ms = 0;
    for (const Row& r : rs) wins += r.ratio_file <= 1.0 + 1e-12, vf += r.ratio_file, vo += r.ratio_oracle, ms += r.ms_per_1000;
    const double k = static_cast<double>(rs.size());
    std::printf("%-24s %12d/%-5zu %20.2f %% %20.2f %% %16.2f\n", key.c_str(), wins, rs.size(), 100 * (vf / k - 1),
                100 * (vo / k - 1), ms / k);
  }
  for (const auto& [sp, n] : exhausted)
    std::printf("%-24s %d graph(s) left out: the file holds every config of the space\n", sp.c_str(), n);
  for (const auto& [sp, c] : ceilings)
    if (c.listed > 0)
      std::printf("%-24s priced whole on %d graph(s) (%d too big): a config the file lacks is at least as fast as its best "
                "on %d, the true-oracle search found one on %d\n",
                sp.c_str(), c.listed, c.too_big, c.reachable, c.truth_found);
  for (const auto& [sp, ms] : oracle_ms)
    std::printf("%-24s %62s %16.2f\n", (sp + "/truth").c_str(), "", ms.first / std::max(1, ms.second));
  return 0;
}
