#include "fastslow/tune/graph_space.h"

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/tune/config_space.h"
#include "fastslow/tune/tile_space.h"

namespace fastslow {

void check_space(const CachedGraph& g, SpaceKind kind) {
  if (g.kind == GraphKind::Tile && kind == SpaceKind::Orders)
    throw Error(g.source, "", "--space orders is for layout graphs; a tile graph's spaces are menu, sizes and shape");
  if (g.kind == GraphKind::Layout && (kind == SpaceKind::Sizes || kind == SpaceKind::Shape))
    throw Error(g.source, "", std::string("--space ") + space_kind_name(kind) +
                                  " is for tile graphs; a layout graph's spaces are menu and orders");
}

std::unique_ptr<ConfigSpace> config_space(const CachedGraph& g, const std::vector<float>& known, SpaceKind kind) {
  check_space(g, kind);
  try {
    if (g.kind == GraphKind::Tile)
      return std::make_unique<TileConfigSpace>(g.config_feat_width, known, g.groups.group_size, kind,
                                               tile_roots(g.pruned.num_nodes(), g.node_feat_width, g.node_feat));
    const int64_t nc = static_cast<int64_t>(g.pruned.config_positions.size());
    const LayoutContext ctx = layout_context(g.pruned.num_nodes(), g.node_feat_width, g.node_feat, g.node_opcode,
                                             g.pruned.edge_index, g.pruned.config_positions);
    return std::make_unique<LayoutConfigSpace>(nc, g.config_feat_width, known, g.groups.group_size, ctx, kind);
  } catch (const Error& e) {
    throw Error(g.source, "", e.what());
  }
}

}  // namespace fastslow
