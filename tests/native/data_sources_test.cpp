#include "train/data_sources.h"

#include <gtest/gtest.h>

#include <map>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "test_support.h"
#include "tiny_data.h"
#include "train/run_dir.h"
#include "train/sampler.h"
#include "train/trainer.h"

namespace fastslow::train {
namespace {

TEST(DataSources, CollectionsWithWeightsFromEveryRoot) {
  TrainOptions o;
  o.data = tiny_data();
  o.collection = "layout:xla:random,layout:nlp:random:0.5";
  const std::vector<DataSource> s = data_sources(o);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].label, "layout:xla:random");
  EXPECT_EQ(s[0].weight, 1.0);
  EXPECT_EQ(s[1].collection, "layout:nlp:random");
  EXPECT_EQ(s[1].weight, 0.5);
  o.data = tiny_data() + "," + tiny_data() + "/npz";  // two roots: labelled by root
  const std::vector<DataSource> two = data_sources(o);
  ASSERT_EQ(two.size(), 4u);
  EXPECT_NE(two[0].label, two[1].label);
}

TEST(DataSources, RefusesMixedKindsBadWeightsAndRepeats) {
  TrainOptions o;
  o.data = tiny_data();
  for (const char* bad : {"tile:xla,layout:xla:random", "layout:xla:random:0", "layout:xla:random:-1",
                          "layout:xla:random,layout:xla:random:2", "layout:xla:sideways"}) {
    o.collection = bad;
    EXPECT_THROW(data_sources(o), Error) << bad;
  }
}

TEST(DataSources, PreparingGraphsOfOtherWidthsNamesTheFile) {
  DataSpec s;
  s.train_files = find_collection(tiny_data(), "layout:xla:random").split("train");
  s.valid_files = find_collection(tiny_data(), "tile:xla").split("valid");
  test::TempDir dir;
  s.cache = {dir.file("cache"), 1};
  s.source = tiny_data();
  try {
    prepare(s, torch::kCPU, std::nullopt);
    FAIL() << "a tile graph was prepared beside layout ones";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(s.valid_files.front()), std::string::npos) << e.what();
  }
}

TEST(MixSampler, DrawsCollectionsByWeightAndValidatesEach) {
  test::TempDir dir;
  TrainOptions o = small_layout_run(dir.file("mix"));
  o.collection = "layout:xla:random:3,layout:nlp:random:1";
  o.epochs = 1;
  o = resolve_options(o);
  auto data = std::make_shared<const PreparedData>(prepare(data_spec(o), torch::kCPU, std::nullopt));
  ASSERT_EQ(data->sources.size(), 2u);
  MixSampler sampler(data, 4000, 8, 3);
  std::map<int, int> per_source;
  for (int64_t step = 0; step < 4000; ++step) ++per_source[data->train_source.at(sampler.pick(0, step).graph)];
  EXPECT_NEAR(per_source[0] / 4000.0, 0.75, 0.03);
  // A function of (epoch, step): a second sampler draws the same.
  MixSampler again(data, 4000, 8, 3);
  EXPECT_EQ(again.pick(0, 1234).graph, sampler.pick(0, 1234).graph);

  const RunDir run(o.out);
  run.create();
  write_run_header(run, o, *data);
  run_prepared(o, data, std::make_shared<GradientSync>());
  const nlohmann::json m = run.read_json("metrics.json");
  ASSERT_TRUE(m.contains("collections"));
  const double a = m["collections"]["layout:xla:random"]["score"].get<double>();
  const double b = m["collections"]["layout:nlp:random"]["score"].get<double>();
  EXPECT_NEAR(m["score"].get<double>(), (a + b) / 2, 1e-12);  // collections count alike
}

}  // namespace
}  // namespace fastslow::train
