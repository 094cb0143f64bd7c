// The submission CSV reader (`fastslow submit` reads every part with it):
// parse_submission_csv; what it accepts must format and read back the same.
#include <string>
#include <vector>

#include "fastslow/data/submission.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<SubmissionRow> rows;
  if (!fuzz::accepts([&] { rows = parse_submission_csv(text, "fuzz.csv"); })) return 0;
  // Accepted rows are well formed: an Error from here on is a finding.
  for (const SubmissionRow& row : rows) (void)collection_of_id(row.id);
  const std::vector<SubmissionRow> again = parse_submission_csv(format_submission_csv(rows), "again.csv");
  FUZZ_CHECK(again.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    FUZZ_CHECK(again[i].id == rows[i].id && again[i].top_configs == rows[i].top_configs);
  return 0;
}
