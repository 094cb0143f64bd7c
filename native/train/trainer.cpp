#include "train/trainer.h"

#include <chrono>
#include <optional>
#include <cmath>
#include <filesystem>
#include <unordered_set>

#include "fastslow/data/collection.h"
#include "fastslow/data/data_profile.h"
#include "fastslow/error.h"
#include "fastslow/data/holdout.h"
#include "fastslow/rng.h"
#include "train/losses.h"
#include "train/run_dir.h"
#include "train/schedule.h"
#include "train/wide_init.h"
#include "models/program_model.h"

namespace fastslow::train {
namespace {

// Sampling depends only on (seed, epoch, step), never on what ran before, so
// a resumed run draws exactly the batches the uninterrupted run would have.
uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<int64_t> sample_groups(const std::vector<int64_t>& pool, int64_t count, uint64_t seed) {
  if (count >= static_cast<int64_t>(pool.size())) return pool;
  Rng rng(seed);
  std::vector<int64_t> out;
  std::unordered_set<int64_t> taken;
  const int64_t n = static_cast<int64_t>(pool.size());
  // Floyd's algorithm: `count` distinct picks without touching the whole pool.
  for (int64_t j = n - count; j < n; ++j) {
    const int64_t t = rng.uniform_int(0, j);
    const int64_t pick = taken.count(t) ? j : t;
    taken.insert(pick);
    out.push_back(pool[pick]);
  }
  return out;
}

std::vector<int64_t> epoch_plan(const std::vector<size_t>& trainable, int64_t steps, uint64_t seed, int64_t epoch) {
  Rng rng(mix(seed, static_cast<uint64_t>(epoch) * 2 + 1));
  std::vector<int64_t> plan;
  while (static_cast<int64_t>(plan.size()) < steps) {
    std::vector<int64_t> round(trainable.begin(), trainable.end());
    for (int64_t i = static_cast<int64_t>(round.size()) - 1; i > 0; --i)
      std::swap(round[i], round[rng.uniform_int(0, i)]);
    plan.insert(plan.end(), round.begin(), round.end());
  }
  plan.resize(static_cast<size_t>(steps));
  return plan;
}

std::string default_cache_dir(const TrainOptions& o) {
  if (!o.cache.empty()) return o.cache;
  const std::filesystem::path parent = std::filesystem::path(o.out).lexically_normal().parent_path();
  return (parent.empty() ? std::filesystem::path(".cache") : parent / ".cache").string();
}

std::vector<std::string> split_files(const TrainOptions& o, const std::string& split) {
  if (!o.graph.empty()) return {o.graph};
  const Collection c = find_collection(o.data, o.collection);
  return c.split(split);
}

// Per-program runs split one graph's groups: "train" learns, "valid"
// decides early stopping (the held-out groups in runs without a valid
// share), "holdout" (= "test") is never seen while training, "all" ranks
// every group.
void assign_groups(const TrainOptions& o, const std::string& split, GraphEntry* e) {
  if (o.graph.empty()) return;
  const HoldoutSplit h = split_program(e->cache.groups.num_groups(), o.holdout, o.valid_share, o.seed);
  e->train_groups = h.train;
  if (split == "valid")
    e->eval_groups = h.valid.empty() ? h.holdout : h.valid;
  else if (split == "holdout" || split == "test")
    e->eval_groups = h.holdout;
  else if (split == "train")
    e->eval_groups = h.train;
}

std::string count_str(size_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// What a per-program run learns from: a few hundred unique configs over-fit
// differently from 30,000, and the user should see which case they are in.
std::string program_summary(const TrainOptions& o, const CachedGraph& c) {
  const HoldoutSplit h = split_program(c.groups.num_groups(), o.holdout, o.valid_share, o.seed);
  std::string s = c.source + ": " + count_str(static_cast<size_t>(c.groups.num_groups())) + " unique configs of " +
                  count_str(static_cast<size_t>(c.num_configs)) + " measured; learning from " +
                  count_str(h.train.size()) + ", ";
  if (h.valid.empty()) return s + "validating on the " + count_str(h.holdout.size()) + " held out";
  return s + "validating (early stopping) on " + count_str(h.valid.size()) + ", holding out " +
         count_str(h.holdout.size()) + " (fastslow eval --split holdout)";
}

std::vector<CachedGraph> cache_files(const std::vector<std::string>& files, const GraphCacheOptions& co,
                                     const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::vector<CachedGraph> out;
  for (size_t i = 0; i < files.size(); ++i) {
    if (progress) progress(i, files.size(), files[i]);
    out.push_back(CachedGraph::open(files[i], co));
  }
  if (progress) progress(files.size(), files.size(), "");
  return out;
}

std::vector<GraphEntry> entries_for(const TrainOptions& o, const std::string& split, const Normalizer& norm,
                                    const torch::Device& device, std::vector<CachedGraph> caches) {
  std::vector<GraphEntry> out;
  for (CachedGraph& c : caches) {
    GraphEntry e = make_entry(std::move(c), norm, device);
    assign_groups(o, split, &e);
    set_targets(&e);
    out.push_back(std::move(e));
  }
  return out;
}

models::ModelOptions model_options(const TrainOptions& o, const Normalizer& norm, int64_t config_width) {
  models::ModelOptions m;
  m.kind = o.kind;
  m.name = o.model;
  m.join = o.join;
  m.node_feat_width = norm.node.width();
  m.config_feat_width = config_width;
  m.hidden = o.hidden;
  m.layers = o.layers;
  m.wide_nodes = o.wide == 1 ? o.wide_nodes : 0;
  return m;
}

// What the model learns from, for the card (data_profile.h): runs resumed
// from before it was recorded get it too.
void write_profile(const RunDir& run, const TrainOptions& o, const std::vector<CachedGraph>& train) {
  const bool program = !o.graph.empty();
  DataProfileBuilder b(train.front().kind, data_origin(program ? o.graph : o.data),
                       program ? std::filesystem::path(o.graph).filename().string() : o.collection);
  for (const CachedGraph& g : train) b.add(sample_graph(g), g.source);
  run.write_json("profile.json", nlohmann::json::parse(b.finish().to_json()));
}

void set_lr(torch::optim::Optimizer& opt, double lr) {
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
}

TrainResult run_loop(TrainOptions o, bool resuming, const TrainHooks& hooks) {
  const RunDir run(o.out);
  auto say = [&](const std::string& s) {
    if (hooks.message) hooks.message(s);
  };
  const torch::Device device = pick_device(o.device);
  if (o.threads > 0) torch::set_num_threads(o.threads);
  // Steps allocate and free the same large activations every time; keeping
  // them in the heap saves 15-25 % of a CPU step in page faults.
  models::keep_freed_cpu_memory();
  const GraphCacheOptions co{default_cache_dir(o), o.khop};

  say("preparing training graphs (cache: " + co.dir + ")");
  std::vector<CachedGraph> train_caches = cache_files(split_files(o, "train"), co, hooks.prepare);
  if (train_caches.empty()) throw Error(o.data, "", "collection " + o.collection + " has no training graphs");
  Normalizer norm;
  if (resuming) {
    norm = Normalizer::from_json(run.read_json("stats.json"), run.file("stats.json"));
  } else {
    std::vector<const CachedGraph*> ptrs;
    for (const CachedGraph& c : train_caches) ptrs.push_back(&c);
    norm = fit_normalizer(train_caches.front().kind, ptrs, o.tile_features == 1);
    run.write_json("stats.json", norm.to_json());
  }
  if (!run.has("profile.json")) write_profile(run, o, train_caches);
  const int64_t config_width = train_caches.front().config_feat_width + (norm.tile_features ? kTileDerived : 0);
  if (!resuming) {
    o.config_feat_width = config_width;
    if (o.wide == 1) o.wide_nodes = static_cast<int64_t>(train_caches.front().pruned.config_positions.size());
    o.tile_features = norm.tile_features ? 1 : 0;
    run.write_json("config.json", o.to_json());
  }
  if (!o.graph.empty()) say(program_summary(o, train_caches.front()));
  std::vector<GraphEntry> train = entries_for(o, "train", norm, device, std::move(train_caches));
  std::vector<GraphEntry> valid;
  if (o.graph.empty()) {
    say("preparing validation graphs");
    valid = entries_for(o, "valid", norm, device, cache_files(split_files(o, "valid"), co, hooks.prepare));
  } else {
    // The same graph: share its tensors, rank the held-out groups.
    GraphEntry held = train.front();
    assign_groups(o, "valid", &held);
    valid.push_back(std::move(held));
  }
  for (const GraphEntry& e : train)
    if (!e.cache.has_runtime()) throw Error(e.cache.source, "config_runtime", "has no measured runtimes to train on");

  std::vector<size_t> trainable;
  for (size_t i = 0; i < train.size(); ++i)
    if (train[i].train_groups.size() >= 2) trainable.push_back(i);
  if (trainable.empty()) throw Error(o.out, "", "no training graph has two distinct configs to rank");
  int64_t steps = o.steps_per_epoch;
  if (steps == 0) {
    if (!o.graph.empty())
      steps = std::max<int64_t>(10, static_cast<int64_t>(train[0].train_groups.size()) / o.configs_per_graph);
    else  // layout graphs need more steps (generated layout:xla:random small: 500 steps 0.48, 6,000 steps 0.83 valid Kendall)
      steps = std::max<int64_t>(o.kind == "layout" ? 200 : 50, static_cast<int64_t>(trainable.size()));
  }
  const int64_t total_steps = steps * o.epochs;
  const int64_t warmup = static_cast<int64_t>(o.warmup * static_cast<double>(total_steps));

  torch::manual_seed(o.seed);
  models::RankModel model = models::make_model(model_options(o, norm, config_width));
  model->to(device);
  auto* program = dynamic_cast<models::ProgramModelImpl*>(model.get());
  if (program && !resuming) {
    const WideFit f = fit_wide_table(*program->wide, train.front(), valid.front(), o.seed);
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "wide table: ridge on %lld unique configs, %lld weights, lambda %g (valid Kendall %.4f, "
                  "residual sd %.2g)",
                  static_cast<long long>(f.rows_used), static_cast<long long>(f.features), f.lambda, f.valid_kendall,
                  f.residual_sd);
    say(buf);
    torch::NoGradGuard no_grad;
    program->scale.fill_(std::max(f.residual_sd, 1e-6));
  }
  // The table stays as ridge fitted it: trained further it lost 0.007 (hinge)
  // and 0.065 (mse) held-out Kendall on real AlexNet; the deep part and its
  // gate learn the rest.
  torch::optim::AdamW opt(program ? program->trained_parameters() : model->parameters(),
                          torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay));
  const LossSpec loss_fn = LossSpec::parse(o.loss);

