// The memory budget (io/memory_budget.h): sizes parsed and printed, the
// default, and every reader refusing what a file claims beyond it, naming
// the file, the array and the size, before reading: a 4 MB npz whose
// node_feat claims 4 GB of deflated zeros (issue 20) among them. Streaming
// readers (graph_info's config features) take arrays larger than the budget;
// the real samples still read with the default budget.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/validate.h"
#include "fastslow/io/memory_budget.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/zip.h"
#include "graph_builders.h"
#include "test_support.h"

using namespace fastslow;
using test::GraphArrays;
using test::SmallLayout;
using test::SmallTile;

namespace {

constexpr uint64_t kMB = uint64_t(1) << 20;
constexpr uint64_t kGB = uint64_t(1) << 30;

// The hand-made layout graph (6 nodes) with node_feat claiming 6 x 178956971
// float32 = 4.0 GB of zeros, in about 4 MB.
std::vector<uint8_t> layout_bomb() {
  return test::npz_bomb(SmallLayout::arrays().bytes(Compression::Deflate), "node_feat", {6, 178956971});
}

// The Error f throws (fails the test when it throws none or another type).
template <class F>
Error error_from(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no fastslow::Error thrown";
  return Error("none");
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(MemoryBudgetSizes, ParseUnitsPercentAndBytes) {
  uint64_t b = 0;
  ASSERT_TRUE(parse_memory_size("512M", &b));
  EXPECT_EQ(b, 512 * kMB);
  ASSERT_TRUE(parse_memory_size("8G", &b));
  EXPECT_EQ(b, 8 * kGB);
  ASSERT_TRUE(parse_memory_size("8gb", &b));
  EXPECT_EQ(b, 8 * kGB);
  ASSERT_TRUE(parse_memory_size("8GiB", &b));
  EXPECT_EQ(b, 8 * kGB);
  ASSERT_TRUE(parse_memory_size("1.5G", &b));
  EXPECT_EQ(b, 3 * kGB / 2);
  ASSERT_TRUE(parse_memory_size("64k", &b));
  EXPECT_EQ(b, 64u * 1024);
  ASSERT_TRUE(parse_memory_size("2T", &b));
  EXPECT_EQ(b, 2048 * kGB);
  ASSERT_TRUE(parse_memory_size("4096", &b));
  EXPECT_EQ(b, 4096u);
  ASSERT_TRUE(parse_memory_size("100B", &b));
  EXPECT_EQ(b, 100u);
  ASSERT_TRUE(parse_memory_size("50%", &b));
  EXPECT_NEAR(static_cast<double>(b), static_cast<double>(memory_limit()) / 2, 1.0);
  for (const char* bad : {"", "M", "0", "0.2", "-1", "1.2.3", "5X", "5 MBs", "101%", "1e9", "12QB", "G8"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parse_memory_size(bad, &b));
  }
}

TEST(MemoryBudgetSizes, PrintedInPowersOf1024) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1), "1 byte");
  EXPECT_EQ(format_bytes(1000), "1000 bytes");
  EXPECT_EQ(format_bytes(16 * 1024), "16 KB");
  EXPECT_EQ(format_bytes(kMB - 1), "1.0 MB");  // not "1024 KB"
  EXPECT_EQ(format_bytes(3 * kGB / 2), "1.5 GB");
  EXPECT_EQ(format_bytes(4 * kGB), "4.0 GB");
  EXPECT_EQ(format_bytes(12 * kGB), "12 GB");
  EXPECT_EQ(format_bytes(~uint64_t(0)), "16 EB");
}

