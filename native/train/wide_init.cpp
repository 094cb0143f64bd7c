#include "train/wide_init.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "baselines/relevance_ridge.h"
#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"
#include "baselines/sparse_columns.h"
#include "fastslow/error.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rng.h"

namespace fastslow::train {
namespace {

using models::LayoutWideImpl;

// The table's view of a value: rounded, clamped into -1..5.
float table_value(float v) {
  if (!(v == v)) return -1.0f;
  return std::clamp(std::round(v), -1.0f, static_cast<float>(LayoutWideImpl::kValues - 2));
}

// What LayoutWideImpl::row_codes computes, for one node's row.
int64_t row_code(const float* row, int64_t width) {
  int64_t code = 0, p = 1;
  for (int64_t c = 0; c < width; ++c, p *= LayoutWideImpl::kValues)
    code += (static_cast<int64_t>(table_value(row[c])) + 1) * p;
  return code;
}

// For each node (by position), the first node whose rows change together
// with its own over the n rows, splitting them alike (itself where none
// does, or where its rows never change). No fit can tell such nodes apart,
// and the relevance ridge shares their variance out between them (real
// AlexNet, 16 measured: four nodes at 11 % each).
std::vector<int64_t> moved_with_first(const std::vector<float>& rows, int64_t n, int64_t nc, int64_t width) {
  std::map<std::vector<int64_t>, int64_t> first_of_split;
  std::vector<int64_t> out;
  for (int64_t j = 0; j < nc; ++j) {
    std::map<int64_t, int64_t> label;  // a row's code -> the first row with it
    std::vector<int64_t> split;
    for (int64_t r = 0; r < n; ++r)
      split.push_back(label.emplace(row_code(rows.data() + (r * nc + j) * width, width), r).first->second);
    out.push_back(label.size() > 1 ? first_of_split.emplace(split, j).first->second : j);
  }
  return out;
}

// The design of one group: nc*Fc table values, then per node (when rows
// are used) the index of its row among the kept ones, -1 for any other.
std::vector<float> design(const std::vector<float>& rows, int64_t count, int64_t nc, int64_t width,
                          const std::vector<std::unordered_map<int64_t, int64_t>>& kept, bool use_rows) {
  const int64_t cols = nc * width + (use_rows ? nc : 0);
  std::vector<float> out(static_cast<size_t>(count * cols));
  for (int64_t r = 0; r < count; ++r) {
    const float* in = rows.data() + r * nc * width;
    float* o = out.data() + r * cols;
    for (int64_t i = 0; i < nc * width; ++i) o[i] = table_value(in[i]);
    if (!use_rows) continue;
    for (int64_t j = 0; j < nc; ++j) {
      const auto it = kept[static_cast<size_t>(j)].find(row_code(in + j * width, width));
      o[nc * width + j] = it == kept[static_cast<size_t>(j)].end() ? -1.0f : static_cast<float>(it->second);
    }
  }
  return out;
}

// Few measurements: below this many configs the relevance ridge fits the
// values in place of ridge (see fit_wide_table).
constexpr int64_t kEvidenceOnly = 32;

// Enough valid configs: of six penalties, the one whose ridge on design `x`
// (cols wide) ranks the valid configs (design vx, runtimes vrt) best.
struct ValidChoice {
  WideFit fit;
  baselines::OneHotRidge ridge;
};
ValidChoice best_on_valid(const std::vector<float>& x, int64_t cols, const std::vector<double>& y,
                          const std::vector<float>& vx, const std::vector<double>& vrt) {
  ValidChoice best;
  best.fit.valid_kendall = -2;
  for (double lambda : {1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0}) {
    baselines::OneHotRidge ridge;
    ridge.fit(x, cols, y, lambda);
    double k = vrt.size() >= 2 ? kendall_tau(ridge.predict(vx), vrt) : 0.0;
    if (!std::isfinite(k)) k = 0.0;
    if (k > best.fit.valid_kendall + 1e-12) {
      best.fit = {lambda, k, static_cast<int64_t>(y.size()), ridge.num_features()};
      best.ridge = std::move(ridge);
    }
  }
  return best;
}

}  // namespace

WideFit fit_wide_table(LayoutWideImpl& wide, const GraphEntry& fit, const GraphEntry& valid, uint64_t seed) {
  const CachedGraph& c = fit.cache;
  const int64_t nc = wide.config_nodes(), width = wide.config_width();
  if (static_cast<int64_t>(c.pruned.config_positions.size()) != nc || c.config_feat_width != width)
    throw Error(c.source, "node_config_feat", "does not match the wide table's shape");
  if (fit.group_target.empty()) throw Error(c.source, "config_runtime", "has no runtimes to fit the wide table on");
  const bool use_rows = wide.uses_rows();

  std::vector<int64_t> groups = fit.train_groups;
  const bool few = static_cast<int64_t>(valid.eval_groups.size()) < kFewValid;
  if (few && valid.cache.source == c.source && valid.cache.groups.num_groups() == c.groups.num_groups()) {
    // Few measurements: cross-validation inside the measured configs picks
    // the penalty and the design, and the handful of valid configs decides
    // nothing (the trainer keeps the table unless an epoch beats it by more
    // than their noise), so they fit the table too: the 3 of 32 configs
    // left out cost real AlexNet 0.20 of held-out Kendall (0.55 against
    // 0.75, mean of 5 draws).
    groups.insert(groups.end(), valid.eval_groups.begin(), valid.eval_groups.end());
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  }
  const int64_t cap = std::max<int64_t>(2, kMaxWideValues / std::max<int64_t>(1, nc * (width + 1)));
  if (static_cast<int64_t>(groups.size()) > cap) {
    Rng rng(seed ^ 0x77696465ull);  // "wide"
    for (int64_t i = static_cast<int64_t>(groups.size()) - 1; i > 0; --i)
      std::swap(groups[i], groups[rng.uniform_int(0, i)]);
    groups.resize(static_cast<size_t>(cap));
    std::sort(groups.begin(), groups.end());
  }
  const auto n = static_cast<int64_t>(groups.size());
  const std::vector<float> rows = c.config_rows(groups);

  // The kRowSlots most frequent rows of each node (ties: the smaller code).
  std::vector<std::unordered_map<int64_t, int64_t>> kept(static_cast<size_t>(nc));
  std::vector<int64_t> table(static_cast<size_t>(nc * LayoutWideImpl::kRowSlots), -1);
  if (use_rows) {
    for (int64_t j = 0; j < nc; ++j) {
      std::map<int64_t, int64_t> freq;
      for (int64_t r = 0; r < n; ++r) ++freq[row_code(rows.data() + (r * nc + j) * width, width)];
      std::vector<std::pair<int64_t, int64_t>> order(freq.begin(), freq.end());
      std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
      for (int64_t k = 0; k < std::min<int64_t>(LayoutWideImpl::kRowSlots, static_cast<int64_t>(order.size())); ++k) {
        kept[static_cast<size_t>(j)][order[static_cast<size_t>(k)].first] = k;
        table[static_cast<size_t>(j * LayoutWideImpl::kRowSlots + k)] = order[static_cast<size_t>(k)].first;
      }
    }
  }
  const int64_t cols = nc * width + (use_rows ? nc : 0);
  const std::vector<float> x = design(rows, n, nc, width, kept, use_rows);
  std::vector<double> y;
  y.reserve(static_cast<size_t>(n));
  for (int64_t g : groups) y.push_back(fit.group_target[static_cast<size_t>(g)]);

  const std::vector<int64_t>& vg = valid.eval_groups;
  const std::vector<float> valid_rows = valid.cache.config_rows(vg);
  const auto nv = static_cast<int64_t>(vg.size());
  const std::vector<float> vx = design(valid_rows, nv, nc, width, kept, use_rows);
  std::vector<double> vrt;
  for (int64_t g : vg) vrt.push_back(valid.cache.groups.best_runtime[static_cast<size_t>(g)]);

  WideFit best;
  best.valid_kendall = -2;
  baselines::OneHotRidge chosen;
  bool rows_fitted = use_rows;
  const std::vector<float> xv = use_rows ? design(rows, n, nc, width, kept, false) : x;  // the values alone
  std::vector<int64_t> sparse;  // few measurements: the nodes whose rows are in the table (not all)
  bool sparse_values = false;   // ... beside the values (else their rows alone)
  std::vector<float> xs;        // the design: (the values and) their row indices
  std::vector<int64_t> node_of_column;                 // few measurements: the node of each value column
  std::optional<baselines::RelevanceRidge> relevance;  // few measurements: the values' fit, when chosen
  if (few) {
    // Few measurements: Kendall on a handful of valid configs is noise; the
    // training configs' own 4-fold cross-validation picks the penalty (too
    // few of them to cross-validate: the values alone at penalty 1), and
    // whether the whole-row weights earn their place. With few configs
    // nearly every row is new, so row weights memorise configs (real
    // AlexNet, 32 measured: held-out Kendall 0.38 with them, 0.76 without);
    // on unet3d they are what ranks (0.80 with, 0.2 without, 64 measured).
    const baselines::RidgeChoice by_values = baselines::choose_ridge_penalty(xv, nc * width, y, 4, seed);
    // Below kEvidenceOnly configs the values' design is the relevance ridge
    // (baselines/relevance_ridge.h): a prior variance per node by the
    // evidence, where ridge has one penalty for all. Real AlexNet at 16
    // configs: held-out Kendall 0.33 against ridge's 0.10 (20 draws); at
    // 24, 0.57 against 0.24. It is not chosen by cross-validation: with 4
    // folds of fewer than 8 configs ridge had the better out-of-fold Kendall
    // in 3 of 10 AlexNet draws at 16, and ranked worse held-out in each.
    // From 32 configs ridge's cross-validated penalty serves as before: there
    // its near-interpolation ranks AlexNet's plateau better (0.75 against
    // 0.73, 20 draws), and choosing by cross-validation still lost 0.01.
    const bool use_relevance = n >= 2 && n < kEvidenceOnly;
    double relevance_cv = std::numeric_limits<double>::quiet_NaN();
    if (use_relevance) {
      for (int64_t col = 0; col < nc * width; ++col) node_of_column.push_back(col / width);
      relevance_cv = baselines::relevance_cv_kendall(xv, nc * width, node_of_column, y, 4, seed);
    }
    const baselines::RidgeChoice base =
        std::isfinite(relevance_cv) ? baselines::RidgeChoice{by_values.lambda, relevance_cv} : by_values;
    // The rows' and a few nodes' out-of-fold Kendall is the best of several
    // penalties (and paths), as ridge's on the values is, which the
    // relevance ridge's single fit is not: they must beat both.
    const double bar = std::max(base.cv_kendall, by_values.cv_kendall);
    baselines::RidgeChoice with_rows{0, -2};
    if (use_rows) with_rows = baselines::choose_ridge_penalty(x, cols, y, 4, seed);
    // Whole rows add a weight per node and row: they must beat the values
    // by more than the out-of-fold Kendall's noise over n configs.
    const double margin = kendall_null_sd(n);
    rows_fitted = use_rows && with_rows.cv_kendall > bar + margin;
    baselines::RidgeChoice cv = rows_fitted ? with_rows : base;
    // Or the rows of a few nodes only (forward selection,
    // baselines/sparse_columns.h), alone or beside the values, under the
    // same rule: where one node decides, as on real unet3d, they rank at
    // 16-32 configs.
    if (use_rows) {
      std::vector<int64_t> row_cols;
      for (int64_t j = 0; j < nc; ++j) row_cols.push_back(nc * width + j);
      const std::vector<float> xr = baselines::take_columns(x, cols, row_cols);
      const baselines::BaseColumns values{xv, nc * width};
      // Beside the values the penalty is searched too, which costs a
      // selection per penalty: cheap while ridge solves the values
      // directly, 4x the table's whole fit beyond (a graph of 3,337
      // configurable nodes at 64 configs: 40 s against 10 s, when only
      // the features' space was solved directly). There the values' own
      // penalty serves (16 s), though on real unet3d at 32 configs it
      // ranks far worse than the searched one (draw 0: 0.15 against 0.75).
      const bool search = baselines::OneHotRidge::solves_directly(
          static_cast<int64_t>(y.size()), baselines::OneHotRidge::count_features(xv, nc * width));
      for (const bool with_values : {false, true}) {
        const baselines::SparseColumnsChoice sc =
            !with_values ? baselines::choose_sparse_columns(xr, nc, y, 4, seed)
            : search     ? baselines::choose_sparse_columns(xr, nc, y, 4, seed, 4, values)
                         : baselines::choose_sparse_columns(xr, nc, y, 4, seed, 4, values, by_values.lambda);
        if (sc.columns.empty() || !(sc.cv_kendall > bar + margin) || !(sc.cv_kendall > cv.cv_kendall))
          continue;
        rows_fitted = true;
        sparse = sc.columns;
        sparse_values = with_values;
        xs = baselines::join_columns(with_values ? values : baselines::BaseColumns{}, xr, nc, sparse);
        cv = {sc.lambda, sc.cv_kendall};
      }
    }
    if (!sparse.empty())
      chosen.fit(xs, (sparse_values ? nc * width : 0) + static_cast<int64_t>(sparse.size()), y, cv.lambda);
    else if (rows_fitted) chosen.fit(x, cols, y, cv.lambda);
    else if (use_relevance) {
      relevance.emplace();
      relevance->fit(xv, nc * width, node_of_column, y);
    } else chosen.fit(xv, nc * width, y, cv.lambda);
    // Out-of-fold Kendall: a handful of valid configs says nothing. Fewer
    // than two configs a fold were not cross-validated: no Kendall (NaN).
    const bool folded = std::isfinite(cv.cv_kendall);
    best = {relevance ? 0.0 : cv.lambda, folded ? cv.cv_kendall : std::numeric_limits<double>::quiet_NaN(), n,
            relevance ? relevance->num_features() : chosen.num_features()};
    best.cross_validated = folded;
    best.fitted_valid = true;
    best.sparse_with_values = sparse_values;
    const PrunedGraph& pg = fit.cache.pruned;
    const auto node_id = [&](int64_t j) { return pg.kept[static_cast<size_t>(pg.config_positions[static_cast<size_t>(j)])]; };
    if (relevance) {
      best.relevance = true;
      const std::vector<double> share = relevance->relevance();
      std::vector<int64_t> by_share(static_cast<size_t>(nc));
      for (int64_t j = 0; j < nc; ++j) by_share[static_cast<size_t>(j)] = j;
      std::stable_sort(by_share.begin(), by_share.end(),
                       [&](int64_t l, int64_t r) { return share[static_cast<size_t>(l)] > share[static_cast<size_t>(r)]; });
      // Nodes that moved together count as one, named by the largest share.
      const std::vector<int64_t> first = moved_with_first(rows, n, nc, width);
      std::map<int64_t, size_t> entry_of;  // a group's first node -> its entry
      for (int64_t j : by_share) {
        const auto [at, fresh] = entry_of.emplace(first[static_cast<size_t>(j)], best.node_relevance.size());
        if (fresh) {
          best.node_relevance.push_back({node_id(j), share[static_cast<size_t>(j)], {}});
        } else {
          NodeRelevance& e = best.node_relevance[at->second];
          e.share += share[static_cast<size_t>(j)];
          e.moved_with.push_back(node_id(j));
        }
      }
      std::stable_sort(best.node_relevance.begin(), best.node_relevance.end(),
                       [](const NodeRelevance& l, const NodeRelevance& r) { return l.share > r.share; });
    }
    for (int64_t j : sparse) best.sparse_node_ids.push_back(node_id(j));
  } else {
    // The penalty, and whether whole rows earn their place, by Kendall on
    // the valid configs: rows must beat the values alone by more than its
    // noise over them, as the out-of-fold rule above asks. Real AlexNet, 512
    // measured: rows memorise configs (held-out 0.8383 against ridge's
    // 0.8398); on unet3d they are what ranks.
    ValidChoice pick = best_on_valid(xv, nc * width, y, design(valid_rows, nv, nc, width, kept, false), vrt);
    rows_fitted = false;
    if (use_rows) {
      ValidChoice with_rows = best_on_valid(x, cols, y, vx, vrt);
      rows_fitted = with_rows.fit.valid_kendall > pick.fit.valid_kendall + kendall_null_sd(nv);
      if (rows_fitted) pick = std::move(with_rows);
    }
    best = pick.fit;
    chosen = std::move(pick.ridge);
  }

  {
    const std::vector<double> p = relevance ? relevance->predict(xv) : chosen.predict(!sparse.empty() ? xs : rows_fitted ? x : xv);
    double sq = 0;
    for (int64_t r = 0; r < n; ++r) sq += (p[static_cast<size_t>(r)] - y[static_cast<size_t>(r)]) * (p[static_cast<size_t>(r)] - y[static_cast<size_t>(r)]);
    best.residual_sd = std::sqrt(sq / static_cast<double>(std::max<int64_t>(1, n)));
  }
  torch::NoGradGuard no_grad;
  std::vector<float> vw(static_cast<size_t>(nc * width * LayoutWideImpl::kValues), 0.0f);
  if (sparse.empty() || sparse_values)
    for (int64_t col = 0; col < nc * width; ++col)
      for (int64_t v = 0; v < LayoutWideImpl::kValues; ++v)
        vw[static_cast<size_t>(col * LayoutWideImpl::kValues + v)] =
            static_cast<float>(relevance ? relevance->weight(col, static_cast<float>(v - 1))
                                         : chosen.weight(col, static_cast<float>(v - 1)));
  std::vector<float> rw(static_cast<size_t>(nc * LayoutWideImpl::kRowSlots), 0.0f);
  best.rows = rows_fitted;
  // Node j's row weights: column `at` of the fitted design.
  const auto fill_rows = [&](int64_t j, int64_t at) {
    // A row outside the kept ones scores 0 in the table; ridge gave the
    // "other rows" category a weight of its own. Each config has exactly
    // one category per node, so shifting them all keeps the ranking.
    const double other = chosen.weight(at, -1.0f);
    for (int64_t k = 0; k < LayoutWideImpl::kRowSlots; ++k)
      if (table[static_cast<size_t>(j * LayoutWideImpl::kRowSlots + k)] >= 0)
        rw[static_cast<size_t>(j * LayoutWideImpl::kRowSlots + k)] =
            static_cast<float>(chosen.weight(at, static_cast<float>(k)) - other);
  };
  if (!sparse.empty())
    for (size_t i = 0; i < sparse.size(); ++i)
      fill_rows(sparse[i], (sparse_values ? nc * width : 0) + static_cast<int64_t>(i));
  else if (rows_fitted)
    for (int64_t j = 0; j < nc; ++j) fill_rows(j, nc * width + j);
  const auto dev = wide.value_weight.device();
  wide.value_weight.copy_(torch::tensor(vw).to(dev));
  wide.row_weight.copy_(torch::tensor(rw).view({nc, LayoutWideImpl::kRowSlots}).to(dev));
  wide.rows.copy_(torch::tensor(table, torch::kInt64).view({nc, LayoutWideImpl::kRowSlots}).to(dev));
  return best;
}

}  // namespace fastslow::train