  TrainResult result;
  int64_t epoch = 0, step = 0, bad_epochs = 0, skipped = 0, skipped_in_a_row = 0;
  double loss_sum = 0;
  double best = -std::numeric_limits<double>::infinity();
  if (resuming && run.has("state.json")) {
    const nlohmann::json st = run.read_json("state.json");
    epoch = st.at("epoch");
    step = st.at("step");
    loss_sum = st.at("loss_sum");
    skipped = st.value("skipped", int64_t{0});
    bad_epochs = st.at("bad_epochs");
    result.best_epoch = st.at("best_epoch");
    if (!st.at("best_score").is_null()) best = st.at("best_score");
    run.load_checkpoint(*model, opt, "last.pt");
    run.truncate_log(epoch);
    say("resuming at epoch " + std::to_string(epoch + 1) + ", step " + std::to_string(step));
  }
  auto save_state = [&] {
    run.save_checkpoint(*model, opt, "last.pt");
    run.write_json("state.json", {{"epoch", epoch},
                                  {"step", step},
                                  {"loss_sum", loss_sum},
                                  {"skipped", skipped},
                                  {"bad_epochs", bad_epochs},
                                  {"best_epoch", result.best_epoch},
                                  {"best_score", std::isfinite(best) ? nlohmann::json(best) : nlohmann::json(nullptr)}});
  };
  // Ctrl-C: save where the loop is, so a resume continues from there.
  auto stop_here = [&] {
    save_state();
    result.interrupted = true;
    result.stop_reason = "interrupted";
    result.epochs_done = epoch;
    result.best_score = best;
    return result;
  };
  std::vector<torch::Tensor> params = model->parameters();
  const int64_t patience = o.patience;

