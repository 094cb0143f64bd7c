// Graph loading and validation as `fastslow info` and the page do them:
// load_graph (tile or layout, with and without layout config features),
// validate and require_valid, and graph_info (config features streamed,
// de-duplication, runtime statistics) with its JSON and text, and the
// node effects of the measured runtimes (streamed, under a memory budget)
// with the first config read against them, as the page finds them on open.
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/graph/validate.h"
#include "fastslow/io/byte_source.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::accepts([&] {
    const NpzReader npz(memory_view_source("fuzz.npz", data, size));
    fuzz::accepts([&] {
      const Graph g = load_graph(npz);
      const std::vector<Problem> problems = validate(g);
      const bool valid = fuzz::accepts([&] { require_valid(g); });
      FUZZ_CHECK(valid == !has_errors(problems));
    });
    fuzz::accepts([&] {
      LoadOptions options;
      options.config_features = false;
      (void)validate(load_graph(npz, options));
    });
    fuzz::accepts([&] {
      GraphContents contents;
      const GraphInfo info = graph_info(npz, &contents);
      (void)graph_info_json(info);
      (void)graph_info_text(info);
    });
    fuzz::accepts([&] {
      const NodeEffects e = node_effects(npz, uint64_t(64) << 20);
      FUZZ_CHECK(e.configs >= 2);
      for (const NodeEffect& x : e.entries) FUZZ_CHECK(x.adjusted <= x.share + 1e-9 && !x.rows.empty());
      (void)config_row_effects(e, npz.read("node_config_ids").to_int64("node_config_ids"),
                               npz.read_rows("node_config_feat", 0, 1).to_float("node_config_feat"));
    });
  });
  return 0;
}
