// A ranker with few free parameters for few measurements: ridge on a
// handful of categorical columns picked by forward selection, how many by
// cross-validation. On both real layout files here one configurable node
// decides most of the runtime (its whole layout row explains 77 % of real
// AlexNet's log-runtime variance and 99.8 % of real unet3d's), and with 16
// or 32 measured configs ridge over every node's row spreads its weight
// where a fit to the right node or two would rank. The picks may join a
// base of columns every choice keeps (the values of every node): the base
// ranks the many small effects, the picks the one large one.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow::baselines {

// Columns every choice is fitted with (a config's values, say), categorical
// as the candidates are; the choice adds its picks to them. Width 0: none.
struct BaseColumns {
  std::vector<float> rows;  // count x width
  int64_t width = 0;
};

struct SparseColumnsChoice {
  std::vector<int64_t> columns;  // picked, in the order forward selection took them
  double lambda = 1.0;
  double cv_kendall = -2;        // of the out-of-fold predictions (-2: too few rows to cross-validate)
};

// rows: count x width categorical values (one-hot inside, as OneHotRidge);
// y: what ridge fits, lower = faster. Forward selection adds the column
// that explains most of what the base and the columns picked so far leave,
// up to max_columns; the count and the penalty (ridge_penalties()) are
// chosen by K-fold cross-validation, the selection redone inside each fold
// so that no held-out row picks a column. The folds are
// choose_ridge_penalty's for the same seed, so the two cross-validated
// Kendalls compare like for like. Ties keep fewer columns, then the larger
// penalty. `penalty` > 0 fixes the penalty (only the count is chosen): a
// base's own cross-validated one, which keeps the search over a wide base
// affordable (one selection per fold, not one per penalty).
SparseColumnsChoice choose_sparse_columns(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                          int folds, uint64_t seed, int max_columns = 4, const BaseColumns& base = {},
                                          double penalty = 0);

// Forward selection alone, on all rows (what choose_sparse_columns does
// inside each fold): up to `count` columns. The residual is refitted after
// each pick by ridge at `penalty` on the base and the picks (nearly least
// squares by default; a base of many columns needs the chosen penalty, or
// it would fit the rows exactly and leave nothing to pick).
std::vector<int64_t> forward_select_columns(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                            int count, const BaseColumns& base = {}, double penalty = 1e-3);

// The rows' values in `columns` only: count x columns.size().
std::vector<float> take_columns(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& columns);
// The base's columns, then the rows' `columns`: count x (base.width + columns.size()).
std::vector<float> join_columns(const BaseColumns& base, const std::vector<float>& rows, int64_t width,
                                const std::vector<int64_t>& columns);

}  // namespace fastslow::baselines
