// Configs nobody measured: the legal config space of a graph, the
// operators that walk it, and the search that uses a model as its oracle,
// checked on generated graphs whose true cost the generator knows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/synth/dataset.h"
#include "fastslow/synth/price.h"
#include "fastslow/tune/config_space.h"
#include "fastslow/tune/propose_search.h"
#include "test_support.h"

namespace fastslow {
namespace {

// A generated layout graph, its configs and the generator's true cost.
struct Generated {
  test::TempDir dir;
  LayoutGraph g;
  LayoutContext ctx;
  synth::Pricer pricer;
  int64_t row = 0;
  std::vector<float> rows;  // the file's configs

  Generated(const std::string& collection, synth::ModelTemplate model, uint64_t seed, int nodes, int64_t configs)
      : pricer(make(collection, model, seed, nodes, configs)) {
    g = load_layout_graph(NpzReader::open(dir.file("graph.npz")));
    ctx = layout_context(g.num_nodes, g.node_feat_width, g.node_feat, g.node_opcode, g.edge_index, g.node_config_ids);
    row = g.num_configurable() * g.config_feat_width;
    rows = g.node_config_feat;
  }
  synth::Pricer make(const std::string& collection, synth::ModelTemplate model, uint64_t seed, int nodes, int64_t configs) {
    synth::SynthItem item;
    item.collection = collection;
    item.split = "valid";
    item.seed = seed;
    item.model = model;
    item.target_nodes = nodes;
    item.configs = configs;
    item.path = "graph.npz";
    synth::synth_write(dir.path(), item);
    return synth::Pricer::for_file(dir.file("graph.npz"));
  }
  LayoutConfigSpace space(SpaceKind kind) const {
    return LayoutConfigSpace(g.num_configurable(), g.config_feat_width, rows, {}, ctx, kind);
  }
  double best_known() const {
    double best = std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < g.num_configs; ++c) best = std::min(best, pricer.runtime(rows.data() + c * row));
    return best;
  }
};

const Generated& resnet() {
  static const Generated* g = new Generated("layout:xla:random", synth::ModelTemplate::ResNet, 11, 300, 200);
  return *g;
}

bool in_menu(const LayoutGroup& grp, const float* config, int64_t width) {
  const float* v = config + grp.node * width + grp.offset;
  for (const auto& m : grp.menu)
    if (std::equal(m.begin(), m.end(), v)) return true;
  return false;
}

TEST(ConfigSpace, EverythingTheOperatorsMakeIsLegalAndTheCostModelPricesIt) {
  const Generated& x = resnet();
  for (SpaceKind kind : {SpaceKind::Menu, SpaceKind::Orders}) {
    const LayoutConfigSpace s = x.space(kind);
    ASSERT_EQ(s.row_elems(), x.row);
    for (int64_t c = 0; c < x.g.num_configs; ++c) ASSERT_EQ(s.why_illegal(x.rows.data() + c * x.row), "") << c;
    Rng rng(3);
    std::vector<float> child(static_cast<size_t>(x.row));
    int outside_menu = 0, changed = 0;
    for (int i = 0; i < 600; ++i) {
      const float* a = x.rows.data() + rng.uniform_int(0, x.g.num_configs - 1) * x.row;
      const float* b = x.rows.data() + rng.uniform_int(0, x.g.num_configs - 1) * x.row;
      if (i % 3 == 0) s.random_config(rng, child.data());
      else if (i % 3 == 1) s.mutate(a, rng, child.data()), changed += !std::equal(child.begin(), child.end(), a);
      else s.crossover(a, b, rng, child.data());
      ASSERT_EQ(s.why_illegal(child.data()), "") << space_kind_name(kind) << " " << i;
      // The generator refuses any layout that is not one of the tensor's.
      const double t = x.pricer.runtime(child.data());
      ASSERT_TRUE(std::isfinite(t) && t > 0);
      for (const LayoutGroup& grp : s.groups()) outside_menu += !in_menu(grp, child.data(), s.width());
    }
    EXPECT_GE(changed, 195) << "a mutation changes the config (two changes may undo each other)";
    if (kind == SpaceKind::Menu) EXPECT_EQ(outside_menu, 0);
    else EXPECT_GT(outside_menu, 0) << "the orders space reaches orders the file never measured";
  }
}

TEST(ConfigSpace, MostCommonTakesEachOrdersModeInTheFile) {
  const Generated& x = resnet();
  const LayoutConfigSpace s = x.space(SpaceKind::Menu);
  const std::vector<float> common = s.most_common();
  for (const LayoutGroup& grp : s.groups()) {
    // Naive reference: count each order of the group over the file's configs.
    std::vector<std::pair<std::vector<float>, int>> counts;
    for (int64_t c = 0; c < x.g.num_configs; ++c) {
      const float* v = x.rows.data() + c * x.row + grp.node * s.width() + grp.offset;
      std::vector<float> key(v, v + grp.width);
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == key; });
      if (it == counts.end()) counts.push_back({key, 1});
      else ++it->second;
    }
    int most = 0;
    for (const auto& p : counts) most = std::max(most, p.second);
    const std::vector<float> got(common.begin() + grp.node * s.width() + grp.offset,
                                 common.begin() + grp.node * s.width() + grp.offset + grp.width);
    const auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == got; });
    ASSERT_NE(it, counts.end());
    EXPECT_EQ(it->second, most) << "node " << grp.node;
  }
}