TEST(MemoryBudgetDefault, HalfOfWhatTheProcessMayUseAndScopedOverrides) {
  EXPECT_GT(memory_limit(), 64 * kMB);
  EXPECT_EQ(default_memory_budget(), memory_limit() / 2);
  EXPECT_EQ(memory_budget(), default_memory_budget());
  {
    ScopedMemoryBudget small(kMB);
    EXPECT_EQ(memory_budget(), kMB);
    {
      ScopedMemoryBudget smaller(1000);
      EXPECT_EQ(memory_budget(), 1000u);
    }
    EXPECT_EQ(memory_budget(), kMB);
  }
  EXPECT_EQ(memory_budget(), default_memory_budget());
  // Without an override the message says where the default comes from.
  const Error e = error_from([] { check_memory_budget(~uint64_t(0), "f.npz", "a", "claims a lot"); });
  EXPECT_TRUE(contains(e.problem(), "over the memory budget of " + format_bytes(default_memory_budget()))) << e.what();
#ifdef __EMSCRIPTEN__
  EXPECT_TRUE(contains(e.problem(), "wasm memory limit")) << e.what();
#else
  EXPECT_TRUE(contains(e.problem(), "--max-memory changes it")) << e.what();
#endif
}

TEST(MemoryBudgetBomb, IsAValidArchiveThatReadsWhereTheBudgetAllows) {
  // The same construction at 96 MB (six 16 MB pieces): the stream inflates
  // to zeros and its CRC-32 matches, so the bomb is a well-formed npz.
  const std::vector<uint8_t> bytes =
      test::npz_bomb(SmallLayout::arrays().bytes(Compression::Deflate), "node_feat", {6, 4 << 20});
  EXPECT_LT(bytes.size(), 200u * 1024);
  const NpzReader npz = NpzReader::from_memory("small_bomb.npz", bytes);
  const NpyArray a = npz.read("node_feat");
  ASSERT_EQ(a.nbytes(), 96 * kMB);
  const float* v = a.as<float>();
  size_t nonzero = 0;
  for (int64_t i = 0; i < a.count(); ++i) nonzero += v[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  const GraphInfo info = graph_info(npz);
  EXPECT_EQ(info.nodes, 6);
  EXPECT_EQ(info.node_feat_width, 4 << 20);
  EXPECT_EQ(info.unique_configs, 3);
}

TEST(MemoryBudgetBomb, ReaderRefusesNamingTheFileTheArrayAndTheSize) {
  const std::vector<uint8_t> bytes = layout_bomb();
  EXPECT_LT(bytes.size(), 5 * kMB);  // a 4 MB file...
  const NpzReader npz = NpzReader::from_memory("bomb.npz", bytes);  // opening reads headers only
  EXPECT_EQ(npz.header("node_feat").data_bytes(), 6 * uint64_t(178956971) * 4);  // ...claiming 4 GB
  ScopedMemoryBudget budget(kGB);
  const Error e = error_from([&] { npz.read("node_feat"); });
  EXPECT_EQ(e.file(), "bomb.npz");
  EXPECT_EQ(e.array(), "node_feat");
  EXPECT_EQ(e.problem(), "claims 4.0 GB of data, over the memory budget of 1.0 GB (--max-memory)");
  EXPECT_EQ(std::string(e.what()), "bomb.npz: array 'node_feat': " + e.problem());
  const Error rows = error_from([&] { npz.read_rows("node_feat", 0, 6); });
  EXPECT_EQ(rows.array(), "node_feat");
  EXPECT_TRUE(contains(rows.problem(), "reading 6 rows of 683 MB takes 4.0 GB, over the memory budget of 1.0 GB"))
      << rows.what();
  const Error picked = error_from([&] { npz.read_rows("node_feat", std::vector<int64_t>{5, 0}); });
  EXPECT_TRUE(contains(picked.problem(), "reading 2 rows")) << picked.what();
  // One row (683 MB) fits a 1 GB budget; a smaller budget refuses even that
  // before streaming.
  ScopedMemoryBudget smaller(256 * kMB);
  const Error row = error_from([&] { npz.for_each_chunk("node_feat", 1, [](int64_t, const NpyArray&) {}); });
  EXPECT_EQ(row.problem(), "one row claims 683 MB of data, over the memory budget of 256 MB (--max-memory)");
}

TEST(MemoryBudgetBomb, GraphLoadingAndInfoRefuseBeforeReadingAnything) {
  std::vector<uint8_t> bytes = layout_bomb();
  // Spoil the bomb's deflate stream: a loader that read before checking
  // would fail on the corrupt data instead (or, given the memory, inflate 4 GB).
  {
    const auto src = memory_view_source("b", bytes.data(), bytes.size());
    for (const ZipEntry& e : read_zip_directory(*src))
      if (e.name == "node_feat.npy")
        for (uint64_t i = e.data_offset + 4096; i < e.data_offset + e.compressed_size; i += 997) bytes[i] ^= 0x5a;
  }
  const NpzReader npz = NpzReader::from_memory("bomb.npz", bytes);
  ScopedMemoryBudget budget(kGB);
  const std::string want =
      "claims 4.0 GB of data; loading the graph takes 8.0 GB, over the memory budget of 1.0 GB (--max-memory)";
  for (int way = 0; way < 4; ++way) {
    SCOPED_TRACE(way);
    const Error e = error_from([&] {
      if (way == 0) load_layout_graph(npz);
      if (way == 1) load_layout_graph(npz, LoadOptions{false});
      if (way == 2) load_graph(npz);
      if (way == 3) graph_info(npz);
    });
    EXPECT_EQ(e.file(), "bomb.npz");
    EXPECT_EQ(e.array(), "node_feat");
    EXPECT_EQ(e.problem(), want);
  }
}

TEST(MemoryBudgetBomb, TileFilesToo) {
  const std::vector<uint8_t> base = SmallTile::arrays().bytes(Compression::Deflate);
  ScopedMemoryBudget budget(kGB);
  {
    const NpzReader npz = NpzReader::from_memory("tile_bomb.npz", test::npz_bomb(base, "node_feat", {6, 178956971}));
    const Error e = error_from([&] { graph_info(npz); });
    EXPECT_EQ(e.array(), "node_feat");
    EXPECT_TRUE(contains(e.problem(), "claims 4.0 GB of data; loading the graph takes 8.0 GB")) << e.what();
  }
  {
    // config_feat claiming 4.0 GB: loading the features refuses; graph_info
    // would stream them (not tried here: it would inflate 4 GB of zeros).
    const NpzReader npz = NpzReader::from_memory("tile_bomb.npz", test::npz_bomb(base, "config_feat", {4, 268435456}));
    const Error e = error_from([&] { load_tile_graph(npz); });
    EXPECT_EQ(e.array(), "config_feat");
    EXPECT_TRUE(contains(e.problem(), "claims 4.0 GB of data")) << e.what();
  }
}

TEST(MemoryBudgetEdges, AnArrayJustUnderTheBudgetReadsAndOneByteMoreDoesNot) {
  std::vector<float> values(256 * 1024);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97);
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    NpzWriter w(c);
    w.add("x", values, {1024, 256});
    const NpzReader npz = NpzReader::from_memory("edge.npz", w.close_to_memory());
    {
      ScopedMemoryBudget exact(kMB);
      const NpyArray a = npz.read("x");
      EXPECT_EQ(a.as<float>()[1000], static_cast<float>(1000 % 97));
    }
    ScopedMemoryBudget under(kMB - 1);
    const Error e = error_from([&] { npz.read("x"); });
    // Both round to 1.0 MB: the message gives the bytes.
    EXPECT_EQ(e.problem(),
              "claims 1.0 MB of data, over the memory budget of 1.0 MB (--max-memory; 1048576 bytes > 1048575)");
  }
}