  // Ranks the valid graphs, logs the epoch and keeps the best model; empty
  // when Ctrl-C stopped it between graphs.
  auto validate_and_log = [&](int64_t at, double train_loss,
                              std::chrono::steady_clock::time_point t0) -> std::optional<nlohmann::json> {
    std::vector<GraphResult> results;
    // Full-scale validation graphs rank thousands of configs each: minutes.
    if (hooks.validate && !valid.empty()) hooks.validate(0, valid.size(), "");
    for (const GraphEntry& e : valid) {
      results.push_back(evaluate_entry(*model, e, norm, o.eval_chunk, device));
      if (hooks.validate) hooks.validate(results.size(), valid.size(), e.cache.source);
      if (hooks.stop && hooks.stop()) return std::nullopt;
    }
    double score = collection_score(train.front().cache.kind, results);
    if (!std::isfinite(score)) score = -train_loss;  // no validation runtimes: track the training loss
    const nlohmann::json metrics =
        metrics_json(results, o.graph.empty() || o.valid_share > 0 ? "valid" : "holdout", score);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json line = {{"epoch", at},
                           {"train_loss", at < 0 ? nlohmann::json(nullptr) : nlohmann::json(train_loss)},
                           {"lr", at < 0 ? 0.0 : cosine_lr((at + 1) * steps - 1, total_steps, warmup, o.lr)},
                           {"score", score}, {"seconds", seconds}, {"skipped_steps", at < 0 ? 0 : skipped}};
    line["valid"] = metrics["mean"];
    const bool improved = score > best;
    if (improved) {
      best = score;
      result.best_epoch = at;
      bad_epochs = 0;
      run.save_model(*model, "best.pt");
      run.write_json("metrics.json", metrics);
    } else if (at >= 0) {
      ++bad_epochs;
    }
    line["best"] = improved;
    run.append_log(line);
    if (hooks.epoch_end) hooks.epoch_end(line);
    return line;
  };
  // A wide table is a model before any step: "epoch 0" in the log (-1), the
  // one to keep when the deep part never improves on it.
  if (program && !resuming && validate_and_log(-1, 0.0, std::chrono::steady_clock::now())) save_state();