TEST(ConfigSpace, SaysWhyAConfigIsIllegal) {
  const Generated& x = resnet();
  const LayoutConfigSpace orders = x.space(SpaceKind::Orders);
  const LayoutConfigSpace menu = x.space(SpaceKind::Menu);
  const LayoutGroup* grp = nullptr;
  for (const LayoutGroup& g : orders.groups())
    if (g.orders && !g.lengths.empty() && g.lengths.front() >= 2 && g.rank >= 2) {
      grp = &g;
      break;
    }
  ASSERT_NE(grp, nullptr);
  const std::string where = "node " + std::to_string(grp->node) + " (" +
                            (grp->tensor == 0 ? "output" : grp->tensor == 1 ? "input" : "kernel") + ")";
  std::vector<float> c(x.rows.begin(), x.rows.begin() + x.row);
  float* v = c.data() + grp->node * orders.width() + grp->offset;
  std::fill(v, v + grp->width, -1.0f);
  v[0] = static_cast<float>(grp->rank);  // beyond the rank
  v[1] = 0;
  EXPECT_NE(orders.why_illegal(c.data()).find(where + ": [" + std::to_string(grp->rank)), std::string::npos)
      << orders.why_illegal(c.data());
  EXPECT_NE(orders.why_illegal(c.data()).find("beyond the tensor's rank"), std::string::npos);
  v[0] = 1;
  v[1] = 1;  // a dim twice
  EXPECT_NE(orders.why_illegal(c.data()).find("distinct"), std::string::npos) << orders.why_illegal(c.data());
  v[0] = 0;
  v[1] = 1;
  v[2] = 2 < grp->rank ? 2 : -1;
  if (v[2] >= 0 && std::find(grp->lengths.begin(), grp->lengths.end(), 3) == grp->lengths.end()) {
    EXPECT_NE(orders.why_illegal(c.data()).find("names 3 dims"), std::string::npos) << orders.why_illegal(c.data());
  }
  // The menu space knows only the file's orders.
  std::fill(v, v + grp->width, -1.0f);
  v[0] = 0.5f;
  EXPECT_NE(menu.why_illegal(c.data()).find("is not an order the file holds"), std::string::npos);
}

TEST(ConfigSpace, RefusesConfigsOfTheWrongSize) {
  const Generated& x = resnet();
  std::vector<float> short_rows(x.rows.begin(), x.rows.begin() + x.row - 1);
  EXPECT_THROW(LayoutConfigSpace(x.g.num_configurable(), 18, short_rows, {}, x.ctx, SpaceKind::Menu), Error);
  EXPECT_THROW(LayoutConfigSpace(x.g.num_configurable(), 18, x.rows, {1, 2}, x.ctx, SpaceKind::Menu), Error);
  EXPECT_THROW(parse_space_kind("tiles"), Error);
}

// Runs a search to its end with `score` as the oracle.
template <class Score>
ProposeSearch run_search(const LayoutConfigSpace& s, const std::vector<float>& known, ProposeSettings settings, Score score,
                         std::vector<ConfigHash>* asked = nullptr) {
  ProposeSearch search(s, settings, known);
  for (;;) {
    const std::vector<float>& rows = search.ask();
    if (rows.empty()) break;
    std::vector<double> v;
    for (size_t i = 0; i < rows.size(); i += static_cast<size_t>(s.row_elems())) {
      v.push_back(score(rows.data() + i));
      if (asked) asked->push_back(hash_config(rows.data() + i, s.row_elems()));
    }
    search.tell(v);
  }
  return search;
}

