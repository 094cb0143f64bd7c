#include "fastslow/data/folds.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/rng.h"

namespace fastslow {

std::string model_family(const std::string& path) {
  std::string f;
  for (char ch : file_stem(path)) {
    if (!std::isalpha(static_cast<unsigned char>(ch))) break;
    f.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  }
  return f;
}

std::vector<int> assign_folds(const std::vector<std::string>& files, int folds, uint64_t seed) {
  if (folds < 2) throw Error("--folds: need at least 2 folds, got " + std::to_string(folds));
  // A graph named in two collections (xla random and default share their
  // graphs) is one graph: every file of a stem goes to the stem's fold.
  std::map<std::string, std::vector<size_t>> by_stem;
  for (size_t i = 0; i < files.size(); ++i) by_stem[file_stem(files[i])].push_back(i);
  if (static_cast<int64_t>(by_stem.size()) < folds)
    throw Error("--folds " + std::to_string(folds) + ": only " + std::to_string(by_stem.size()) +
                " distinct graphs to fold; every fold needs one to validate on");
  // Families in a fixed order (largest first, then by name), each family's
  // graphs by name and then shuffled with the seed.
  std::map<std::string, std::vector<std::string>> family;
  for (const auto& [stem, at] : by_stem) family[model_family(files[at.front()])].push_back(stem);
  std::vector<std::pair<std::string, std::vector<std::string>>> order(family.begin(), family.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  Rng rng(mix_seed(seed, 0x6f6c64));
  std::vector<int> slot(static_cast<size_t>(folds));
  for (int f = 0; f < folds; ++f) slot[static_cast<size_t>(f)] = f;
  for (int f = folds - 1; f > 0; --f) std::swap(slot[static_cast<size_t>(f)], slot[rng.uniform_int(0, f)]);
  std::vector<int> fold_of(files.size(), -1);
  // Dealing continues across families: totals stay within one of each other.
  int64_t dealt = 0;
  for (auto& [name, members] : order) {
    for (int64_t i = static_cast<int64_t>(members.size()) - 1; i > 0; --i)
      std::swap(members[static_cast<size_t>(i)], members[static_cast<size_t>(rng.uniform_int(0, i))]);
    for (const std::string& stem : members) {
      const int f = slot[static_cast<size_t>(dealt++ % folds)];
      for (size_t i : by_stem[stem]) fold_of[i] = f;
    }
  }
  return fold_of;
}

HoldoutSplit split_program_fold(int64_t num_groups, double holdout, int folds, int fold, uint64_t seed) {
  if (folds < 2) throw Error("--folds: need at least 2 folds, got " + std::to_string(folds));
  if (fold < 0 || fold >= folds)
    throw Error("--fold " + std::to_string(fold) + ": must be in [0, " + std::to_string(folds) + ")");
  const HoldoutSplit held = split_holdout(num_groups, holdout, seed);
  if (static_cast<int64_t>(held.train.size()) < folds)
    throw Error("--folds " + std::to_string(folds) + ": only " + std::to_string(held.train.size()) +
                " unique configs outside the held-out share");
  std::vector<int64_t> rest = held.train;
  Rng rng(mix_seed(seed, 0x6b666f6c64));
  for (int64_t i = static_cast<int64_t>(rest.size()) - 1; i > 0; --i)
    std::swap(rest[static_cast<size_t>(i)], rest[static_cast<size_t>(rng.uniform_int(0, i))]);
  HoldoutSplit s;
  s.holdout = held.holdout;
  for (size_t i = 0; i < rest.size(); ++i) (static_cast<int>(i % static_cast<size_t>(folds)) == fold ? s.valid : s.train).push_back(rest[i]);
  std::sort(s.train.begin(), s.train.end());
  std::sort(s.valid.begin(), s.valid.end());
  return s;
}

}  // namespace fastslow
