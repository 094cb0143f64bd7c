#include "fastslow/data/graph_cache.h"
#include "fastslow/graph/graph_info.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <tuple>

#include "fastslow/error.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using test::SmallLayout;
using test::SmallTile;

int64_t mtime_ns(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

TEST(GraphCache, LayoutIsPrunedGroupedAndRowsMatchTheSource) {
  test::TempDir dir;
  const std::string src = dir.file("small.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes(Compression::Deflate));
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(c.kind, GraphKind::Layout);
  EXPECT_EQ(c.original_nodes, SmallLayout::kNodes);
  EXPECT_EQ(c.num_configs, SmallLayout::kConfigs);
  // Configs 0/3 and 1/4 are copies: three groups, minimum runtimes kept.
  ASSERT_EQ(c.groups.num_groups(), 3);
  EXPECT_EQ(c.groups.group_of, (std::vector<int64_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(c.groups.best_runtime, (std::vector<double>{400, 700, 300}));
  EXPECT_EQ(c.runtime, (std::vector<double>{500, 700, 300, 400, 700}));
  EXPECT_EQ(c.config_row_elems, SmallLayout::kConfigurable * SmallLayout::kConfigFeatWidth);
  // Rows of groups 2 then 0: configs 2 and 3 (the representative of group 0).
  const std::vector<float> rows = c.config_rows({2, 0});
  const std::vector<float> all = SmallLayout::config_feat();
  const int64_t r = c.config_row_elems;
  EXPECT_EQ(std::vector<float>(rows.begin(), rows.begin() + r), std::vector<float>(all.begin() + 2 * r, all.begin() + 3 * r));
  EXPECT_EQ(std::vector<float>(rows.begin() + r, rows.end()), std::vector<float>(all.begin() + 3 * r, all.begin() + 4 * r));
  // Node features and opcodes follow the kept nodes.
  ASSERT_EQ(static_cast<int64_t>(c.node_opcode.size()), c.pruned.num_nodes());
  for (int64_t i = 0; i < c.pruned.num_nodes(); ++i) {
    const int64_t orig = c.pruned.kept[i];
    EXPECT_EQ(c.node_opcode[i], SmallLayout::opcodes()[orig]);
    EXPECT_FLOAT_EQ(c.node_feat[i * c.node_feat_width + 2], SmallLayout::feat(orig, 2));
  }
  EXPECT_EQ(c.pruned.config_positions.size(), 3u);
  EXPECT_THROW(c.config_rows({3}), Error);
}

TEST(GraphCache, IntegralLayoutRowsAreStoredAsInt8OthersAsFloat) {
  test::TempDir dir;
  const std::string src = dir.file("small.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes());
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(NpzReader::open(c.path).header("config_rows").dtype, DType::I8);

  // Values outside int8's integers only warn in validation: they are cached
  // as float32, exactly.
  std::vector<float> f = SmallLayout::config_feat();
  f[1] = 0.5f;
  f[13] = 300.0f;
  test::write_bytes(src, SmallLayout::arrays().set("node_config_feat", f, {5, 3, 4}).bytes());
  const CachedGraph d = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(NpzReader::open(d.path).header("config_rows").dtype, DType::F32);
  const std::vector<float> rows = d.config_rows({0, 1});
  EXPECT_EQ(rows[1], 0.5f);
  EXPECT_EQ(rows[d.config_row_elems + 1], 300.0f);
}

TEST(GraphCache, OneFileReachedThroughALinkSharesItsEntry) {
  test::TempDir dir;
  const std::string src = dir.file("small.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes());
  std::filesystem::create_directories(dir.file("other"));
  const std::string link = dir.file("other/alias.npz");
  std::filesystem::create_symlink(src, link);
  const CachedGraph a = CachedGraph::open(src, {dir.file("cache"), 1});
  const CachedGraph b = CachedGraph::open(link, {dir.file("cache"), 1});
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(b.source, link);  // errors still name the path the user gave
}

TEST(GraphCache, TileTargetsAreRuntimeOverNormalizer) {
  test::TempDir dir;
  const std::string src = dir.file("tile.npz");
  test::write_bytes(src, SmallTile::arrays().bytes());
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(c.kind, GraphKind::Tile);
  EXPECT_EQ(c.pruned.num_nodes(), SmallTile::kNodes);  // tile graphs are never pruned
  EXPECT_EQ(c.groups.num_groups(), 3);
  ASSERT_EQ(c.runtime.size(), 4u);
  const TileGraph g = load_tile_graph(SmallTile::arrays().reader());
  EXPECT_EQ(c.runtime, g.target());
  EXPECT_EQ(c.config_row_elems, SmallTile::kConfigFeatWidth);
}

TEST(GraphCache, ReusedUntilTheSourceOrOptionsChange) {
  test::TempDir dir;
  const std::string src = dir.file("small.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes());
  const CachedGraph a = CachedGraph::open(src, {dir.file("cache"), 1});
  const int64_t built = mtime_ns(a.path);
  const CachedGraph b = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(b.path, a.path);
  EXPECT_EQ(mtime_ns(b.path), built);  // not rewritten

  const CachedGraph whole = CachedGraph::open(src, {dir.file("cache"), 0});
  EXPECT_NE(whole.path, a.path);
  EXPECT_EQ(whole.pruned.num_nodes(), SmallLayout::kNodes);

  // A changed source (different size) is rebuilt.
  test::GraphArrays changed = SmallLayout::arrays();
  changed.set("config_runtime", std::vector<int64_t>{1, 2, 3, 4, 5}, {5});
  changed.set("extra", std::vector<int64_t>{1}, {1});
  test::write_bytes(src, changed.bytes());
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(c.runtime, (std::vector<double>{1, 2, 3, 4, 5}));

  // Same size, same modification time (a rewrite within a coarse clock's
  // tick): the arrays' checksums still tell.
  const auto when = std::filesystem::last_write_time(src);
  changed.set("config_runtime", std::vector<int64_t>{5, 4, 3, 2, 1}, {5});
  test::write_bytes(src, changed.bytes());
  std::filesystem::last_write_time(src, when);
  const CachedGraph d = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(d.runtime, (std::vector<double>{5, 4, 3, 2, 1}));
}

TEST(GraphCache, TestSplitFilesHaveNoRuntimes) {
  test::TempDir dir;
  const std::string src = dir.file("test.npz");
  test::write_bytes(src, SmallLayout::arrays().set("config_runtime", std::vector<int64_t>(5, 0), {5}).bytes());
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_FALSE(c.has_runtime());
  EXPECT_EQ(c.groups.num_groups(), 3);
}

TEST(GraphCache, BadInputNamesTheSource) {
  test::TempDir dir;
  const std::string src = dir.file("broken.npz");
  test::write_bytes(src, {'P', 'K', 3, 4, 0, 0});
  const std::string msg = test::error_of([&] { CachedGraph::open(src, {dir.file("cache"), 1}); });
  EXPECT_NE(msg.find("broken.npz"), std::string::npos) << msg;
  const std::string missing = test::error_of([&] { CachedGraph::open(dir.file("none.npz"), {dir.file("cache"), 1}); });
  EXPECT_NE(missing.find("none.npz"), std::string::npos) << missing;
  // Non-finite config values are refused before anything is cached.
  test::GraphArrays bad = SmallLayout::arrays();
  std::vector<float> f = SmallLayout::config_feat();
  f[4] = std::nanf("");
  bad.set("node_config_feat", f, {5, 3, 4});
  test::write_bytes(src, bad.bytes());
  const std::string range = test::error_of([&] { CachedGraph::open(src, {dir.file("cache"), 1}); });
  EXPECT_NE(range.find("broken.npz"), std::string::npos) << range;
  EXPECT_NE(range.find("non-finite"), std::string::npos) << range;
}

// Every field of a cached graph, to compare at once.
auto fields(const CachedGraph& c) {
  return std::tie(c.kind, c.original_nodes, c.original_edges, c.pruned.kept, c.pruned.edge_index,
                  c.pruned.config_positions, c.node_feat_width, c.node_feat, c.node_opcode, c.num_configs,
                  c.config_feat_width, c.config_row_elems, c.groups.group_of, c.groups.representative,
                  c.groups.best_runtime, c.groups.group_size, c.runtime);
}

// Field for field and row for row: what the page ranks from (its document's
// bytes, prepared in memory) is what `fastslow rank` ranks from (a cache file).
void expect_same_graph(const CachedGraph& file, const CachedGraph& mem) {
  EXPECT_TRUE(fields(mem) == fields(file));
  std::vector<int64_t> all(static_cast<size_t>(file.groups.num_groups()));
  for (size_t g = 0; g < all.size(); ++g) all[g] = static_cast<int64_t>(g);
  EXPECT_EQ(mem.config_rows(all), file.config_rows(all));
}

TEST(GraphCache, BuiltInMemoryFromAnOpenArchiveEqualsTheCacheFile) {
  for (const char* name : {"real/layout_xla_default_train_unet3d.npz",
                           "real/tile_xla_valid_inception_v3_batch_128_train_426e203f19335d17.npz"}) {
    SCOPED_TRACE(name);
    const std::string src = test::data_file(name);
    test::TempDir dir;
    const NpzReader opened = NpzReader::from_memory("opened.npz", test::read_bytes(src));
    for (int khop : {1, 0}) {
      const CachedGraph file = CachedGraph::open(src, {dir.file("cache"), khop});
      const CachedGraph mem = CachedGraph::in_memory(opened, khop);
      EXPECT_GT(file.groups.num_groups(), 1);
      expect_same_graph(file, mem);
      EXPECT_EQ(mem.source, "opened.npz");
      EXPECT_EQ(mem.path, "");
    }
  }
}

// The page's document has grouped the file on open (graph_info): a ranking
// prepares from those groups rather than grouping the configs again, and
// gets what grouping them would give.
TEST(GraphCache, BuiltInMemoryFromGroupsFoundOnOpen) {
  for (const char* name : {"real/layout_xla_default_train_unet3d.npz",
                           "real/tile_xla_valid_inception_v3_batch_128_train_426e203f19335d17.npz"}) {
    SCOPED_TRACE(name);
    const NpzReader opened = NpzReader::from_memory("opened.npz", test::read_bytes(test::data_file(name)));
    GraphContents contents;
    graph_info(opened, &contents);
    const CachedGraph known = CachedGraph::in_memory(opened, 1, &contents);
    expect_same_graph(CachedGraph::in_memory(opened, 1), known);
    // The groups handed over are the ones used: one group for every config
    // (a made-up grouping) comes out as such.
    GraphContents one = contents;
    std::fill(one.groups.group_of.begin(), one.groups.group_of.end(), 0);
    one.groups.representative = {0};
    one.groups.best_runtime = {contents.groups.best_runtime.at(0)};
    one.groups.group_size = {one.groups.num_configs()};
    EXPECT_EQ(CachedGraph::in_memory(opened, 1, &one).groups.num_groups(), 1);
    // Another file's groups are refused.
    GraphContents other = contents;
    other.groups.group_of.pop_back();
    EXPECT_NE(test::error_of([&] { CachedGraph::in_memory(opened, 1, &other); }).find("another file's"),
              std::string::npos);
  }
}

TEST(GraphCache, BuiltInMemoryBadInputNamesTheArchive) {
  std::vector<float> f = SmallLayout::config_feat();
  f[4] = std::nanf("");
  const NpzReader bad = SmallLayout::arrays().set("node_config_feat", f, {5, 3, 4}).reader("dropped.npz");
  const std::string msg = test::error_of([&] { CachedGraph::in_memory(bad, 1); });
  EXPECT_NE(msg.find("dropped.npz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("non-finite"), std::string::npos) << msg;
  const NpzReader good = SmallLayout::arrays().reader("dropped.npz");
  EXPECT_NE(test::error_of([&] { CachedGraph::in_memory(good, -1); }).find("khop must be >= 0"), std::string::npos);
}

TEST(GraphCache, RealAlexNetGroupsAndRows) {
  const std::string src = test::data_file("cleaned_alexnet.npz");
  if (!std::filesystem::exists(src)) GTEST_SKIP() << "no " << src;
  test::TempDir dir;
  const CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  EXPECT_EQ(c.num_configs, 47712);
  EXPECT_EQ(c.groups.num_groups(), 29905);
  EXPECT_EQ(c.original_nodes, 372);
  EXPECT_LT(c.pruned.num_nodes(), 372);
  EXPECT_EQ(c.config_row_elems, 26 * 10);
  // A group's cached row equals its representative's row in the deflated source.
  const NpzReader npz = NpzReader::open(src);
  for (int64_t g : {int64_t{0}, int64_t{12345}, int64_t{29904}}) {
    const std::vector<float> cached = c.config_rows({g});
    const std::vector<float> orig = npz.read_rows("node_config_feat", {c.groups.representative[g]}).to_float();
    EXPECT_EQ(cached, orig) << "group " << g;
  }
}

}  // namespace
}  // namespace fastslow