TEST(ProposeSearch, ScoresNothingTwiceNeverProposesAKnownConfigAndRepeatsPerSeed) {
  const Generated& x = resnet();
  const LayoutConfigSpace s = x.space(SpaceKind::Orders);
  ProposeSettings settings;
  settings.budget = 1500;
  settings.generation = 256;
  settings.population = 64;
  settings.keep = 20;
  settings.seed = 5;
  const auto cost = [&](const float* c) { return std::log(x.pricer.runtime(c)); };
  std::vector<ConfigHash> asked;
  const ProposeSearch a = run_search(s, x.rows, settings, cost, &asked);
  EXPECT_EQ(a.scored_new(), 1500);
  EXPECT_EQ(static_cast<int64_t>(asked.size()), 1500 + x.g.num_configs);
  std::set<std::pair<uint64_t, uint64_t>> unique_known, unique_all;
  for (int64_t c = 0; c < x.g.num_configs; ++c) {
    const ConfigHash h = hash_config(x.rows.data() + c * x.row, x.row);
    unique_known.insert({h.a, h.b});
  }
  for (const ConfigHash& h : asked) unique_all.insert({h.a, h.b});
  EXPECT_EQ(unique_all.size(), unique_known.size() + 1500) << "a config was scored twice";
  const std::vector<ScoredConfig> top = a.best_new(20);
  ASSERT_EQ(top.size(), 20u);
  for (size_t i = 0; i < top.size(); ++i) {
    EXPECT_EQ(top[i].known, -1);
    EXPECT_EQ(s.why_illegal(top[i].config.data()), "");
    const ConfigHash h = hash_config(top[i].config.data(), x.row);
    EXPECT_EQ(unique_known.count({h.a, h.b}), 0u) << "proposed a config the file holds";
    if (i > 0) {
      EXPECT_LE(top[i - 1].score, top[i].score);
    }
  }
  const ProposeSearch b = run_search(s, x.rows, settings, cost);
  EXPECT_EQ(b.best_new(20).front().config, top.front().config) << "the same seed searches the same way";
  // tell() must get one score per candidate.
  ProposeSearch c(s, settings, x.rows);
  c.ask();
  EXPECT_THROW(c.tell({1.0}), Error);
}

// A cost that is a sum of one term per order (a separable model, like the
// wide table): the best config is each group's cheapest order, found by a
// naive pass over the menus; the search must find it or come close.
TEST(ProposeSearch, FindsTheOptimumOfASeparableCostThatANaivePassFinds) {
  const Generated& x = resnet();
  const LayoutConfigSpace s = x.space(SpaceKind::Menu);
  Rng rng(9);
  std::vector<std::vector<double>> term(s.groups().size());
  double optimum = 0;
  for (size_t k = 0; k < s.groups().size(); ++k) {
    for (size_t m = 0; m < s.groups()[k].menu.size(); ++m) term[k].push_back(rng.uniform());
    optimum += *std::min_element(term[k].begin(), term[k].end());
  }
  const auto cost = [&](const float* c) {
    double sum = 0;
    for (size_t k = 0; k < s.groups().size(); ++k) {
      const LayoutGroup& g = s.groups()[k];
      const float* v = c + g.node * s.width() + g.offset;
      for (size_t m = 0; m < g.menu.size(); ++m)
        if (std::equal(g.menu[m].begin(), g.menu[m].end(), v)) sum += term[k][m];
    }
    return sum;
  };
  double known_best = std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < x.g.num_configs; ++c) known_best = std::min(known_best, cost(x.rows.data() + c * x.row));
  ProposeSettings settings;
  settings.budget = 20000;
  settings.seed = 1;
  const ProposeSearch search = run_search(s, x.rows, settings, cost);
  const double found = search.best_new(1).front().score;
  std::printf("[ figures  ] separable cost: file best %.4f, search %.4f, optimum %.4f (%zu groups)\n", known_best, found,
              optimum, s.groups().size());
  EXPECT_GE(found, optimum - 1e-9);
  EXPECT_LE(found - optimum, 0.02 * (known_best - optimum)) << "the search closes 98 % of the gap to the optimum";
}

// With the generator's true cost as its oracle, the search finds configs
// faster than every config the file measured.
TEST(ProposeSearch, WithTheTrueCostBeatsTheFilesBestMeasured) {
  const Generated& x = resnet();
  for (SpaceKind kind : {SpaceKind::Menu, SpaceKind::Orders}) {
    const LayoutConfigSpace s = x.space(kind);
    ProposeSettings settings;
    settings.budget = 3000;
    const ProposeSearch search =
        run_search(s, x.rows, settings, [&](const float* c) { return std::log(x.pricer.runtime(c)); });
    const double best = x.pricer.runtime(search.best_new(1).front().config.data());
    std::printf("[ figures  ] %s space: file best %.0f ns, proposal %.0f ns\n", space_kind_name(kind), x.best_known(), best);
    EXPECT_LE(best, x.best_known()) << space_kind_name(kind);
  }
}