  // A run that stopped early stays stopped when resumed.
  if (patience > 0 && bad_epochs >= patience) result.stop_reason = "early stopping";
  while (epoch < o.epochs && result.stop_reason.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<int64_t> plan = epoch_plan(trainable, steps, o.seed, epoch);
    if (hooks.epoch_begin) hooks.epoch_begin(epoch, o.epochs, steps);
    model->train();
    for (; step < steps; ++step) {
      const GraphEntry& e = train[plan[step]];
      const uint64_t batch_seed = mix(mix(o.seed, static_cast<uint64_t>(epoch)), static_cast<uint64_t>(step));
      const Batch b = make_batch(e, sample_groups(e.train_groups, o.configs_per_graph, batch_seed), norm, device);
      const double lr = cosine_lr(epoch * steps + step, total_steps, warmup, o.lr);
      set_lr(opt, lr);
      opt.zero_grad();
      torch::Tensor loss = loss_fn(model->forward(e.tensors, b.config_feat), b.target);
      loss.backward();
      // An overflowing step (a rare batch whose gradient reaches inf in
      // float32) is skipped rather than allowed to turn every weight into NaN.
      const double norm = torch::nn::utils::clip_grad_norm_(
          params, o.clip > 0 ? o.clip : std::numeric_limits<double>::infinity());
      const double l = loss.item<double>();
      if (!std::isfinite(l) || !std::isfinite(norm)) {
        ++skipped;
        if (++skipped_in_a_row > 20)
          throw Error(e.cache.source, "", "training diverged (20 steps in a row with a non-finite loss or gradient); try a lower --lr");
      } else {
        skipped_in_a_row = 0;
        opt.step();
        loss_sum += l;
      }
      if (hooks.step) hooks.step({epoch, step, steps, l, lr});
      if (hooks.stop && hooks.stop()) {
        ++step;
        return stop_here();
      }
    }
    const std::optional<nlohmann::json> line =
        validate_and_log(epoch, loss_sum / static_cast<double>(std::max<int64_t>(1, steps - skipped)), t0);
    if (!line) return stop_here();  // step == steps: a resume starts at this validation
    ++epoch;
    step = 0;
    loss_sum = 0;
    skipped = 0;
    save_state();
    if (patience > 0 && bad_epochs >= patience) {
      result.stop_reason = "early stopping";
      break;
    }
  }
  if (result.stop_reason.empty()) result.stop_reason = "epochs";
  result.epochs_done = epoch;
  result.best_score = best;
  return result;
}

}  // namespace

