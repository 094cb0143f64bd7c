#include "fastslow/data/submission.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"

namespace fastslow {

namespace {

const char* const kHeader = "ID,TopConfigs";

std::string valid_collections() {
  std::string s;
  for (const std::string& c : all_collection_ids()) s += (s.empty() ? "" : ", ") + c;
  return s;
}

bool is_collection(const std::string& c) {
  const std::vector<std::string>& ids = all_collection_ids();
  return std::find(ids.begin(), ids.end(), c) != ids.end();
}

// Empty string when the stem is acceptable, else the reason.
std::string stem_problem(const std::string& stem) {
  if (stem.empty()) return "empty file stem";
  for (char ch : stem)
    if (ch == ',' || ch == ';' || ch == '\n' || ch == '\r' || ch == '"')
      return "file stem '" + stem + "' contains a character not allowed in the CSV";
  return "";
}

// Empty string when the ID is well formed, else the reason; collection set
// on success.
std::string id_problem(const std::string& id, std::string* collection) {
  if (id.empty()) return "empty ID";
  // Collections contain ':' themselves, so match known prefixes instead of
  // splitting at a colon.
  for (const std::string& c : all_collection_ids()) {
    std::string prefix = c + ":";
    if (id.compare(0, prefix.size(), prefix) == 0) {
      std::string why = stem_problem(id.substr(prefix.size()));
      if (!why.empty()) return "ID '" + id + "': " + why;
      if (collection) *collection = c;
      return "";
    }
  }
  return "ID '" + id + "' does not start with a known collection (" +
         valid_collections() + ")";
}

// Empty string when the row is acceptable, else the reason.
std::string row_problem(const SubmissionRow& row) {
  std::string why = id_problem(row.id, nullptr);
  if (!why.empty()) return why;
  if (row.top_configs.empty()) return "ID '" + row.id + "' has no config indices";
  std::set<int64_t> seen;
  for (int64_t c : row.top_configs) {
    if (c < 0)
      return "ID '" + row.id + "': negative config index " + std::to_string(c);
    if (!seen.insert(c).second)
      return "ID '" + row.id + "': config index " + std::to_string(c) +
             " listed twice";
  }
  return "";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// Digits only: signs, spaces and exponents are all signs of a broken writer.
bool parse_index(const std::string& s, int64_t* out, std::string* why) {
  if (s.empty()) {
    *why = "empty config index";
    return false;
  }
  if (s[0] == '-') {
    *why = "negative config index '" + s + "'";
    return false;
  }
  int64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') {
      *why = "config index '" + s + "' is not a non-negative integer";
      return false;
    }
    int d = ch - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) {
      *why = "config index '" + s + "' is too large";
      return false;
    }
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

std::string line_no(size_t n) { return "line " + std::to_string(n) + ": "; }

}  // namespace

std::string submission_id(const std::string& collection_id,
                          const std::string& file_stem) {
  if (!is_collection(collection_id))
    throw Error("unknown collection id '" + collection_id +
                "'; valid ids: " + valid_collections());
  std::string why = stem_problem(file_stem);
  if (!why.empty()) throw Error(why);
  return collection_id + ":" + file_stem;
}

SubmissionRow submission_row(const std::string& collection_id, const std::string& file_stem,
                             std::vector<int64_t> ranking) {
  SubmissionRow row{submission_id(collection_id, file_stem), std::move(ranking)};
  constexpr size_t kTileTop = 5;
  if (parse_collection_id(collection_id).kind == GraphKind::Tile && row.top_configs.size() > kTileTop)
    row.top_configs.resize(kTileTop);
  return row;
}

std::string collection_of_id(const std::string& id) {
  std::string collection;
  std::string why = id_problem(id, &collection);
  if (!why.empty()) throw Error("malformed submission " + why);
  return collection;
}

std::string format_submission_csv(const std::vector<SubmissionRow>& rows) {
  std::string out = std::string(kHeader) + "\n";
  std::set<std::string> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    const SubmissionRow& row = rows[i];
    std::string why = row_problem(row);
    if (!why.empty()) throw Error("submission row " + std::to_string(i) + ": " + why);
    if (!ids.insert(row.id).second)
      throw Error("submission row " + std::to_string(i) + ": ID '" + row.id +
                  "' appears twice");
    out += row.id;
    out += ',';
    for (size_t j = 0; j < row.top_configs.size(); ++j) {
      if (j) out += ';';
      out += std::to_string(row.top_configs[j]);
    }
    out += '\n';
  }
  return out;
}

