#include "train/rank_split.h"

#include "fastslow/error.h"
#include "train/ensemble.h"
#include "train/loaded_run.h"

namespace fastslow::train {

SplitRanking rank_split(const std::string& path, const std::string& split, const std::string& device,
                        const Progress& caching, const std::function<void(size_t, size_t)>& graphs) {
  SplitRanking r;
  std::vector<LoadedRun> members;
  if (EnsembleSpec::is_ensemble(path)) {
    LoadedEnsemble e = load_ensemble(path, device);
    const MemberScores s = score_members(e.members, split, caching, graphs);
    std::vector<double> weights;
    for (const EnsembleMember& m : e.spec.members) weights.push_back(m.weight);
    r.results = combined_results(s, e.spec.combine, weights);
    r.members = static_cast<int>(e.members.size());
    r.combine = combine_name(e.spec.combine);
    r.in_sample = split == "valid" && !e.same_split;
    members = std::move(e.members);
  } else {
    members.push_back(load_run(path, device));
    const LoadedRun& run = members.front();
    const std::vector<GraphEntry> entries = load_split(run, split, caching);
    r.results = *evaluate_entries(*run.model, entries, run.norm, *run.options.eval_chunk, run.device,
                                  [&](size_t done, size_t total, const std::string&) {
                                    if (graphs) graphs(done, total);
                                    return true;
                                  });
  }
  r.options = members.front().options;
  if (r.members == 1) r.in_sample = split == "valid" && r.options.train_on_valid == 1;
  r.kind = members.front().kind();
  if (r.options.graph.empty()) {
    const SplitFiles f = split_files(r.options, split);
    r.source = f.source;
    r.labels = f.labels;
  }
  return r;
}

}  // namespace fastslow::train
