#include "fastslow/synth/dataset.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/synth/price.h"
#include "fastslow/graph/graph.h"
#include "test_support.h"

using namespace fastslow;
using namespace fastslow::synth;
namespace fs = std::filesystem;

namespace {

// One tiny dataset shared by the tests of this file: generating it is the
// slow part.
const std::string& tiny_dataset() {
  static test::TempDir* dir = new test::TempDir();  // lives for the process
  static bool made = false;
  if (!made) {
    EXPECT_TRUE(synth_dataset(dir->path(), SynthScale::Tiny, 7, nullptr));
    made = true;
  }
  return dir->path();
}

std::vector<double> doubles(const NpyArray& a) { return a.to_double(); }

}  // namespace

TEST(SynthPlan, TinyCoversEveryCollectionAndSplit) {
  const std::vector<SynthItem> plan = synth_plan(SynthScale::Tiny, 1);
  std::map<std::string, std::set<std::string>> splits;
  std::set<std::string> paths;
  for (const SynthItem& i : plan) {
    splits[i.collection].insert(i.split);
    EXPECT_TRUE(paths.insert(i.path).second) << i.path;
    EXPECT_GT(i.configs, 0);
    EXPECT_EQ(i.path.rfind("npz/", 0), 0u);
  }
  EXPECT_EQ(splits.size(), 5u);
  for (const auto& [c, s] : splits) EXPECT_EQ(s.size(), 3u) << c;
}

TEST(SynthPlan, FullMirrorsThePublishedFileCounts) {
  std::map<std::string, int> count;
  for (const SynthItem& i : synth_plan(SynthScale::Full, 1)) ++count[i.collection + "/" + i.split];
  EXPECT_EQ(count["tile:xla/train"], 5709);
  EXPECT_EQ(count["tile:xla/valid"], 676);
  EXPECT_EQ(count["tile:xla/test"], 844);
  EXPECT_EQ(count["layout:nlp:default/train"], 198);
  EXPECT_EQ(count["layout:nlp:random/train"], 207);
  EXPECT_EQ(count["layout:xla:default/test"], 8);
  EXPECT_EQ(count["layout:xla:random/train"], 69);
}

TEST(SynthPlan, SeedDecidesThePlan) {
  const auto a = synth_plan(SynthScale::Small, 1), b = synth_plan(SynthScale::Small, 1),
             c = synth_plan(SynthScale::Small, 2);
  ASSERT_EQ(a.size(), b.size());
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seed, b[i].seed);
    EXPECT_EQ(a[i].configs, b[i].configs);
    differs |= a[i].seed != c[i].seed;
  }
  EXPECT_TRUE(differs);
}

TEST(SynthPlan, TrainingSeesEveryTemplateThatValidationAndTestHold) {
  for (SynthScale scale : {SynthScale::Small, SynthScale::Full}) {
    for (uint64_t seed : {0ull, 1ull, 7ull}) {
      std::map<std::string, std::map<std::string, std::map<int, int>>> seen;  // collection, split, template
      for (const SynthItem& item : synth_plan(scale, seed))
        if (!item.tile()) ++seen[item.collection][item.split][static_cast<int>(item.model)];
      ASSERT_EQ(seen.size(), 4u);
      for (auto& [collection, splits] : seen) {
        // xla: ResNets, U-Net training steps, MLPs, RNNs; nlp: transformers,
        // BERT training steps, MLPs, RNNs.
        EXPECT_EQ(splits["train"].size(), 4u) << collection << " seed " << seed;
        for (const char* held : {"valid", "test"})
          for (const auto& [model, n] : splits[held]) EXPECT_GT(splits["train"][model], 0) << collection;
        // The common template stays the majority of every split.
        int most = 0, total = 0;
        for (const auto& [model, n] : splits["valid"]) most = std::max(most, n), total += n;
        EXPECT_GT(2 * most, total) << collection;
      }
    }
  }
}

TEST(SynthDataset, WritesThePublishedTreeThatTheCoreReads) {
  const std::string& dir = tiny_dataset();
  const std::vector<Collection> cs = discover_collections(dir);
  ASSERT_EQ(cs.size(), 5u);
  for (const Collection& c : cs) {
    for (const char* split : {"train", "valid", "test"}) {
      ASSERT_FALSE(c.split(split).empty()) << c.id.str() << " " << split;
      for (const std::string& f : c.split(split)) {
        const GraphInfo info = graph_info(NpzReader::open(f));
        EXPECT_FALSE(has_errors(info.problems)) << f << "\n" << graph_info_text(info);
        EXPECT_EQ(info.kind, c.id.kind) << f;
        EXPECT_EQ(info.node_feat_width, 140);
        EXPECT_EQ(info.config_feat_width, c.id.kind == GraphKind::Tile ? 24 : 18);
        if (std::string(split) == "test") {
          EXPECT_EQ(info.runtime.max, 0) << "test files carry zero runtimes: " << f;
        } else {
          EXPECT_GT(info.runtime.min, 0) << f;
        }
      }
    }
  }
}