TEST(MemoryBudgetEdges, GraphLoadingCountsEveryArrayItKeeps) {
  // SmallLayout kept: node_feat 6x7 float (168 bytes), node_opcode 6 int32 (24),
  // edge_index 7x2 int64 (112), node_config_ids 3 (24), config_runtime 5 (40),
  // node_splits 2 (16) = 384; at the peak node_feat's file copy (168) as well.
  const NpzReader npz = SmallLayout::arrays().reader("small.npz");
  {
    ScopedMemoryBudget exact(552);
    EXPECT_EQ(load_layout_graph(npz, LoadOptions{false}).num_nodes, 6);
  }
  ScopedMemoryBudget under(551);
  const Error e = error_from([&] { load_layout_graph(npz, LoadOptions{false}); });
  EXPECT_EQ(e.array(), "node_feat");
  EXPECT_EQ(e.problem(), "claims 168 bytes of data; loading the graph takes 552 bytes, over the memory budget of 551 "
                         "bytes (--max-memory)");
  // The config features, when loaded, and what the caller keeps per config count too.
  // (node_config_feat: 5x3x4 float, 240 bytes held and 240 read, the peak).
  LoadOptions per_config;
  per_config.config_features = false;
  per_config.bytes_per_config = 100;
  {
    ScopedMemoryBudget more(1051);
    // 1052 and 1051 bytes both print as 1.0 KB: the bytes follow.
    EXPECT_EQ(error_from([&] { load_layout_graph(npz, per_config); }).problem(),
              "claims 168 bytes of data; loading the graph takes 1.0 KB, over the memory budget of 1.0 KB "
              "(--max-memory; 1052 bytes > 1051)");
  }
  ScopedMemoryBudget more(863);
  const Error features = error_from([&] { load_layout_graph(npz); });
  EXPECT_EQ(features.array(), "node_config_feat");
  EXPECT_TRUE(contains(features.problem(), "claims 240 bytes of data; loading the graph takes 864 bytes")) << features.what();
  ScopedMemoryBudget enough(864);
  EXPECT_EQ(load_layout_graph(npz).node_config_feat.size(), 60u);
}