torch::Device pick_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name == "cuda") {
    if (!torch::cuda::is_available())
      throw Error("--device cuda: this build of LibTorch sees no CUDA device (use --device auto or cpu)");
    return torch::kCUDA;
  }
  if (name == "auto") return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  throw Error("--device must be auto, cpu or cuda, got '" + name + "'");
}

TrainResult train(TrainOptions o, const TrainHooks& hooks) {
  if (o.out.empty()) throw Error("--out: no run folder given");
  const RunDir run(o.out);
  if (run.has("config.json"))
    throw Error(o.out, "", "already holds a run; continue it with --resume or choose another --out");
  if (o.graph.empty()) {
    if (o.data.empty() || o.collection.empty()) throw Error("give --data and --collection, or --graph");
    o.kind = parse_collection_id(o.collection).kind;
  } else {
    if (!(o.holdout > 0 && o.holdout < 1)) throw Error("--holdout must be in (0, 1)");
    if (o.valid_share >= 0 && !(o.valid_share < 1 && o.holdout + o.valid_share < 1))
      throw Error("--valid-share must be in [0, 1) and leave configs to train on beside --holdout");
    o.kind = graph_kind_name(detect_graph_kind(NpzReader::open(o.graph)));
    o.collection = o.kind == "tile" ? "tile:xla" : "layout:xla:random";
  }
  o.apply_defaults();
  if (o.wide == 1 && (o.graph.empty() || o.kind != "layout"))
    throw Error("--wide 1: a wide table belongs to one layout graph's configurable nodes (per-program mode, --graph)");
  // Fail on a bad model/loss name before any preparation work.
  LossSpec::parse(o.loss);
  bool known = false;
  for (const std::string& m : models::model_names(o.kind)) known |= m == o.model;
  if (!known) {
    std::string names;
    for (const std::string& m : models::model_names(o.kind)) names += (names.empty() ? "" : ", ") + m;
    throw Error("--model " + o.model + ": unknown for " + o.kind + " graphs (choose one of: " + names + ")");
  }
  if (o.cache.empty()) o.cache = default_cache_dir(o);
  run.create();
  run.write_json("config.json", o.to_json());
  return run_loop(o, false, hooks);
}

TrainResult resume(const std::string& path, int64_t epochs_override, const TrainHooks& hooks) {
  const RunDir run(path);
  TrainOptions o = TrainOptions::from_json(run.read_json("config.json"), run.file("config.json"));
  o.out = path;
  if (epochs_override > 0 && epochs_override != o.epochs) {
    o.epochs = epochs_override;
    run.write_json("config.json", o.to_json());
  }
  return run_loop(o, true, hooks);
}

std::string LoadedRun::cache_dir() const { return default_cache_dir(options); }

LoadedRun load_run(const std::string& path, const std::string& device) {
  const RunDir run(path);
  LoadedRun r;
  r.options = TrainOptions::from_json(run.read_json("config.json"), run.file("config.json"));
  r.options.out = path;
  r.norm = Normalizer::from_json(run.read_json("stats.json"), run.file("stats.json"));
  r.device = pick_device(device);
  models::keep_freed_cpu_memory();
  if (r.options.config_feat_width <= 0) throw Error(run.file("config.json"), "", "no config_feat_width");
  r.model_options = model_options(r.options, r.norm, r.options.config_feat_width);
  r.model = models::make_model(r.model_options);
  r.model->to(r.device);
  run.load_model(*r.model, "best.pt");
  r.model->eval();
  return r;
}

std::vector<GraphEntry> load_split(const LoadedRun& run, const std::string& split,
                                   const std::function<void(size_t, size_t, const std::string&)>& progress) {
  const TrainOptions& o = run.options;
  std::vector<std::string> files;
  if (!o.graph.empty()) {
    if (split != "train" && split != "valid" && split != "holdout" && split != "all" && split != "test")
      throw Error("--split for a per-program run: train, valid, holdout (= test) or all");
    files = {o.graph};
  } else {
    files = split_files(o, split);
    if (files.empty()) throw Error(o.data, "", "collection " + o.collection + " has no '" + split + "' split");
  }
  return entries_for(o, split, run.norm, run.device, cache_files(files, {run.cache_dir(), o.khop}, progress));
}

}  // namespace fastslow::train
