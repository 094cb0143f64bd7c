// The competition submission CSV: header "ID,TopConfigs", one row per graph,
// config indices joined by ';'. Reading is strict so a bad file is caught here
// with a line number rather than rejected later by the scorer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow {

struct SubmissionRow {
  std::string id;                    // e.g. "layout:xla:random:alexnet_train_batch_32"
  std::vector<int64_t> top_configs;  // best first
};

// "<collection id>:<file stem>"; throws Error on an unknown collection or a
// stem that is empty or would break the CSV.
std::string submission_id(const std::string& collection_id,
                          const std::string& file_stem);

// The row of one graph from its ranking (every config, best first): tile rows
// keep the best five, which is what the competition scores; layout rows every
// config. Throws as submission_id does.
SubmissionRow submission_row(const std::string& collection_id, const std::string& file_stem,
                             std::vector<int64_t> ranking);

// The collection part of a submission ID; throws Error when malformed.
std::string collection_of_id(const std::string& id);

// Throws Error if a row would not read back (bad ID, no or negative or
// repeated index, ID twice).
std::string format_submission_csv(const std::vector<SubmissionRow>& rows);

// Writes to path + ".tmp" and renames, so an interrupted write never leaves a
// half file at path. Throws Error naming the path on failure.
void write_submission_csv(const std::string& path,
                          const std::vector<SubmissionRow>& rows);

// `name` is used in error messages only.
std::vector<SubmissionRow> parse_submission_csv(const std::string& text,
                                                const std::string& name);

std::vector<SubmissionRow> read_submission_csv(const std::string& path);

// Concatenates per-collection files in the given order; an ID present twice
// (across or within files) is an error naming both places.
std::vector<SubmissionRow> merge_submissions(
    const std::vector<std::string>& paths);

}  // namespace fastslow