// Anchors (configs measured fast): half the proposals are children of
// them, one or two orders away.
TEST(ProposeSearch, HalfTheProposalsStayNearTheAnchors) {
  const Generated& x = resnet();
  const LayoutConfigSpace s = x.space(SpaceKind::Orders);
  std::vector<int64_t> anchors = {3, 7};
  ProposeSettings settings;
  settings.budget = 2000;
  settings.keep = 10;
  ProposeSearch search(s, settings, x.rows, anchors);
  for (;;) {
    const std::vector<float>& rows = search.ask();
    if (rows.empty()) break;
    std::vector<double> v;
    for (size_t i = 0; i < rows.size(); i += static_cast<size_t>(x.row)) v.push_back(std::log(x.pricer.runtime(rows.data() + i)));
    search.tell(v);
  }
  const auto groups_apart = [&](const float* a, const float* b) {
    int d = 0;
    for (const LayoutGroup& g : s.groups())
      d += !std::equal(a + g.node * s.width() + g.offset, a + g.node * s.width() + g.offset + g.width,
                       b + g.node * s.width() + g.offset);
    return d;
  };
  int near = 0;
  const std::vector<ScoredConfig> top = search.best_new(10);
  ASSERT_EQ(top.size(), 10u);
  for (const ScoredConfig& c : top) {
    int d = 1 << 30;
    for (int64_t a : anchors) d = std::min(d, groups_apart(c.config.data(), x.rows.data() + a * x.row));
    near += d <= 2;
  }
  EXPECT_GE(near, 5);
  EXPECT_THROW(ProposeSearch(s, settings, x.rows, {x.g.num_configs}), Error);
}

// How far a config lies from the measured ones, in configurable nodes: a
// measured config is 0 away, one mutation moves one node (a copy from a
// producer or consumer may move two), and the nearest config counts, not the
// first.
TEST(ConfigSpace, ChoicesFromNearestCountsNodesAwayFromTheNearestMeasuredConfig) {
  const Generated& x = resnet();
  const LayoutConfigSpace s = x.space(SpaceKind::Orders);
  EXPECT_EQ(s.choice_elems(), x.g.config_feat_width);
  const std::vector<float> known(x.rows.begin(), x.rows.begin() + 20 * x.row);
  for (int64_t c = 0; c < 20; ++c) EXPECT_EQ(choices_from_nearest(s, known.data() + c * x.row, known), 0);
  // Node by node, written out.
  const auto nodes_apart = [&](const float* a, const float* b) {
    int64_t d = 0;
    for (int64_t n = 0; n < x.g.num_configurable(); ++n)
      d += !std::equal(a + n * s.width(), a + (n + 1) * s.width(), b + n * s.width());
    return d;
  };
  Rng rng(5);
  std::vector<float> child(static_cast<size_t>(x.row)), far(static_cast<size_t>(x.row));
  int farther_than_first = 0;
  for (int i = 0; i < 200; ++i) {
    const float* parent = known.data() + rng.uniform_int(0, 19) * x.row;
    s.mutate(parent, rng, child.data());
    const int64_t d = choices_from_nearest(s, child.data(), known);
    EXPECT_LE(d, nodes_apart(child.data(), parent)) << i;
    EXPECT_LE(d, 2) << i;
    s.random_config(rng, far.data());
    int64_t fewest = -1;
    for (int64_t c = 0; c < 20; ++c) {
      const int64_t e = nodes_apart(far.data(), known.data() + c * x.row);
      fewest = fewest < 0 ? e : std::min(fewest, e);
    }
    EXPECT_EQ(choices_from_nearest(s, far.data(), known), fewest) << i;
    // Among some of them only: the nearest of those.
    const int64_t a = rng.uniform_int(0, 19), b = rng.uniform_int(0, 19);
    EXPECT_EQ(choices_from_nearest(s, far.data(), known, {a, b}),
              std::min(nodes_apart(far.data(), known.data() + a * x.row), nodes_apart(far.data(), known.data() + b * x.row)))
        << i;
    farther_than_first += fewest < nodes_apart(far.data(), known.data());
  }
  EXPECT_GT(farther_than_first, 0) << "the nearest is not always the first";
  EXPECT_EQ(choices_from_nearest(s, child.data(), {}), -1);
  EXPECT_THROW(choices_from_nearest(s, child.data(), known, {20}), Error);
  EXPECT_THROW(choices_from_nearest(s, child.data(), std::vector<float>(known.begin(), known.end() - 1)), Error);
}

}  // namespace
}  // namespace fastslow