TEST(MemoryBudgetStreaming, InfoStreamsConfigFeaturesLargerThanTheBudget) {
  // AlexNet's node_config_feat is 47 MB; a 16 MB budget cannot hold it, but
  // graph_info streams it in chunks of a quarter of the budget and gives
  // the same figures.
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const GraphInfo full = graph_info(npz);
  ScopedMemoryBudget budget(16 * kMB);
  const GraphInfo streamed = graph_info(npz);
  EXPECT_EQ(streamed.unique_configs, 29905);
  EXPECT_EQ(streamed.unique_configs, full.unique_configs);
  EXPECT_EQ(graph_info_json(streamed), graph_info_json(full));
  const Error e = error_from([&] { load_layout_graph(npz); });
  EXPECT_EQ(e.array(), "node_config_feat");
  EXPECT_TRUE(contains(e.problem(), "claims 47 MB of data; loading the graph takes")) << e.what();
  int64_t rows = 0, chunks = 0;
  npz.for_each_chunk("node_config_feat", 1 << 30, [&](int64_t first, const NpyArray& c) {
    EXPECT_EQ(first, rows);
    EXPECT_LE(c.nbytes(), 4 * kMB);
    rows += c.dim(0);
    ++chunks;
  });
  EXPECT_EQ(rows, 47712);
  EXPECT_GE(chunks, 12);
}

TEST(MemoryBudgetStreaming, TileInfoStreamsConfigFeaturesWithTheSameFindings) {
  // 20,000 configs of width 240 (18 MB of float32) with repeats and a NaN.
  GraphArrays a = SmallTile::arrays();
  const int64_t configs = 20000, width = 240;
  std::vector<float> feat(static_cast<size_t>(configs * width));
  for (int64_t c = 0; c < configs; ++c)
    for (int64_t j = 0; j < width; ++j) feat[c * width + j] = static_cast<float>((c % 7000) * 3 + j % 5);
  feat[12345 * width + 17] = std::numeric_limits<float>::quiet_NaN();
  std::vector<int64_t> runtime(configs), norm(configs, 1000);
  for (int64_t c = 0; c < configs; ++c) runtime[c] = 1000 + c % 13;
  a.set("config_feat", feat, {configs, width});
  a.set("config_runtime", runtime, {configs});
  a.set("config_runtime_normalizers", norm, {configs});
  const NpzReader npz = a.reader("big_tile.npz", Compression::Deflate);
  // What info reported when it loaded the features whole: validate() of the
  // whole graph, and the groups of the whole array.
  const TileGraph whole = load_tile_graph(npz);
  const std::vector<Problem> problems = validate(whole);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].message, "1 non-finite values (first at [12345, 17])");
  ScopedMemoryBudget budget(8 * kMB);
  const GraphInfo info = graph_info(npz);
  EXPECT_EQ(info.configs, configs);
  EXPECT_EQ(info.unique_configs, 7001);  // 7000 repeated rows, and the one with the NaN
  ASSERT_EQ(info.problems.size(), problems.size());
  for (size_t i = 0; i < problems.size(); ++i) {
    EXPECT_EQ(info.problems[i].array, problems[i].array);
    EXPECT_EQ(info.problems[i].message, problems[i].message);
  }
  EXPECT_EQ(error_from([&] { load_tile_graph(npz); }).array(), "config_feat");
}