void write_submission_csv(const std::string& path,
                          const std::vector<SubmissionRow>& rows) {
  // Format first so a bad row never touches the disk.
  std::string text = format_submission_csv(rows);
  write_file_atomically(path, text);
}

std::vector<SubmissionRow> parse_submission_csv(const std::string& text,
                                                const std::string& name) {
  std::string body = text;
  if (body.compare(0, 3, "\xEF\xBB\xBF") == 0) body.erase(0, 3);
  if (body.empty()) throw Error(name, "", line_no(1) + "missing header '" + kHeader + "'");

  std::vector<std::string> lines = split(body, '\n');
  // One final newline leaves an empty last piece; that is not a row.
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  for (std::string& l : lines)
    if (!l.empty() && l.back() == '\r') l.pop_back();

  if (lines[0] != kHeader)
    throw Error(name, "", line_no(1) + "expected header '" + kHeader + "', found '" +
                              lines[0] + "'");

  std::vector<SubmissionRow> rows;
  std::map<std::string, size_t> id_line;
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t n = i + 1;
    const std::string& line = lines[i];
    if (line.empty()) throw Error(name, "", line_no(n) + "empty line");
    std::vector<std::string> fields = split(line, ',');
    if (fields.size() != 2)
      throw Error(name, "", line_no(n) + "expected 2 fields (ID,TopConfigs), found " +
                                std::to_string(fields.size()));
    SubmissionRow row;
    row.id = fields[0];
    std::string why = id_problem(row.id, nullptr);
    if (!why.empty()) throw Error(name, "", line_no(n) + why);
    auto dup = id_line.emplace(row.id, n);
    if (!dup.second)
      throw Error(name, "", line_no(n) + "ID '" + row.id + "' already on line " +
                                std::to_string(dup.first->second));
    if (fields[1].empty())
      throw Error(name, "", line_no(n) + "ID '" + row.id + "' has no config indices");
    std::set<int64_t> seen;
    for (const std::string& tok : split(fields[1], ';')) {
      int64_t v = 0;
      if (!parse_index(tok, &v, &why)) throw Error(name, "", line_no(n) + why);
      if (!seen.insert(v).second)
        throw Error(name, "", line_no(n) + "config index " + std::to_string(v) +
                                  " listed twice");
      row.top_configs.push_back(v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<SubmissionRow> read_submission_csv(const std::string& path) {
  return parse_submission_csv(read_whole_file(path, "cannot open for reading"), path);
}

std::vector<SubmissionRow> merge_submissions(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error("no submission files to merge");
  std::vector<SubmissionRow> merged;
  // Parsing rejects blank lines, so row k of a file is on line k + 2.
  std::map<std::string, std::pair<std::string, size_t>> where;
  for (const std::string& path : paths) {
    std::vector<SubmissionRow> rows = read_submission_csv(path);
    for (size_t k = 0; k < rows.size(); ++k) {
      auto ins = where.emplace(rows[k].id, std::make_pair(path, k + 2));
      if (!ins.second)
        throw Error(path, "", line_no(k + 2) + "ID '" + rows[k].id +
                                  "' already in " + ins.first->second.first +
                                  " line " + std::to_string(ins.first->second.second));
      merged.push_back(std::move(rows[k]));
    }
  }
  return merged;
}

}  // namespace fastslow
