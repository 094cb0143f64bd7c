// A distilled run's teaching materials: what its teacher (a run or an
// ensemble folder) says of each training graph, the configs the run
// measured and new legal configs sampled from the graph's space, so the
// student learns from far more configs than were measured.
//
// Built once per teacher, data, sample count and seed, and kept under
// TEACHER/teaching/<key>/ (or --teaching), where every later student with
// the same key reads them instead of scoring again:
//   teaching.json    the key: teacher, its model files' sizes and times,
//                    the graphs (file, duplicate groups, row width), the
//                    sample count and seed, and the space sampled
//   graph-<i>.npz    group_score [groups] (float64, per duplicate group of
//                    the cached graph), rows [samples, row elems] (float32,
//                    as the cache holds configs), row_score [samples]
// Scores are the teacher's own (lower = faster): an ensemble's combined as
// its ensemble.json says.
#pragma once

#include <string>
#include <vector>

#include "models/program_model.h"
#include "train/options.h"
#include "train/prepared_data.h"

namespace fastslow::train {

struct GraphTeaching {
  std::vector<double> group_score;  // per duplicate group of the cached graph
  std::vector<float> rows;          // sampled configs, samples x config_row_elems
  std::vector<double> row_score;    // per sampled config
  int64_t samples() const { return static_cast<int64_t>(row_score.size()); }
};

struct TeachingMaterials {
  std::string dir;                    // where they are kept
  std::vector<GraphTeaching> graphs;  // aligned with PreparedData::train
  bool reused = false;                // read back, not scored now
};

// `count` distinct legal configs of `g` none of which it holds: half drawn
// anywhere in its menu space (every value the file holds, in combinations
// it did not measure), half one to three mutations from a config it holds.
// Fewer when the space has fewer. A function of (g's configs, count, seed).
std::vector<float> sample_teaching_configs(const CachedGraph& g, int64_t count, uint64_t seed);
// The same from the file's unique configs (g.config_rows(g.all_groups())) read already.
std::vector<float> sample_teaching_configs(const CachedGraph& g, const std::vector<float>& known, int64_t count,
                                          uint64_t seed);

// The materials of `data`'s training graphs for o.teacher: read back when
// the folder holds them for the same key, else scored now and (when
// `write`) kept. Error naming the teacher when it ranks the other kind of
// graph, reads other features, or is another graph's per-program run.
TeachingMaterials teaching_materials(const TrainOptions& o, const PreparedData& data, bool write, const Say& say = {},
                                     const Progress& progress = {});

// A per-program student of a per-program teacher (one run, same graph)
// starts from the teacher's wide table and scale, not a table fitted again:
// only the deep part is distilled. Returns the tensors copied (0 when the
// teacher is an ensemble or has no table; the caller fits one).
int64_t copy_teacher_table(models::ProgramModelImpl& student, const TrainOptions& o);

}  // namespace fastslow::train
