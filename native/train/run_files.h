// One owner per file of a run folder: every read and write of config.json,
// stats.json, log.jsonl, state.json, metrics.json and profile.json goes
// through here, so each file has one format and one set of rules (run_dir.h
// is the folder itself, its atomic writes and its torch archives).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "train/dataset.h"
#include "train/options.h"
#include "train/run_dir.h"

namespace fastslow::train {

// config.json: every option of the run. Input paths (data, graph, cache)
// are stored absolute, and again relative to the run folder: a run read
// from another directory finds its data, and a run moved together with its
// data (a project folder copied elsewhere) finds it where the absolute path
// is gone.
void write_config(const RunDir& run, const TrainOptions& o);
// Migrates configs of older runs (TrainOptions::from_json), sets `out` to
// the folder, locates the inputs, and checks that what a run always holds
// is there: Error naming the file otherwise.
TrainOptions read_config(const RunDir& run);

// stats.json: the normaliser fitted on the training graphs.
void write_stats(const RunDir& run, const Normalizer& norm);
Normalizer read_stats(const RunDir& run);

// log.jsonl: one JSON line per validated epoch, rewritten whole on every
// change (write_file_atomically), so a line is never cut: a malformed one
// is an Error naming the file and the line, for every reader alike.
void append_log(const RunDir& run, const nlohmann::json& line);
std::vector<nlohmann::json> read_log(const RunDir& run);  // empty when there is no log yet
// Drops the lines of epochs >= `epoch` (a resumed run logs them again).
void drop_log_from(const RunDir& run, int64_t epoch);

// state.json: a copy of the training state last.pt holds, for people and
// tools. saved_state(): last.pt's own (state.json lags it after a stop
// between the two writes), else state.json's; nullopt before the first save.
void write_state(const RunDir& run, const nlohmann::json& state);
std::optional<nlohmann::json> saved_state(const RunDir& run);

// metrics.json: the best epoch's per-graph validation results.
void write_metrics(const RunDir& run, const nlohmann::json& metrics);
std::optional<nlohmann::json> read_metrics(const RunDir& run);

// profile.json: what the training data looked like (data_profile.h), for
// the model card's shift check.
void write_profile(const RunDir& run, const nlohmann::json& profile);
std::optional<nlohmann::json> read_profile(const RunDir& run);

}  // namespace fastslow::train