TEST(SynthDataset, UsesTheRealDtypes) {
  const Collection c = find_collection(tiny_dataset(), "layout:nlp:random");
  const NpzReader npz = NpzReader::open(c.split("train")[0]);
  EXPECT_TRUE(npz.compressed("node_config_feat"));
  EXPECT_EQ(npz.header("node_opcode").dtype, DType::U8);
  EXPECT_EQ(npz.header("edge_index").dtype, DType::I64);
  EXPECT_EQ(npz.header("node_config_ids").dtype, DType::I64);
  EXPECT_EQ(npz.header("config_runtime").dtype, DType::I64);
  EXPECT_EQ(npz.header("node_config_feat").dtype, DType::F32);
  EXPECT_EQ(npz.header("node_splits").shape.size(), 2u);
}

TEST(SynthDataset, AnswersHoldTheHiddenRuntimesAndTheNoiseCeilingIsHigh) {
  const std::string& dir = tiny_dataset();
  for (const Collection& c : discover_collections(dir)) {
    std::vector<GraphMetrics> ceiling;
    for (const char* split : {"train", "valid", "test"}) {
      for (const std::string& f : c.split(split)) {
        const std::string rel = fs::relative(f, dir).string();
        const NpzReader ans = NpzReader::open(dir + "/answers/" + rel);
        const std::vector<double> measured = doubles(ans.read("config_runtime"));
        const std::vector<double> clean = doubles(ans.read("config_runtime_clean"));
        ASSERT_EQ(measured.size(), clean.size());
        for (double v : measured) ASSERT_GT(v, 0) << f;
        if (std::string(split) == "train") {
          EXPECT_EQ(doubles(NpzReader::open(f).read("config_runtime")), measured) << f;
        }
        GraphMetrics m;
        m.kendall = kendall_tau(measured, clean);
        ceiling.push_back(m);
      }
    }
    // The best score a model can reach: measurement noise (+-0.015 %)
    // reorders configs only inside the plateau of nearly equal runtimes.
    const double tau = summarize(ceiling).kendall;
    std::printf("[ figures  ] noise ceiling %s: Kendall %.4f over %zu graphs\n", c.id.str().c_str(), tau,
                ceiling.size());
    // What the generated-data issue asks: >= 0.95 on random collections
    // (and tile, whose configs are random too).
    if (c.id.search == "random" || c.id.kind == GraphKind::Tile) {
      EXPECT_GE(tau, 0.95) << c.id.str();
    }
  }
}

TEST(SynthDataset, SameSeedGivesIdenticalBytesAndResumes) {
  const std::string& a = tiny_dataset();
  test::TempDir b;
  ASSERT_TRUE(synth_dataset(b.path(), SynthScale::Tiny, 7, nullptr));
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), a).string();
    EXPECT_EQ(test::read_bytes(e.path().string()), test::read_bytes(b.path() + "/" + rel)) << rel;
    ++files;
  }
  EXPECT_GT(files, 40u);

  // Interrupt after 3 files, then resume: the result is the same dataset.
  test::TempDir c;
  size_t seen = 0;
  EXPECT_FALSE(synth_dataset(c.path(), SynthScale::Tiny, 7, [&](const SynthProgress&) { return ++seen < 3; }));
  const std::string victim = synth_plan(SynthScale::Tiny, 7)[1].path;
  fs::remove(c.path() + "/" + victim);
  SynthProgress last;
  EXPECT_TRUE(synth_dataset(c.path(), SynthScale::Tiny, 7, [&](const SynthProgress& p) {
    last = p;
    return true;
  }));
  EXPECT_EQ(last.skipped, 2u);
  EXPECT_EQ(test::read_bytes(c.path() + "/" + victim), test::read_bytes(a + "/" + victim));
}

TEST(SynthDataset, SameBytesOnEveryBuild) {
  // Checked with the same constants natively and in the wasm suite: a seed
  // gives one dataset whatever compiled the core (cost model included).
  const std::string& dir = tiny_dataset();
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over every file, in plan order
  for (const SynthItem& item : synth_plan(SynthScale::Tiny, 7)) {
    for (const std::string& f : {dir + "/" + item.path, dir + "/" + item.answer_path()})
      for (uint8_t b : test::read_bytes(f)) h = (h ^ b) * 0x100000001b3ull;
  }
  std::printf("[ fingerprint ] tiny seed 7: %llu\n", static_cast<unsigned long long>(h));
  EXPECT_EQ(h, 11805568706008497074ull);
}