TEST(MemoryBudgetStreaming, TileInfoKeepsTheOrderOfProblems) {
  // A non-finite config feature is reported after the node arrays' problems
  // and before the runtimes', as validate() orders them.
  GraphArrays a = SmallTile::arrays();
  std::vector<float> feat = SmallTile::config_feat();
  feat[3] = std::numeric_limits<float>::infinity();
  a.set("config_feat", feat, {SmallTile::kConfigs, SmallTile::kConfigFeatWidth});
  a.set("config_runtime_normalizers", std::vector<int64_t>{500, 0, 500, 1000}, {SmallTile::kConfigs});
  a.set("edge_index", std::vector<int64_t>{1, 0, 2, 0, 2, 1, 3, 2, 4, 3, 5, 4, 9, 1}, {test::SmallNodes::kEdges, 2});
  const NpzReader npz = a.reader("t.npz");
  const std::vector<Problem> want = validate(load_tile_graph(npz));
  const GraphInfo info = graph_info(npz);
  ASSERT_EQ(info.problems.size(), want.size());
  ASSERT_GE(want.size(), 3u);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(info.problems[i].array, want[i].array) << i;
    EXPECT_EQ(info.problems[i].message, want[i].message) << i;
  }
}

TEST(MemoryBudgetReal, SamplesReadWithTheDefaultBudget) {
  std::vector<std::string> files = {test::data_file("cleaned_alexnet.npz")};
  for (const auto& e : std::filesystem::directory_iterator(test::data_file("real")))
    if (e.path().extension() == ".npz") files.push_back(e.path().string());
  ASSERT_GE(files.size(), 2u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const NpzReader npz = NpzReader::open(f);
    for (const std::string& name : npz.names()) EXPECT_EQ(npz.read(name).nbytes(), npz.header(name).data_bytes());
    const GraphInfo info = graph_info(npz);
    EXPECT_FALSE(has_errors(info.problems));
    EXPECT_GT(info.unique_configs, 0);
    load_graph(npz);
  }
}

TEST(MemoryBudgetEdges, ZipDirectoryAndWholeFiles) {
  const std::vector<uint8_t> alexnet = test::read_bytes(test::data_file("cleaned_alexnet.npz"));
  {
    ScopedMemoryBudget tiny(256);
    const Error e = error_from([&] { NpzReader::from_memory("a.npz", alexnet); });
    EXPECT_EQ(e.array(), "");
    EXPECT_TRUE(contains(e.problem(), "its zip directory of 7 entries takes")) << e.what();
  }
  test::TempDir dir;
  const std::string path = dir.file("notes.csv");
  test::write_bytes(path, std::vector<uint8_t>(10 * 1024, 'x'));
  EXPECT_EQ(read_whole_file(path).size(), 10u * 1024);
  {
    ScopedMemoryBudget small(4 * 1024);
    const Error e = error_from([&] { read_whole_file(path); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.problem(), "is 10 KB, over the memory budget of 4.0 KB (--max-memory)");
  }
  const Error missing = error_from([&] { read_whole_file(dir.file("none.csv"), "cannot open for reading"); });
  EXPECT_EQ(missing.problem(), "cannot open for reading");
}
