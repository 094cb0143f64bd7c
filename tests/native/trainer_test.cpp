#include "train/evaluate.h"
#include "train/loaded_run.h"
#include "train/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/synth/dataset.h"
#include "test_support.h"
#include "log_lines.h"
#include "tiny_data.h"
#include "models/registry.h"
#include "train/run_dir.h"

namespace fastslow::train {
namespace {

// The model weights of best.pt, or of the checkpoint last.pt (model + optimizer).
std::vector<torch::Tensor> weights(const std::string& run, const std::string& file) {
  LoadedRun r = load_run(run, "cpu");
  if (file == "last.pt") {
    torch::serialize::InputArchive ar, m;
    ar.load_from(run + "/" + file);
    ar.read("model", m);
    r.model->load(m);
  } else {
    RunDir(run).load_model(*r.model, file);
  }
  std::vector<torch::Tensor> out;
  for (const auto& p : r.model->parameters()) out.push_back(p.detach().clone());
  return out;
}

TEST(Trainer, ResumeAfterAnInterruptionEqualsAnUninterruptedRun) {
  test::TempDir dir;
  const TrainResult full = train(small_layout_run(dir.file("runs/full")));
  EXPECT_FALSE(full.interrupted());
  EXPECT_EQ(full.epochs_done, 2);

  // Cut after the 4th step (mid-epoch), and at the 7th check: after the
  // first validation graph of epoch 1 (6 steps per epoch).
  for (int cut_at : {4, 7}) {
    const std::string run = dir.file("runs/cut" + std::to_string(cut_at));
    int checks = 0;
    size_t validated = 0;
    struct Validated : Callback {
      size_t* validated;
      explicit Validated(size_t* v) : validated(v) {}
      Verdict on_validation_progress(size_t done, size_t total, const std::string&) override {
        EXPECT_LE(done, total);
        *validated = done;
        return std::nullopt;
      }
    };
    const TrainResult cut =
        train(small_layout_run(run),
              {std::make_shared<Validated>(&validated), std::make_shared<StopWhen>([&] { return ++checks == cut_at; })});
    EXPECT_TRUE(cut.interrupted()) << cut_at;
    EXPECT_EQ(validated, cut_at == 7 ? 1u : 0u);
    const TrainResult rest = resume(run);
    EXPECT_FALSE(rest.interrupted());
    EXPECT_EQ(rest.epochs_done, 2);
    EXPECT_EQ(rest.best_epoch, full.best_epoch);

    // Model and optimizer state went through the checkpoint: the last weights
    // must be bit-identical, not merely close.
    for (const char* file : {"best.pt", "last.pt"}) {
      const auto a = weights(dir.file("runs/full"), file);
      const auto b = weights(run, file);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(torch::equal(a[i], b[i])) << "cut at " << cut_at << ": " << file << " parameter " << i;
    }

    // One log line per epoch, none repeated by the resumed run.
    std::ifstream f(run + "/log.jsonl");
    std::string line;
    int lines = 0;
    while (std::getline(f, line)) lines += !line.empty();
    EXPECT_EQ(lines, 2) << cut_at;
  }
}

// Log lines of a run, without the wall-clock seconds no two runs share.
std::vector<nlohmann::json> log_lines(const std::string& run) { return test::unmeasured_log_lines(run); }

void expect_same_weights(const std::string& a_run, const std::string& b_run, const std::string& what) {
  for (const char* file : {"best.pt", "last.pt"}) {
    const auto a = weights(a_run, file), b = weights(b_run, file);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << what << ": " << file << " " << i;
  }
}

// A hard stop (SIGKILL, power cut) between the rename of last.pt and that
// of state.json leaves the new checkpoint beside the previous state.json,
// or beside none at the first save. The resume starts from the checkpoint's
// own state and ends as the uninterrupted run (a resume from state.json
// trained the steps between the two saves twice).
TEST(Trainer, AStopBetweenTheCheckpointAndStateJsonResumesFromTheCheckpoint) {
  test::TempDir dir;
  const std::string full = dir.file("runs/full");
  train(small_layout_run(full));
  for (const bool state_json_missing : {false, true}) {
    const std::string run = dir.file(state_json_missing ? "runs/first" : "runs/later");
    auto stop_at = [](int check) {
      return Callbacks{std::make_shared<StopWhen>([check, n = 0]() mutable { return ++n == check; })};
    };
    // Saved at epoch 0 step 4, then at epoch 1 step 2 (6 steps an epoch, one valid graph).
    ASSERT_TRUE(train(small_layout_run(run), stop_at(4)).interrupted());
    const nlohmann::json earlier = RunDir(run).read_json("state.json");
    ASSERT_TRUE(resume(run, std::nullopt, stop_at(5)).interrupted());
    ASSERT_NE(RunDir(run).read_json("state.json"), earlier);
    if (state_json_missing)
      std::filesystem::remove(run + "/state.json");
    else
      RunDir(run).write_json("state.json", earlier);
    const TrainResult rest = resume(run);
    EXPECT_EQ(rest.reason, StopReason::Finished);
    EXPECT_EQ(rest.epochs_done, 2);
    expect_same_weights(full, run, run);
    EXPECT_EQ(log_lines(run), log_lines(full)) << run;
    // state.json caught up with the checkpoint.
    EXPECT_EQ(RunDir(run).read_json("state.json"), RunDir(full).read_json("state.json"));
  }
}

// A hard stop after an epoch's log line and before the first save that
// follows it: resumed (or, with no checkpoint yet, started over) the run
// logs that epoch once, and ends as the uninterrupted run. For a
// per-program run, the line of its fitted table ("epoch -1") too.
TEST(Trainer, AStopAfterALogLineBeforeTheFirstSaveLogsItOnce) {
  test::TempDir dir;
  const std::string graph = find_collection(tiny_data(), "layout:xla:random").split("train").front();
  for (const bool program : {false, true}) {
    auto options = [&](const std::string& out) {
      TrainOptions o = small_layout_run(out);
      if (program) {
        o.data.clear();
        o.collection.clear();
        o.graph = graph;
        o.steps_per_epoch = 3;
      }
      return o;
    };
    const std::string full = dir.file(program ? "program-full" : "full"), run = dir.file(program ? "program" : "cut");
    train(options(full));
    // Collection: stopped at epoch 1 (epoch 0 logged); per-program: after
    // the table's line and one step.
    const Callbacks hooks = {std::make_shared<StopWhen>([n = 0, at = program ? 2 : 10]() mutable { return ++n == at; })};
    ASSERT_TRUE(train(options(run), hooks).interrupted());
    ASSERT_EQ(log_lines(run).size(), 1u);
    // As if killed right after that line: no checkpoint yet.
    std::filesystem::remove(run + "/last.pt");
    std::filesystem::remove(run + "/state.json");
    const TrainResult rest = resume(run);
    EXPECT_EQ(rest.epochs_done, 2);
    EXPECT_EQ(log_lines(run), log_lines(full)) << run;
    expect_same_weights(full, run, run);
  }
}

TEST(Trainer, LayoutModelBeatsRandomOnTinyData) {
  test::TempDir dir;
  TrainOptions o = small_layout_run(dir.file("run"));
  // xla:default: its tiny valid graph shares its training graphs' pinned
  // outputs. The tiny xla:random split does not (3 training graphs, since the
  // generator's plateau calibration): 0.10 there in these steps, noise
  // ceiling 0.99; on `small` both collections reach 0.8+.
  o.collection = "layout:xla:default";
  o.epochs = 12;
  o.steps_per_epoch = 20;
  o.hidden = 32;
  o.threads = 0;
  const TrainResult r = train(o);
  // Validation: the tiny valid graph's configs ranked by the best model.
  const nlohmann::json m = RunDir(o.out).read_json("metrics.json");
  const double kendall = m["mean"]["kendall"].get<double>();
  std::printf("tiny layout:xla:default validation Kendall %.3f (best epoch %lld)\n", kendall,
              static_cast<long long>(r.best_epoch + 1));
  // Random scores give 0 +- 0.07 on the valid graph's configs; the default
  // model reaches ~0.35 in these 240 steps (0.82-0.89 on `small` at full length).
  EXPECT_GT(kendall, 0.25);
  for (const char* f : {"config.json", "stats.json", "log.jsonl", "best.pt", "metrics.json", "last.pt", "state.json"})
    EXPECT_TRUE(std::filesystem::exists(o.out + "/" + f)) << f;
}

TEST(Trainer, TileRunTrainsAndEvaluates) {
  test::TempDir dir;
  TrainOptions o;
  o.data = tiny_data();
  o.collection = "tile:xla";
  o.out = dir.file("run");
  o.epochs = 2;
  o.hidden = 16;
  o.steps_per_epoch = 10;
  const TrainResult r = train(o);
  EXPECT_GE(r.best_epoch, 0);
  const LoadedRun run = load_run(o.out, "cpu");
  // By default the core's tiling features follow the 24 published columns.
  EXPECT_EQ(*run.options.tile_features, 1);
  EXPECT_TRUE(run.norm.tile_features);
  EXPECT_EQ(run.options.config_feat_width, kTileConfigColumns + kTileDerived);
  const auto graphs = load_split(run, "valid");
  ASSERT_FALSE(graphs.empty());
  const GraphResult g = evaluate_entry(*run.model, graphs[0], run.norm, 256, run.device);
  EXPECT_EQ(static_cast<int64_t>(g.ranking.size()), graphs[0].cache.num_configs);
  EXPECT_TRUE(std::isfinite(g.metrics.tile_score));
}

TEST(Trainer, PerProgramModeSplitsOneGraph) {
  test::TempDir dir;
  const TrainOptions o = quick_program_run(dir.file("runs/one"));
  train(o);
  const LoadedRun run = load_run(o.out, "cpu");
  EXPECT_DOUBLE_EQ(*run.options.valid_share, 0.1);  // the default
  EXPECT_EQ(*run.options.patience, 5);
  const auto held = load_split(run, "holdout");
  const auto valid = load_split(run, "valid");
  const auto fit = load_split(run, "train");
  ASSERT_EQ(held.size(), 1u);
  const int64_t groups = held[0].cache.groups.num_groups();
  // Three disjoint shares that cover the graph; training sees only its own.
  std::vector<int64_t> all = held[0].eval_groups;
  all.insert(all.end(), valid[0].eval_groups.begin(), valid[0].eval_groups.end());
  all.insert(all.end(), fit[0].eval_groups.begin(), fit[0].eval_groups.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(static_cast<int64_t>(all.size()), groups);
  EXPECT_EQ(fit[0].train_groups, fit[0].eval_groups);
  EXPECT_EQ(held[0].train_groups, fit[0].eval_groups);
  EXPECT_NEAR(static_cast<double>(held[0].eval_groups.size()) / groups, 0.25, 0.02);
  EXPECT_NEAR(static_cast<double>(valid[0].eval_groups.size()) / groups, 0.1, 0.02);
  EXPECT_EQ(load_split(run, "test")[0].eval_groups, held[0].eval_groups);
  EXPECT_EQ(static_cast<int64_t>(load_split(run, "all")[0].eval_groups.size()), groups);
  // The best checkpoint was chosen on the valid share, never on the held-out one.
  const nlohmann::json m = RunDir(o.out).read_json("metrics.json");
  EXPECT_EQ(m.at("split"), "valid");
  int64_t valid_configs = 0;
  for (int64_t g : valid[0].eval_groups) valid_configs += valid[0].cache.groups.group_size[static_cast<size_t>(g)];
  EXPECT_EQ(m.at("graphs").at(0).at("configs").get<int64_t>(), valid_configs) << m.dump();
}

TEST(Trainer, PerProgramLayoutRunsStartFromTheirWideTable) {
  test::TempDir dir;
  const Collection c = find_collection(tiny_data(), "layout:xla:random");
  TrainOptions o;
  o.graph = c.split("train").front();
  o.out = dir.file("runs/wide");
  o.epochs = 2;
  o.hidden = 16;
  o.layers = 1;
  o.steps_per_epoch = 3;
  train(o);
  const LoadedRun run = load_run(o.out, "cpu");
  EXPECT_EQ(*run.options.wide, 1);  // the per-program layout default
  EXPECT_GT(run.options.wide_nodes, 0);
  EXPECT_EQ(run.model_options.wide_nodes, run.options.wide_nodes);
  // The table alone is validated before the first step, as epoch "0" (-1).
  std::ifstream log(dir.file("runs/wide/log.jsonl"));
  std::string first;
  std::getline(log, first);
  const nlohmann::json line = nlohmann::json::parse(first);
  EXPECT_EQ(line.at("epoch"), -1);
  EXPECT_TRUE(line.at("train_loss").is_null());
  EXPECT_TRUE(line.at("best"));
  // Elsewhere a wide table is refused: it belongs to one graph's nodes.
  TrainOptions bad = small_layout_run(dir.file("runs/collection"));
  bad.wide = 1;
  EXPECT_NE(test::error_of([&] { train(bad); }).find("per-program"), std::string::npos);
}

TEST(Trainer, PerProgramRunsWrittenBeforeTheValidShareKeepTheirSplit) {
  TrainOptions o = TrainOptions::from_json({{"graph", "g.npz"}, {"holdout", 0.25}}, "config.json");
  EXPECT_EQ(o.valid_share, 0);
}

TEST(Trainer, RefusesToOverwriteARunAndBadNames) {
  test::TempDir dir;
  TrainOptions o = small_layout_run(dir.file("run"));
  o.epochs = 1;
  o.steps_per_epoch = 1;
  train(o);
  EXPECT_NE(test::error_of([&] { train(o); }).find("--resume"), std::string::npos);
  TrainOptions bad = small_layout_run(dir.file("other"));
  bad.model = "transformer";
  const std::string msg = test::error_of([&] { train(bad); });
  EXPECT_NE(msg.find("attn"), std::string::npos) << msg;
  bad.model = "";
  bad.loss = "l1";
  EXPECT_NE(test::error_of([&] { train(bad); }).find("listmle"), std::string::npos);
  EXPECT_NE(test::error_of([&] { load_run(dir.file("nothing"), "cpu"); }).find("config.json"), std::string::npos);
}

// A per-program run cut while validating its fitted table (before any
// step) validates it again when resumed, and ends as the uninterrupted run.
TEST(Trainer, APerProgramRunCutWhileValidatingItsTableResumesThere) {
  test::TempDir dir;
  const Collection c = find_collection(tiny_data(), "layout:xla:random");
  auto program_run = [&](const std::string& out) {
    TrainOptions o = small_layout_run(out);
    o.data.clear();
    o.collection.clear();
    o.graph = c.split("train").front();
    o.steps_per_epoch = 3;
    return o;
  };
  const TrainResult full = train(program_run(dir.file("runs/full")));
  // At the first check: after the table's one valid graph.
  const TrainResult cut = train(program_run(dir.file("runs/cut")), {std::make_shared<StopWhen>([] { return true; })});
  EXPECT_TRUE(cut.interrupted());
  EXPECT_FALSE(std::filesystem::exists(dir.file("runs/cut/log.jsonl")));
  const TrainResult rest = resume(dir.file("runs/cut"));
  EXPECT_EQ(rest.reason, full.reason);
  EXPECT_EQ(rest.best_epoch, full.best_epoch);
  for (const char* file : {"best.pt", "last.pt"}) {
    const auto a = weights(dir.file("runs/full"), file), b = weights(dir.file("runs/cut"), file);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << file << " parameter " << i;
  }
  auto lines = [](const std::string& log) {
    std::ifstream f(log);
    std::vector<std::string> out;
    for (std::string l; std::getline(f, l);)
      if (!l.empty()) out.push_back(nlohmann::json::parse(l).at("epoch").dump());
    return out;
  };
  EXPECT_EQ(lines(dir.file("runs/cut/log.jsonl")), (std::vector<std::string>{"-1", "0", "1"}));
  EXPECT_EQ(lines(dir.file("runs/cut/log.jsonl")), lines(dir.file("runs/full/log.jsonl")));
}

// Edits the state a run resumes from: the one inside last.pt, and its copy.
nlohmann::json edit_state(const std::string& out, const std::function<void(nlohmann::json&)>& edit) {
  LoadedRun r = load_run(out, "cpu");
  torch::optim::AdamW opt(r.model->trained_parameters(), torch::optim::AdamWOptions(1e-3));
  const RunDir run(out);
  nlohmann::json state = run.load_checkpoint(*r.model, opt, "last.pt").value();
  edit(state);
  run.save_checkpoint(*r.model, opt, "last.pt", state);
  run.write_json("state.json", state);
  return state;
}

// A run that stopped early stays stopped when resumed, whatever epochs are left.
TEST(Trainer, ARunStoppedEarlyStaysStoppedWhenResumed) {
  test::TempDir dir;
  TrainOptions o = small_layout_run(dir.file("run"));
  o.epochs = 1;
  train(o);
  const RunDir run(o.out);
  nlohmann::json config = run.read_json("config.json");
  config["patience"] = 2;
  config["epochs"] = 5;
  run.write_json("config.json", config);
  // As if two validations had not improved.
  const nlohmann::json state = edit_state(o.out, [](nlohmann::json& s) { s["bad_epochs"] = 2; });
  const TrainResult r = resume(o.out);
  EXPECT_EQ(r.reason, StopReason::EarlyStopped);
  EXPECT_EQ(r.epochs_done, 1);
  EXPECT_EQ(EarlyStopping(2).on_start(TrainState{}), std::nullopt);
  EXPECT_EQ(EarlyStopping(0).on_start(TrainState::from_json(state, "state.json")), std::nullopt);
}

// The seams (trainer.h), driven as a fold, a data-parallel rank or a search
// trial will drive them: prepared data, a Trainer, parts swapped in.
struct Parts {
  TrainOptions o;
  std::shared_ptr<const PreparedData> data;
  models::RankModel model;
  std::unique_ptr<RunDir> run;
  Trainer trainer() { return Trainer(o, data, model, *run, torch::kCPU); }
};

// The run folder is created; `writer` false: this process does not own it.
Parts parts(const std::string& out, bool writer = true) {
  Parts p;
  p.o = small_layout_run(out);
  p.o.kind = "layout";
  p.o.epochs = 2;
  p.o.steps_per_epoch = 3;
  p.o.apply_defaults();
  p.data = prepare_run_data(p.o);
  torch::manual_seed(0);
  p.model = models::make_model(model_options(p.o, p.data->norm));
  std::filesystem::create_directories(out);
  p.run = std::make_unique<RunDir>(out, writer);
  return p;
}

class PruneAfterFirstValidation : public Callback {
 public:
  Verdict on_validation(const ValidationInfo& v) override {
    seen = v.state.epoch;
    return StopReason::Pruned;
  }
  int64_t seen = -1;
};

TEST(Trainer, ACallbackPrunesAfterAValidationAndTheStateIsSaved) {
  test::TempDir dir;
  Parts p = parts(dir.file("run"));
  Trainer t = p.trainer();
  auto prune = std::make_shared<PruneAfterFirstValidation>();
  t.add_callback(prune);
  const TrainResult r = t.run();
  EXPECT_EQ(r.reason, StopReason::Pruned);
  EXPECT_STREQ(stop_reason_name(r.reason), "pruned");
  EXPECT_EQ(r.epochs_done, 1);
  EXPECT_EQ(prune->seen, 1);
  const TrainState st = TrainState::from_json(p.run->read_json("state.json"), "state.json");
  EXPECT_EQ(st.epoch, 1);
  EXPECT_EQ(st.step, 0);
  EXPECT_TRUE(p.run->has("best.pt"));
}

// Counts what the loop asks of its seams, and agrees to no step at all.
class RefusingSync : public GradientSync {
 public:
  torch::Tensor reduce(const std::vector<torch::Tensor>& params, const torch::Tensor& finite) override {
    ++reduced;
    for (const auto& q : params) with_grad += q.grad().defined();  // after backward
    return torch::zeros_like(finite);
  }
  int reduced = 0;
  int64_t with_grad = 0;
};

class CountingStep : public TrainStep {
 public:
  explicit CountingStep(const std::string& loss) : inner(LossSpec::parse(loss)) {}
  torch::Tensor forward_backward(models::RankModelImpl& m, const PreparedData& d, const Pick& pick,
                                 const Batch& b) override {
    ++calls;
    return inner.forward_backward(m, d, pick, b);
  }
  WholeGraphStep inner;
  int calls = 0;
};

TEST(Trainer, TheGradientSyncRunsAfterBackwardAndItsVerdictSkipsStepsForAllUntilDiverged) {
  test::TempDir dir;
  Parts p = parts(dir.file("run"));
  p.o.steps_per_epoch = 30;
  const std::vector<torch::Tensor> before = p.model->parameters();
  std::vector<torch::Tensor> kept;
  for (const auto& q : before) kept.push_back(q.detach().clone());
  Trainer t = p.trainer();
  auto sync = std::make_shared<RefusingSync>();
  auto step = std::make_unique<CountingStep>(p.o.loss);
  CountingStep* counting = step.get();
  t.set_gradient_sync(sync);
  t.set_step(std::move(step));
  const TrainResult r = t.run();
  EXPECT_EQ(r.reason, StopReason::Diverged);
  EXPECT_NE(r.message.find("training diverged"), std::string::npos) << r.message;
  EXPECT_EQ(counting->calls, 21);  // 20 skipped in a row are tolerated
  EXPECT_EQ(sync->reduced, 21);
  EXPECT_GT(sync->with_grad, 0);
  // No step was applied: the weights are the initial ones.
  const std::vector<torch::Tensor> after = p.model->parameters();
  for (size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(torch::equal(after[i], kept[i])) << i;
}

// A sampler that only ever shows the first graph's first groups.
class FirstGraphSampler : public Sampler {
 public:
  int64_t steps_per_epoch() const override { return 4; }
  Pick pick(int64_t, int64_t) override {
    ++calls;
    return {0, {0, 1, 2}};
  }
  int calls = 0;
};

TEST(Trainer, ASamplerSetFromOutsideDecidesTheSteps) {
  test::TempDir dir;
  Parts p = parts(dir.file("run"));
  Trainer t = p.trainer();
  auto sampler = std::make_unique<FirstGraphSampler>();
  FirstGraphSampler* s = sampler.get();
  t.set_sampler(std::move(sampler));
  const TrainResult r = t.run();
  EXPECT_EQ(r.reason, StopReason::Finished);
  EXPECT_EQ(s->calls, 4 * *p.o.epochs);
}

// A process that does not own the run folder trains the same and writes
// nothing into it.
TEST(Trainer, OnlyTheRunFoldersWriterWritesIt) {
  test::TempDir dir;
  Parts p = parts(dir.file("run"), /*writer=*/false);
  const TrainResult r = p.trainer().run();
  EXPECT_EQ(r.reason, StopReason::Finished);
  EXPECT_TRUE(std::filesystem::is_empty(p.o.out));
  EXPECT_GE(r.best_epoch, 0);
}

}  // namespace
}  // namespace fastslow::train

namespace fastslow::train {
namespace {

// Module::load takes a saved tensor of another shape as it is; the first
// forward then failed inside LibTorch (an internal error). Weights saved
// by a model of other sizes (a card or config edited) are refused by name.
TEST(RunDirLoad, WeightsOfAnotherShapeAreRefusedNamingTheFileAndTheTensor) {
  test::TempDir dir;
  const RunDir run(dir.file("r"));
  run.create();
  models::ModelOptions o;
  o.name = "focus";
  o.hidden = 16;
  models::RankModel saved = models::make_model(o);
  run.save_model(*saved, "best.pt");
  models::RankModel same = models::make_model(o);
  EXPECT_NO_THROW(run.load_model(*same, "best.pt"));
  o.hidden = 24;
  models::RankModel wider = models::make_model(o);
  const std::string msg = test::error_of([&] { run.load_model(*wider, "best.pt"); });
  EXPECT_NE(msg.find(run.file("best.pt")), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not fit this model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("24"), std::string::npos) << msg;
}

}  // namespace
}  // namespace fastslow::train