TEST(SynthDataset, OneCollectionHoldsTheSameFilesAsTheWholeDataset) {
  const std::string& a = tiny_dataset();
  test::TempDir b;
  ASSERT_TRUE(synth_dataset(b.path(), SynthScale::Tiny, 7, nullptr, {"layout:nlp:random"}));
  size_t files = 0;
  for (const SynthItem& item : synth_plan(SynthScale::Tiny, 7)) {
    const bool mine = item.collection == "layout:nlp:random";
    EXPECT_EQ(fs::exists(b.path() + "/" + item.path), mine) << item.path;
    if (!mine) continue;
    EXPECT_EQ(test::read_bytes(b.path() + "/" + item.path), test::read_bytes(a + "/" + item.path)) << item.path;
    EXPECT_EQ(test::read_bytes(b.path() + "/" + item.answer_path()), test::read_bytes(a + "/" + item.answer_path()));
    ++files;
  }
  EXPECT_EQ(files, 5u);  // tiny: 3 train, 1 valid, 1 test
  // Resuming needs the same selection; a name that is no collection is refused.
  EXPECT_THROW(synth_dataset(b.path(), SynthScale::Tiny, 7, nullptr), Error);
  test::TempDir c;
  const std::string msg = test::error_of([&] { synth_dataset(c.path(), SynthScale::Tiny, 7, nullptr, {"layout:tpu"}); });
  EXPECT_NE(msg.find("unknown collection 'layout:tpu'"), std::string::npos) << msg;
}

TEST(SynthDataset, RefusesAFolderOfAnotherRun) {
  const std::string& a = tiny_dataset();
  EXPECT_THROW(synth_dataset(a, SynthScale::Tiny, 8, nullptr), Error);
  EXPECT_THROW(synth_dataset(a, SynthScale::Small, 7, nullptr), Error);
  test::TempDir d;
  test::write_bytes(d.file("notes.txt"), {'x'});
  EXPECT_THROW(synth_dataset(d.path(), SynthScale::Tiny, 7, nullptr), Error);
}

TEST(SynthDataset, NumpyLoadsGeneratedFiles) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const Collection c = find_collection(tiny_dataset(), "tile:xla");
  std::string out;
  ASSERT_EQ(test::run_python("import numpy as np\n"
                             "z = np.load('" + c.split("train")[0] + "')\n"
                             "assert z['config_feat'].shape[1] == 24 and z['node_feat'].shape[1] == 140\n"
                             "assert z['config_runtime'].dtype == np.int64 and (z['config_runtime'] > 0).all()\n"
                             "assert (z['config_runtime_normalizers'] > 0).all()\n",
                             &out),
            0)
      << out;
}

// The generator's cost model prices any config of a file it wrote: on the
// file's own configs it gives exactly the noise-free runtimes its answers
// file holds (what `fastslow synth --price` prints).
TEST(SynthPrice, EqualsTheGeneratorsRuntimesOnItsOwnFiles) {
  const std::string& dir = tiny_dataset();
  int priced = 0;
  for (const Collection& c : discover_collections(dir)) {
    const std::string f = c.split("valid").at(0);
    const Pricer p = Pricer::for_file(f);
    EXPECT_EQ(p.kind(), c.id.kind) << f;
    const Graph g = load_graph(NpzReader::open(f));
    const std::vector<float>& rows = c.id.kind == GraphKind::Tile ? std::get<TileGraph>(g).config_feat
                                                                   : std::get<LayoutGraph>(g).node_config_feat;
    const std::vector<int64_t> clean =
        NpzReader::open(dir + "/answers/" + fs::relative(f, dir).string()).read("config_runtime_clean").to_int64();
    EXPECT_EQ(p.runtimes_ns(rows), clean) << f;
    ++priced;
  }
  EXPECT_EQ(priced, 5);
}

TEST(SynthPrice, NamesTheFileWhenItCannotPriceIt) {
  const std::string& dir = tiny_dataset();
  const Collection c = find_collection(dir, "layout:xla:random");
  const std::string a = c.split("valid").at(0), b = c.split("train").at(0);
  test::TempDir t;
  // No answers file beside the copy.
  fs::copy_file(a, t.file("alone.npz"));
  try {
    Pricer::for_file(t.file("alone.npz"));
    FAIL() << "priced a file without answers";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), t.file("alone.npz"));
    EXPECT_NE(e.problem().find("no answers file"), std::string::npos) << e.what();
  }
  // Answers of another graph: the graph made again is not this one.
  fs::create_directories(t.file("answers"));
  fs::copy_file(dir + "/answers/" + fs::relative(b, dir).string(), t.file("answers/alone.npz"));
  try {
    Pricer::for_file(t.file("alone.npz"));
    FAIL() << "priced a file with another graph's answers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("differs"), std::string::npos) << e.what();
  }
  // An illegal layout (a dim named twice) is refused, not priced.
  const Pricer p = Pricer::for_file(a);
  std::vector<float> row(static_cast<size_t>(p.row_elems()), -1.0f);
  row[0] = 0;
  row[1] = 0;
  EXPECT_THROW(p.runtime(row.data()), Error);
}
