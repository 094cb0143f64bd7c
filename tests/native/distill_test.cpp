// Distillation: the listwise loss against values computed by hand, the
// teaching materials (legal new configs, reproducible per seed, kept and
// reused), the distilled step against the plain one, and a student run.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/tune/graph_space.h"
#include "tiny_data.h"
#include "models/registry.h"
#include "train/distill_step.h"
#include "train/loaded_run.h"
#include "train/losses.h"
#include "train/score_rows.h"
#include "train/teaching.h"
#include "train/trainer.h"

namespace fastslow::train {
namespace {

// KL(p || q) with p = softmax(-t / T), q = softmax(-s / T), times T^2,
// written out term by term.
double kl_by_hand(const std::vector<double>& s, const std::vector<double>& t, double T) {
  double zp = 0, zq = 0;
  for (size_t i = 0; i < s.size(); ++i) zp += std::exp(-t[i] / T), zq += std::exp(-s[i] / T);
  double kl = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double p = std::exp(-t[i] / T) / zp, q = std::exp(-s[i] / T) / zq;
    kl += p * std::log(p / q);
  }
  return kl * T * T;
}

torch::Tensor vec(const std::vector<double>& v) { return torch::tensor(v, torch::kFloat64); }

TEST(DistillLoss, EqualsTheKlDivergenceComputedByHand) {
  const std::vector<double> s = {0.0, 1.0, -0.5, 2.0}, t = {0.3, 2.0, -1.0, 0.5};
  for (double T : {0.5, 1.0, 3.0})
    EXPECT_NEAR(listwise_distill_loss(vec(s), vec(t), T).item<double>(), kl_by_hand(s, t, T), 1e-12) << T;
  // Two configs: p = (1/(1+e^-2), e^-2/(1+e^-2)), q = (1/(1+e^-1), e^-1/(1+e^-1)).
  const double p0 = 1 / (1 + std::exp(-2.0)), q0 = 1 / (1 + std::exp(-1.0));
  const double two = p0 * std::log(p0 / q0) + (1 - p0) * std::log((1 - p0) / (1 - q0));
  EXPECT_NEAR(listwise_distill_loss(vec({0, 1}), vec({0, 2}), 1.0).item<double>(), two, 1e-12);
}

TEST(DistillLoss, IsZeroForTheTeachersScoresUpToAConstantAndPullsTowardThem) {
  const std::vector<double> t = {0.3, 2.0, -1.0};
  EXPECT_NEAR(listwise_distill_loss(vec({1.3, 3.0, 0.0}), vec(t), 1.0).item<double>(), 0.0, 1e-12);
  auto s = vec({2.0, 0.0, 1.0}).requires_grad_(true);
  listwise_distill_loss(s, vec(t), 1.0).backward();
  // The teacher's fastest (index 2) is pushed down, its slowest (1) up.
  EXPECT_GT(s.grad()[2].item<double>(), 0.0);
  EXPECT_LT(s.grad()[1].item<double>(), 0.0);
  EXPECT_THROW(listwise_distill_loss(vec({1, 2}), vec({1, 2}), 0.0), Error);
  EXPECT_THROW(listwise_distill_loss(vec({1, 2}), vec({1, 2, 3}), 1.0), Error);
}

TEST(TeachingConfigs, AreNewLegalDistinctAndAFunctionOfTheSeed) {
  const Collection c = find_collection(tiny_data(), "layout:xla:random");
  test::TempDir dir;
  const CachedGraph g = CachedGraph::open(c.split("train").front(), {dir.file("cache"), 1});
  const int64_t e = g.config_row_elems;
  const std::vector<float> a = sample_teaching_configs(g, 40, 7), b = sample_teaching_configs(g, 40, 7);
  const std::vector<float> other = sample_teaching_configs(g, 40, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  ASSERT_EQ(a.size() % e, 0u);
  EXPECT_GT(static_cast<int64_t>(a.size()) / e, 20);
  const std::vector<float> known = g.config_rows(g.all_groups());
  const auto space = config_space(g, known, SpaceKind::Menu);
  std::set<std::vector<float>> rows;
  for (size_t i = 0; i * e < known.size(); ++i) rows.insert(std::vector<float>(known.begin() + i * e, known.begin() + (i + 1) * e));
  const size_t file_rows = rows.size();
  for (size_t r = 0; r * e < a.size(); ++r) {
    EXPECT_EQ(space->why_illegal(a.data() + r * e), "");
    rows.insert(std::vector<float>(a.begin() + r * e, a.begin() + (r + 1) * e));
  }
  EXPECT_EQ(rows.size(), file_rows + a.size() / e) << "a sample repeats one of the file's configs or another sample";
}

// A quick teacher on the tiny data, trained once per test process.
const std::string& tiny_teacher() {
  static test::TempDir* dir = new test::TempDir;
  static std::string run;
  if (run.empty()) {
    TrainOptions o = small_layout_run(dir->file("teacher"));
    train(o);
    run = o.out;
  }
  return run;
}

// A student of the tiny teacher, its defaults applied, and its data.
std::shared_ptr<const PreparedData> student_data(const test::TempDir& dir, int64_t samples, TrainOptions* o) {
  *o = small_layout_run(dir.file("student"));
  o->teacher = tiny_teacher();
  o->teaching = dir.file("teaching");
  o->teach_samples = samples;
  o->kind = "layout";
  o->apply_defaults();
  return prepare_run_data(*o);
}

TEST(TeachingMaterials, ScoreLikeTheTeacherAreKeptAndReusedPerSeed) {
  test::TempDir dir;
  TrainOptions o;
  const auto data = student_data(dir, 24, &o);
  const TeachingMaterials m = teaching_materials(o, *data, true);
  EXPECT_FALSE(m.reused);
  ASSERT_EQ(m.graphs.size(), data->train.size());
  // The file's configs scored as the teacher scores them anywhere else.
  const LoadedRun teacher = load_run(o.teacher, "cpu");
  const CachedGraph& g = data->train.front().cache;
  const GraphEntry e = std::move(make_entries({g}, teacher.norm, teacher.device).front());
  const std::vector<double> direct =
      score_config_rows(*teacher.model, e, teacher.norm, g.config_rows(g.all_groups()), 7, teacher.device);
  ASSERT_EQ(direct.size(), m.graphs.front().group_score.size());
  for (size_t i = 0; i < direct.size(); ++i) EXPECT_NEAR(direct[i], m.graphs.front().group_score[i], 1e-5) << i;
  const std::vector<double> sampled = score_config_rows(*teacher.model, e, teacher.norm, m.graphs.front().rows, 5, teacher.device);
  for (size_t i = 0; i < sampled.size(); ++i) EXPECT_NEAR(sampled[i], m.graphs.front().row_score[i], 1e-5) << i;
  EXPECT_EQ(m.graphs.front().samples(), 24);

  const TeachingMaterials again = teaching_materials(o, *data, true);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.dir, m.dir);
  for (size_t i = 0; i < m.graphs.size(); ++i) {
    EXPECT_EQ(again.graphs[i].rows, m.graphs[i].rows);
    EXPECT_EQ(again.graphs[i].row_score, m.graphs[i].row_score);
    EXPECT_EQ(again.graphs[i].group_score, m.graphs[i].group_score);
  }
  o.seed = 1;
  const TeachingMaterials reseeded = teaching_materials(o, *data, false);
  EXPECT_FALSE(reseeded.reused);
  EXPECT_NE(reseeded.dir, m.dir);
  EXPECT_NE(reseeded.graphs.front().rows, m.graphs.front().rows);
  EXPECT_EQ(reseeded.graphs.front().group_score, m.graphs.front().group_score);  // the same teacher, the same configs
}

TEST(DistillStep, WithoutTheDistillationTermIsThePlainStepPlusTheTeachersTerm) {
  test::TempDir dir;
  TrainOptions o;
  const auto data = student_data(dir, 16, &o);
  auto materials = std::make_shared<const TeachingMaterials>(teaching_materials(o, *data, false));
  torch::manual_seed(3);
  models::RankModel model = models::make_model(model_options(o, data->norm));
  const Pick pick{data->trainable().front(), {0, 1, 2, 3, 4, 5}};
  DistillStep off(LossSpec::parse(o.loss), *data, materials, 8, 0.0, 1.0, 0);
  DistillStep on(LossSpec::parse(o.loss), *data, materials, 8, 0.5, 2.0, 0);
  const double base = WholeGraphStep(LossSpec::parse(o.loss)).run(*model, *data, pick, torch::kCPU).item<double>();
  model->zero_grad();
  EXPECT_NEAR(off.run(*model, *data, pick, torch::kCPU).item<double>(), base, 1e-5);
  model->zero_grad();
  const Batch b = on.prepare(*data, pick, false);
  ASSERT_EQ(b.config_feat.size(0), 6 + 8);
  ASSERT_EQ(b.teacher.size(0), 6 + 8);
  EXPECT_EQ(b.target.size(0), 6);
  // The same pick draws the same samples.
  EXPECT_TRUE(torch::equal(b.config_feat, on.prepare(*data, pick, false).config_feat));
  torch::Tensor scores;
  {
    torch::NoGradGuard no_grad;
    scores = model->forward(data->train[pick.graph].tensors, b.config_feat);
  }
  const double kd = listwise_distill_loss(scores, b.teacher, 2.0).item<double>();
  EXPECT_GT(kd, 0.0);
  EXPECT_NEAR(on.run(*model, *data, pick, torch::kCPU).item<double>(), base + 0.5 * kd, 1e-4);
}

TEST(Distill, AStudentTrainsFromATeacherAndOptionsNeedOne) {
  test::TempDir dir;
  TrainOptions o = small_layout_run(dir.file("student"));
  o.teacher = tiny_teacher();
  o.hidden = 16;
  o.layers = 1;
  o.teach_samples = 32;
  const TrainResult r = train(o);
  EXPECT_GE(r.best_epoch, 0);
  const LoadedRun student = load_run(o.out, "cpu");
  EXPECT_EQ(student.options.teacher, std::filesystem::absolute(tiny_teacher()).lexically_normal().string());
  EXPECT_EQ(*student.options.teach_samples, 32);
  EXPECT_DOUBLE_EQ(*student.options.distill_weight, 1.0);
  EXPECT_TRUE(std::filesystem::exists(tiny_teacher() + "/teaching"));

  TrainOptions lone = small_layout_run(dir.file("lone"));
  lone.kind = "layout";
  lone.teach_samples = 8;
  try {
    lone.apply_defaults();
    FAIL() << "--teach-samples without --teacher was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--teacher"), std::string::npos) << e.what();
  }
  TrainOptions tile = quick_tile_run(dir.file("tile"));
  tile.teacher = tiny_teacher();
  try {
    train(tile);
    FAIL() << "a layout teacher taught a tile run";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout"), std::string::npos) << e.what();
  }
}

