// Tile configs nobody measured: the space a kernel's file defines, the
// operators that walk it (legal under the generator's own tiling rules),
// and the search with the generator's true cost as its oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/synth/dataset.h"
#include "fastslow/synth/price.h"
#include "fastslow/tune/propose_search.h"
#include "fastslow/tune/tile_space.h"
#include "test_support.h"

namespace fastslow {
namespace {

// A generated kernel, its configs and the generator's true cost.
struct Kernel {
  test::TempDir dir;
  TileGraph g;
  synth::Pricer pricer;

  Kernel(uint64_t seed, int nodes, int64_t configs)
      : pricer(synth::Pricer::for_file(test::write_tile_kernel(dir, seed, nodes, configs))) {
    g = load_tile_graph(NpzReader::open(dir.file("kernel.npz")));
  }
  TileConfigSpace space(SpaceKind kind) const { return TileConfigSpace(g.config_feat_width, g.config_feat, {}, kind); }
  double best_known() const {
    double best = std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < g.num_configs; ++c) best = std::min(best, pricer.runtime(g.config_feat.data() + c * 24));
    return best;
  }
};

const std::vector<const Kernel*>& kernels() {
  // Made once per process and kept (reachable, as a static pointer) to its end.
  static const auto* k = new std::vector<const Kernel*>{new Kernel(5, 30, 20), new Kernel(17, 40, 20),
                                                        new Kernel(29, 25, 20), new Kernel(41, 30, 20)};
  return *k;
}

// The fastest config of a small space and its size, by pricing every combination of
// its free dims that is legal: the naive reference for the search.
struct Enumerated {
  double optimum = std::numeric_limits<double>::infinity();
  int64_t legal = 0;
};
Enumerated enumerate(const TileConfigSpace& s, const synth::Pricer& pricer) {
  const std::vector<TileDim>& dims = s.free_dims();
  std::vector<size_t> at(dims.size(), 0);
  std::vector<float> c = s.most_common();
  Enumerated e;
  for (;;) {
    for (size_t i = 0; i < dims.size(); ++i) c[static_cast<size_t>(dims[i].col)] = dims[i].values[at[i]];
    for (int b = 0; b < 24; b += 8) {  // sums and products over the dims up to the last non-zero one
      int rank = 0;
      for (int i = 0; i < 6; ++i)
        if (c[b + i] != 0) rank = i + 1;
      double sum = 0, product = rank ? 1 : 0;
      for (int i = 0; i < rank; ++i) sum += c[b + i], product *= c[b + i];
      c[b + 6] = static_cast<float>(sum), c[b + 7] = static_cast<float>(product);
    }
    if (s.why_illegal(c.data()).empty()) e.optimum = std::min(e.optimum, pricer.runtime(c.data())), ++e.legal;
    size_t k = 0;
    while (k < at.size() && ++at[k] == dims[k].values.size()) at[k++] = 0;
    if (k == at.size()) return e;
  }
}

TEST(TileSpace, EverythingTheOperatorsMakeIsLegalAndTheGeneratorPricesIt) {
  int sizes_unseen = 0;
  for (const Kernel* x : kernels()) {
    for (SpaceKind kind : {SpaceKind::Menu, SpaceKind::Sizes}) {
      const TileConfigSpace s = x->space(kind);
      ASSERT_EQ(s.row_elems(), 24);
      EXPECT_TRUE(s.derived()) << "generated rows carry their sums and products";
      ASSERT_FALSE(s.free_dims().empty());
      for (int64_t c = 0; c < x->g.num_configs; ++c) ASSERT_EQ(s.why_illegal(x->g.config_feat.data() + c * 24), "") << c;
      Rng rng(3);
      std::vector<float> child(24);
      std::set<std::vector<float>> made;
      int changed = 0, unseen_values = 0;
      for (int i = 0; i < 600; ++i) {
        const float* a = x->g.config_feat.data() + rng.uniform_int(0, x->g.num_configs - 1) * 24;
        const float* b = x->g.config_feat.data() + rng.uniform_int(0, x->g.num_configs - 1) * 24;
        if (i % 3 == 0) {
          s.random_config(rng, child.data());
        } else if (i % 3 == 1) {
          s.mutate(a, rng, child.data());
          changed += !std::equal(child.begin(), child.end(), a);
        } else {
          s.crossover(a, b, rng, child.data());
        }
        ASSERT_EQ(s.why_illegal(child.data()), "") << space_kind_name(kind) << " " << i;
        // The generator's tiling rules (legal sizes, output >= kernel,
        // sums and products) refuse anything else.
        double t = 0;
        ASSERT_NO_THROW(t = x->pricer.runtime(child.data())) << space_kind_name(kind) << " " << i;
        ASSERT_TRUE(std::isfinite(t) && t > 0);
        made.insert(child);
        for (const TileDim& d : s.free_dims()) {
          bool in_file = false;
          for (int64_t c = 0; c < x->g.num_configs && !in_file; ++c) in_file = x->g.config_feat[c * 24 + d.col] == child[d.col];
          unseen_values += !in_file;
        }
      }
      EXPECT_GE(changed, 150) << "most mutations change the config";
      std::set<std::vector<float>> file;
      for (int64_t c = 0; c < x->g.num_configs; ++c)
        file.insert(std::vector<float>(x->g.config_feat.begin() + c * 24, x->g.config_feat.begin() + (c + 1) * 24));
      const int64_t legal = enumerate(s, x->pricer).legal;
      EXPECT_GE(static_cast<int64_t>(made.size()), std::min<int64_t>(legal, static_cast<int64_t>(file.size()) + 1))
          << "the operators reach configs the file lacks, where the space has any";
      if (kind == SpaceKind::Menu) EXPECT_EQ(unseen_values, 0);
      else sizes_unseen += unseen_values;
      EXPECT_EQ(s.why_illegal(s.most_common().data()), "");
    }
  }
  EXPECT_GT(sizes_unseen, 0) << "the sizes space reaches tile sizes the files never measured";
}

TEST(TileSpace, ListsEveryLegalConfigOfASmallSpaceOnceAndRefusesABigOne) {
  for (const Kernel* x : kernels())
    for (SpaceKind kind : {SpaceKind::Menu, SpaceKind::Sizes}) {
      const TileConfigSpace s = x->space(kind);
      const Enumerated naive = enumerate(s, x->pricer);
      std::set<std::vector<float>> seen;
      double optimum = std::numeric_limits<double>::infinity();
      const int64_t n = s.for_each_config(int64_t{1} << 40, [&](const float* c) {
        EXPECT_EQ(s.why_illegal(c), "");
        seen.insert(std::vector<float>(c, c + 24));
        optimum = std::min(optimum, x->pricer.runtime(c));
      });
      EXPECT_EQ(n, naive.legal) << space_kind_name(kind);
      EXPECT_EQ(static_cast<int64_t>(seen.size()), n) << "each config once";
      EXPECT_EQ(optimum, naive.optimum);
      for (int64_t c = 0; c < x->g.num_configs; ++c)
        EXPECT_EQ(seen.count(std::vector<float>(x->g.config_feat.begin() + c * 24, x->g.config_feat.begin() + (c + 1) * 24)), 1u)
            << "the file's config " << c << " is in its own space";
      int64_t visits = 0;
      EXPECT_EQ(s.for_each_config(naive.legal - 1, [&](const float*) { ++visits; }), -1)
          << "a limit below the combinations (at least the legal ones) lists nothing";
      EXPECT_EQ(visits, 0);
    }
}

TEST(TileSpace, MostCommonTakesEachBoundsModeAndStepsMoveToTheNextSize) {
  const Kernel& x = *kernels().front();
  const TileConfigSpace s = x.space(SpaceKind::Sizes);
  const std::vector<float> common = s.most_common();
  for (const TileDim& d : s.free_dims()) {
    ASSERT_TRUE(std::is_sorted(d.values.begin(), d.values.end()));
    // Naive reference: the most frequent value of the column (ties: the smallest).
    std::vector<float> col;
    for (int64_t c = 0; c < x.g.num_configs; ++c) col.push_back(x.g.config_feat[c * 24 + d.col]);
    float mode = 0;
    int64_t most = -1;
    for (float v : col) {
      const auto n = std::count(col.begin(), col.end(), v);
      if (n > most || (n == most && v < mode)) mode = v, most = n;
    }
    EXPECT_EQ(d.mode, mode) << d.col;
    // Powers of two between the smallest and the largest are all there.
    for (double p = 1; p <= d.values.back(); p *= 2) {
      if (p < d.values.front()) continue;
      EXPECT_TRUE(std::binary_search(d.values.begin(), d.values.end(), static_cast<float>(p))) << d.col << " " << p;
    }
  }
  // A mutation changes one or two bounds; a single step moves to a neighbour.
  Rng rng(8);
  int neighbour_steps = 0;
  for (int i = 0; i < 300; ++i) {
    const float* a = x.g.config_feat.data() + rng.uniform_int(0, x.g.num_configs - 1) * 24;
    std::vector<float> child(24);
    s.mutate(a, rng, child.data());
    int dims_changed = 0;
    const TileDim* moved = nullptr;
    for (const TileDim& d : s.free_dims())
      if (child[d.col] != a[d.col]) ++dims_changed, moved = &d;
    EXPECT_LE(dims_changed, 3) << "one or two bounds, and an output raised to its kernel";
    if (dims_changed == 1) {
      const auto at = std::lower_bound(moved->values.begin(), moved->values.end(), a[moved->col]) - moved->values.begin();
      const auto to = std::lower_bound(moved->values.begin(), moved->values.end(), child[moved->col]) - moved->values.begin();
      neighbour_steps += std::abs(at - to) == 1;
    }
  }
  EXPECT_GT(neighbour_steps, 60) << "stepping a tile size is the commonest mutation";
}

TEST(TileSpace, SaysWhyAConfigIsIllegal) {
  const Kernel& x = *kernels().front();
  const TileConfigSpace s = x.space(SpaceKind::Menu);
  const TileDim& d = s.free_dims().front();
  std::vector<float> c(x.g.config_feat.begin(), x.g.config_feat.begin() + 24);
  std::vector<float> bad = c;
  bad[d.col] = d.values.back() * 2 + 1;
  EXPECT_NE(s.why_illegal(bad.data()).find("not one of the"), std::string::npos) << s.why_illegal(bad.data());
  bad = c;
  bad[6] += 1;
  EXPECT_NE(s.why_illegal(bad.data()).find("kernel bounds sum"), std::string::npos) << s.why_illegal(bad.data());
  bad = c;
  bad[20] = 3;  // input bounds are always 0 in generated files
  EXPECT_NE(s.why_illegal(bad.data()).find("input bounds dim 4 is 3; every config of the file has 0"), std::string::npos)
      << s.why_illegal(bad.data());
  bad = c;
  bad[0] = std::nanf("");
  EXPECT_NE(s.why_illegal(bad.data()).find("kernel bounds dim 0 is not finite"), std::string::npos);
  // Output below its kernel bound: a dim whose kernel and output values allow it.
  bool checked = false;
  for (int i = 0; i < 6 && !checked; ++i) {
    bad = c;
    for (const TileDim& k : s.free_dims())
      if (k.col == i) {
        for (const TileDim& o : s.free_dims())
          if (o.col == 8 + i && o.values.front() < k.values.back()) {
            bad[i] = k.values.back();
            bad[8 + i] = o.values.front();
            double sum = 0, prod = 1;
            for (int j = 0; j < 6; ++j)
              if (bad[j] != 0) sum += bad[j], prod *= bad[j];
            bad[6] = static_cast<float>(sum), bad[7] = static_cast<float>(prod);
            sum = 0, prod = 1;
            for (int j = 8; j < 14; ++j)
              if (bad[j] != 0) sum += bad[j], prod *= bad[j];
            bad[14] = static_cast<float>(sum), bad[15] = static_cast<float>(prod);
            EXPECT_NE(s.why_illegal(bad.data()).find("is below its kernel bound"), std::string::npos) << s.why_illegal(bad.data());
            checked = true;
          }
      }
  }
  EXPECT_TRUE(checked);
  EXPECT_THROW(TileConfigSpace(24, x.g.config_feat, {}, SpaceKind::Orders), Error);
  EXPECT_THROW(TileConfigSpace(24, std::vector<float>(23, 1.0f), {}, SpaceKind::Menu), Error);
  EXPECT_THROW(TileConfigSpace(24, x.g.config_feat, {1, 2}, SpaceKind::Menu), Error);
}

// A real kernel's file (its bounds mean something else than the
// generator's): the space keeps to its values and its sums and products.
TEST(TileSpace, RealKernelFileKeepsItsOwnValues) {
  const TileGraph g =
      load_tile_graph(NpzReader::open(test::data_file("real/tile_xla_test_0a3585c3e686065389227fa374175e48.npz")));
  for (SpaceKind kind : {SpaceKind::Menu, SpaceKind::Sizes}) {
    const TileConfigSpace s(g.config_feat_width, g.config_feat, {}, kind);
    EXPECT_TRUE(s.derived()) << "the published rows' sums and products agree with their dims";
    for (int64_t c = 0; c < g.num_configs; ++c) ASSERT_EQ(s.why_illegal(g.config_feat.data() + c * 24), "") << c;
    Rng rng(1);
    std::vector<float> child(24);
    std::vector<int> kept;  // dims whose output bound is at least the kernel bound in every config of the file
    for (int i = 0; i < 6; ++i) {
      bool all = true;
      for (int64_t c = 0; c < g.num_configs; ++c) all = all && g.config_feat[c * 24 + 8 + i] >= g.config_feat[c * 24 + i];
      if (all) kept.push_back(i);
    }
    EXPECT_FALSE(kept.empty());
    int changed = 0;
    for (int i = 0; i < 300; ++i) {
      const float* a = g.config_feat.data() + rng.uniform_int(0, g.num_configs - 1) * 24;
      s.mutate(a, rng, child.data());
      changed += !std::equal(child.begin(), child.end(), a);
      ASSERT_EQ(s.why_illegal(child.data()), "");
      for (int j : kept) ASSERT_GE(child[8 + j], child[j]) << "every config of this file has output >= kernel at dim " << j;
    }
    EXPECT_GT(changed, 250);
  }
}

// With the generator's true cost as its oracle, the search finds the
// fastest config of the space (the file's best or a new one), and on some
// kernels that is a config nobody measured.
TEST(TileSpace, SearchWithTheTrueCostFindsTheSpacesOptimum) {
  int new_best = 0;
  for (const Kernel* x : kernels()) {
    const TileConfigSpace s = x->space(SpaceKind::Sizes);
    double combos = 1;
    for (const TileDim& d : s.free_dims()) combos *= static_cast<double>(d.values.size());
    ASSERT_LE(combos, 50000) << "small enough to enumerate";
    const double optimum = enumerate(s, x->pricer).optimum;
    ProposeSettings settings;
    settings.budget = 2000;
    ProposeSearch search(s, settings, x->g.config_feat);
    for (;;) {
      const std::vector<float>& rows = search.ask();
      if (rows.empty()) break;
      std::vector<double> v;
      for (size_t i = 0; i < rows.size(); i += 24) v.push_back(std::log(x->pricer.runtime(rows.data() + i)));
      search.tell(v);
    }
    const std::vector<ScoredConfig> best = search.best_new(1);
    ASSERT_EQ(best.size(), 1u);
    const double found = std::min(x->pricer.runtime(best.front().config.data()), x->best_known());
    std::printf("[ figures  ] tile kernel: %g combinations, file best %.0f ns, best found %.0f ns, optimum %.0f ns\n",
                combos, x->best_known(), found, optimum);
    EXPECT_NEAR(found, optimum, 1e-6 * optimum);
    new_best += optimum < x->best_known();
  }
  EXPECT_GT(new_best, 0) << "some kernel's fastest config was never measured";
}

}  // namespace
}  // namespace fastslow
