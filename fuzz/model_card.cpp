// The model card reader (model.json beside an exported model), which the
// terminal and the page both use: ModelCard::from_json, then the checks a
// ranking makes with an accepted card.
#include <string>

#include "fastslow/rank/model_card.h"
#include "fuzz_support.h"

using namespace fastslow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ModelCard c;
  if (!fuzz::accepts([&] { c = ModelCard::from_json(text, "fuzz/model.json"); })) return 0;
  FUZZ_CHECK(c.node_stats.width() == c.node_feat_width && c.chunk >= 1 && c.hidden >= 1);
  const GraphKind other = c.kind == GraphKind::Tile ? GraphKind::Layout : GraphKind::Tile;
  FUZZ_CHECK(!fuzz::accepts([&] { c.check_fits("g.npz", other, c.node_feat_width, c.graph_config_width()); }));
  FUZZ_CHECK(fuzz::accepts([&] { c.check_fits("g.npz", c.kind, c.node_feat_width, c.graph_config_width()); }));
  fuzz::accepts([&] { c.check_program("g.npz", 10, 9, 2); });
  if (c.training_data) (void)c.training_data->summary();
  return 0;
}