// The samples a step adds are a function of its pick and the seed: a
// distilled run cut mid-epoch and resumed ends bit for bit as the run that
// was never cut.
TEST(Distill, AResumedStudentEndsAsTheUninterruptedOne) {
  test::TempDir dir;
  auto student = [&](const std::string& out) {
    TrainOptions o = small_layout_run(dir.file(out));
    o.teacher = tiny_teacher();
    o.teaching = dir.file("teaching");
    o.teach_samples = 20;
    return o;
  };
  train(student("full"));
  int checks = 0;
  ASSERT_TRUE(train(student("cut"), {std::make_shared<StopWhen>([&] { return ++checks == 4; })}).interrupted());
  EXPECT_FALSE(resume(dir.file("cut")).interrupted());
  const LoadedRun a = load_run(dir.file("full"), "cpu"), b = load_run(dir.file("cut"), "cpu");
  const auto pa = a.model->parameters(), pb = b.model->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << "parameter " << i;
}

TEST(Distill, APerProgramStudentCopiesItsTeachersTableAndHoldsOutWhatItHeldOut) {
  test::TempDir dir;
  TrainOptions t = quick_program_run(dir.file("teacher"));
  t.steps_per_epoch = 3;
  t.seed = 4;
  t.threads = 1;
  train(t);
  TrainOptions s = t;
  s.out = dir.file("student");
  s.teacher = t.out;
  s.hidden = 8;
  s.seed = 9;
  s.teach_samples = 16;
  std::vector<std::string> said;
  struct Listen : Callback {
    std::vector<std::string>* said;
    void on_message(const std::string& m) override { said->push_back(m); }
  };
  auto listen = std::make_shared<Listen>();
  listen->said = &said;
  train(s, {listen});
  const LoadedRun teacher = load_run(t.out, "cpu"), student = load_run(s.out, "cpu");
  EXPECT_EQ(*student.options.split_seed, 4u);  // the teacher's held-out configs stay held out
  bool copied_said = false;
  for (const auto& m : said) copied_said = copied_said || m.find("wide table copied") != std::string::npos;
  EXPECT_TRUE(copied_said);
  int64_t compared = 0;
  const auto same = [&](const torch::OrderedDict<std::string, torch::Tensor>& ours,
                        const torch::OrderedDict<std::string, torch::Tensor>& theirs) {
    for (const auto& item : ours) {
      if (item.key().rfind("deep.", 0) == 0 || item.key() == "gate") continue;
      const torch::Tensor* t_item = theirs.find(item.key());
      ASSERT_NE(t_item, nullptr) << item.key();
      EXPECT_TRUE(torch::equal(*t_item, item.value())) << item.key();
      ++compared;
    }
  };
  same(student.model->named_parameters(true), teacher.model->named_parameters(true));
  same(student.model->named_buffers(true), teacher.model->named_buffers(true));
  EXPECT_GE(compared, 4);  // the table's two weights, its rows and the scale
}

}  // namespace
}  // namespace fastslow::train
