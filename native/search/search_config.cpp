#include "search/search_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "train/option_table.h"

namespace fastslow::search {
namespace {

const std::vector<std::string> kObjectiveNames = {"score", "latency", "params", "onnx_bytes"};

std::string underscores(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

struct Reader {
  std::string what;

  Error error(const std::string& where, const std::string& problem) const {
    return Error(what, "", "[" + where + "] " + problem);
  }
  void only(const toml::table& t, const std::string& where, const std::set<std::string>& keys) const {
    for (const auto& [k, v] : t) {
      (void)v;
      if (!keys.count(std::string(k.str()))) {
        std::string known;
        for (const auto& x : keys) known += (known.empty() ? "" : ", ") + x;
        throw error(where, "unknown key '" + std::string(k.str()) + "' (known: " + known + ")");
      }
    }
  }
  const toml::table* table(const toml::table& root, const std::string& name, bool required) const {
    const toml::node* n = root.get(name);
    if (!n) {
      if (required) throw Error(what, "", "no [" + name + "] table");
      return nullptr;
    }
    if (!n->is_table()) throw Error(what, "", "'" + name + "' must be a table ([" + name + "])");
    return n->as_table();
  }
  nlohmann::json value(const toml::node& n, const std::string& where, const std::string& key) const {
    if (auto v = n.as_integer()) return v->get();
    if (auto v = n.as_floating_point()) return v->get();
    if (auto v = n.as_string()) return v->get();
    if (auto v = n.as_boolean()) return v->get();
    throw error(where, key + ": expected a number, a string or a boolean");
  }
  int64_t integer(const toml::table& t, const std::string& where, const std::string& key, int64_t fallback,
                  int64_t low) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    auto v = n->as_integer();
    if (!v) throw error(where, key + " must be an integer");
    if (v->get() < low) throw error(where, key + " must be >= " + std::to_string(low) + ", got " + std::to_string(v->get()));
    return v->get();
  }
  double number(const toml::table& t, const std::string& where, const std::string& key, double fallback) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (auto v = n->as_integer()) return static_cast<double>(v->get());
    if (auto v = n->as_floating_point()) return v->get();
    throw error(where, key + " must be a number");
  }
  std::string text(const toml::table& t, const std::string& where, const std::string& key, std::string fallback) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    auto v = n->as_string();
    if (!v) throw error(where, key + " must be a string");
    return v->get();
  }
};

Param read_param(const Reader& r, const std::string& name, const toml::node& n) {
  Param p;
  p.name = name;
  if (auto arr = n.as_array()) {
    p.kind = ParamKind::Categorical;
    for (const toml::node& c : *arr) p.choices.push_back(r.value(c, "space", name));
    if (p.choices.empty()) throw r.error("space", name + ": an empty list of choices");
    for (size_t i = 0; i < p.choices.size(); ++i)
      for (size_t j = i + 1; j < p.choices.size(); ++j)
        if (p.choices[i] == p.choices[j]) throw r.error("space", name + ": " + p.choices[i].dump() + " is listed twice");
    return p;
  }
  auto t = n.as_table();
  if (!t) throw r.error("space", name + ": give a list of choices or { low = .., high = .., log = true|false }");
  r.only(*t, "space", {"low", "high", "log"});
  const toml::node* lo = t->get("low");
  const toml::node* hi = t->get("high");
  if (!lo || !hi) throw r.error("space", name + ": a range needs low and high");
  const bool ints = lo->is_integer() && hi->is_integer();
  p.kind = ints ? ParamKind::Int : ParamKind::Float;
  p.low = r.number(*t, "space", "low", 0);
  p.high = r.number(*t, "space", "high", 0);
  if (const toml::node* l = t->get("log")) {
    auto b = l->as_boolean();
    if (!b) throw r.error("space", name + ": log must be true or false");
    p.log = b->get();
  }
  if (!(std::isfinite(p.low) && std::isfinite(p.high)) || !(p.low < p.high))
    throw r.error("space", name + ": low must be below high");
  if (p.log && !(p.low > 0)) throw r.error("space", name + ": a log range needs low > 0");
  return p;
}

}  // namespace

const std::vector<std::string>& searchable_options() {
  static const std::vector<std::string> names = train::searchable_option_keys();  // option_table.h
  return names;
}

namespace {

// [data], [train] and [space]: what a training study's trials train on and vary.
void read_training_tables(const Reader& r, const toml::table& root, SearchConfig& c) {
  const std::set<std::string> searchable(searchable_options().begin(), searchable_options().end());
  // [data]
  const toml::table& data = *r.table(root, "data", true);
  r.only(data, "data", {"data", "collection", "graph", "holdout", "valid_share", "split_seed"});
  for (const char* key : {"data", "collection"}) {
    const toml::node* n = data.get(key);
    if (!n) continue;
    if (auto arr = n->as_array()) {
      std::string joined;
      for (const toml::node& x : *arr) {
        auto s = x.as_string();
        if (!s) throw r.error("data", std::string(key) + ": a list of strings");
        joined += (joined.empty() ? "" : ",") + s->get();
      }
      c.train[key] = joined;
    } else if (auto s = n->as_string()) {
      c.train[key] = s->get();
    } else {
      throw r.error("data", std::string(key) + " must be a string or a list of strings");
    }
  }
  if (data.get("graph")) c.train["graph"] = r.text(data, "data", "graph", "");
  if (data.get("holdout")) c.train["holdout"] = r.number(data, "data", "holdout", 0.2);
  if (data.get("valid_share")) c.train["valid_share"] = r.number(data, "data", "valid_share", 0.1);
  if (data.get("split_seed")) c.train["split_seed"] = r.integer(data, "data", "split_seed", 0, 0);
  const bool program = c.train.contains("graph");
  if (program == (c.train.contains("data") || c.train.contains("collection")))
    throw r.error("data", "give data and collection, or graph (one program's configs, with holdout)");
  if (!program && !(c.train.contains("data") && c.train.contains("collection")))
    throw r.error("data", "give both data (a dataset root) and collection (e.g. \"layout:xla:random\")");

  // [train] and [space]
  if (const toml::table* t = r.table(root, "train", false)) {
    for (const auto& [k, v] : *t) {
      const std::string key = underscores(std::string(k.str()));
      if (!searchable.count(key))
        throw r.error("train", "'" + std::string(k.str()) + "' is not an option a study sets (the budget sets epochs and steps)");
      c.train[key] = r.value(v, "train", key);
    }
  }
  const toml::table& space = *r.table(root, "space", true);
  for (const auto& [k, v] : space) {
    const std::string key = underscores(std::string(k.str()));
    if (!searchable.count(key)) {
      std::string known;
      for (const auto& x : searchable_options()) known += (known.empty() ? "" : ", ") + x;
      throw r.error("space", "'" + std::string(k.str()) + "' cannot be searched (options: " + known + ")");
    }
    if (c.train.contains(key)) throw r.error("space", key + " is also fixed in [train]");
    c.space.params.push_back(read_param(r, key, v));
  }
  if (c.space.params.empty()) throw r.error("space", "no parameter to vary");
}

void read_budget(const Reader& r, const toml::table& root, SearchConfig& c) {
  const toml::table& b = *r.table(root, "budget", true);
  r.only(b, "budget", {"steps", "epochs", "checkpoints"});
  if (b.get("steps")) c.budget.steps = r.integer(b, "budget", "steps", 0, 1);
  if (b.get("epochs")) c.budget.epochs = r.integer(b, "budget", "epochs", 0, 1);
  if (c.budget.steps.has_value() == c.budget.epochs.has_value())
    throw r.error("budget", "give steps (per trial) or epochs, one of them");
  if (b.get("checkpoints")) {
    if (c.budget.epochs) throw r.error("budget", "checkpoints go with steps; with epochs every epoch is one");
    c.budget.checkpoints = r.integer(b, "budget", "checkpoints", 4, 1);
  }
  if (c.budget.steps && *c.budget.steps < c.budget.checkpoints)
    throw r.error("budget", "steps must be at least checkpoints");
}

}  // namespace

SearchConfig parse_search_config(const std::string& toml_text, const std::string& what) {
  toml::table root;
  try {
    root = toml::parse(toml_text, what);
  } catch (const toml::parse_error& e) {
    throw Error(what + ":" + std::to_string(e.source().begin.line), "", std::string(e.description()));
  }
  const Reader r{what};
  r.only(root, "", {"data", "train", "space", "objectives", "search", "pruner", "budget", "latency", "precision"});
  SearchConfig c;

  // [precision]: a trained run's weight precisions are searched instead of
  // training options (precision_trials.h).
  if (const toml::table* p = r.table(root, "precision", false)) {
    r.only(*p, "precision", {"run"});
    c.precision_run = r.text(*p, "precision", "run", "");
    if (c.precision_run.empty()) throw r.error("precision", "run: the trained run whose weights are lowered");
    for (const char* t : {"data", "train", "space", "budget", "latency"})
      if (root.get(t))
        throw r.error(t, "a precision study ([precision]) takes its data from the run and searches each weight "
                         "tensor's precision: leave this table out");
  }
  const bool training = c.precision_run.empty();
  if (training) read_training_tables(r, root, c);

  // [objectives], in a fixed order: score first.
  const toml::table& obj = *r.table(root, "objectives", true);
  r.only(obj, "objectives", {kObjectiveNames.begin(), kObjectiveNames.end()});
  for (const std::string& name : kObjectiveNames) {
    if (!obj.get(name)) continue;
    c.objectives.push_back({name, parse_direction(r.text(obj, "objectives", name, ""), what + " [objectives] " + name)});
  }
  if (c.objectives.empty() || c.objectives.front().name != "score")
    throw r.error("objectives", "score (the validation score) must be one of the objectives");
  if (!training)
    for (const Objective& o : c.objectives)
      if (o.name != "score" && o.name != "onnx_bytes")
        throw r.error("objectives", o.name + ": a precision study has score and onnx_bytes (the weights' precision "
                                    "changes neither the parameters nor LibTorch's latency)");

  // [search]
  if (const toml::table* s = r.table(root, "search", false)) {
    // The study's own keys, then the named sampler's (search_sampler.h):
    // a key of another sampler is refused, naming whose it is.
    c.sampler.name = r.text(*s, "search", "sampler", "tpe");
    std::vector<std::string> keys = {"sampler", "trials", "seed", "pruner", "reference"};
    const std::vector<std::string>& own = sampler_setting_keys(c.sampler.name);
    for (const auto& [k, v] : *s) {
      const std::string key(k.str());
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      if (std::find(own.begin(), own.end(), key) == own.end()) {
        const std::string owner = sampler_owning(key);
        throw r.error("search", owner.empty() ? "unknown key '" + key + "'"
                                              : "'" + key + "' is a setting of sampler " + owner + ", not of " +
                                                    c.sampler.name);
      }
      c.sampler.settings[key] = r.value(v, "search", key);
    }
    c.trials = r.integer(*s, "search", "trials", 30, 1);
    c.sampler.seed = static_cast<uint64_t>(r.integer(*s, "search", "seed", 0, 0));
    c.pruner.name = r.text(*s, "search", "pruner", c.objectives.size() == 1 ? "median" : "none");
    if (const toml::node* ref = s->get("reference")) {
      auto t = ref->as_table();
      if (!t) throw r.error("search", "reference must be a table: { score = 0.0, latency = 50.0 }");
      std::set<std::string> names;
      for (const auto& o : c.objectives) names.insert(o.name);
      r.only(*t, "search", names);
      std::vector<double> v;
      for (const auto& o : c.objectives) {
        if (!t->get(o.name)) throw r.error("search", "reference needs a value for every objective; " + o.name + " is missing");
        v.push_back(r.number(*t, "search", o.name, 0));
      }
      c.reference = v;
    }
  } else {
    c.pruner.name = c.objectives.size() == 1 ? "median" : "none";
  }
  if (c.pruner.name != "none" && c.objectives.size() > 1)
    throw r.error("search", "pruning judges the score alone, which would cut trials that are on the front for "
                            "another objective: use pruner = \"none\" with several objectives");
  if (const toml::table* p = r.table(root, "pruner", false)) {
    r.only(*p, "pruner", {"startup", "warmup", "reduction"});
    c.pruner.startup = static_cast<int>(r.integer(*p, "pruner", "startup", 5, 0));
    c.pruner.warmup = static_cast<int>(r.integer(*p, "pruner", "warmup", 0, 0));
    c.pruner.reduction = static_cast<int>(r.integer(*p, "pruner", "reduction", 3, 2));
  }

  // [budget]
  if (training) read_budget(r, root, c);

  if (const toml::table* l = r.table(root, "latency", false)) {
    r.only(*l, "latency", {"configs", "repeats", "threads"});
    c.latency.configs = r.integer(*l, "latency", "configs", 1000, 1);
    c.latency.repeats = static_cast<int>(r.integer(*l, "latency", "repeats", 5, 1));
    c.latency.threads = static_cast<int>(r.integer(*l, "latency", "threads", 1, 1));
  }
  // The sampler's own checks (an unknown name, nsga2 with one objective);
  // a precision study's space is the run's, checked once it is read.
  if (training) make_sampler(c.sampler, c.space, c.objectives);
  make_pruner(c.pruner);
  return c;
}

SearchConfig read_search_config(const std::string& path) {
  return parse_search_config(read_whole_file(path, "cannot be read"), path);
}

nlohmann::json SearchConfig::to_json() const {
  nlohmann::json j;
  j["train"] = train;
  j["space"] = space.to_json();
  for (const auto& o : objectives) j["objectives"][o.name] = direction_name(o.direction);
  j["sampler"] = {{"name", sampler.name}, {"seed", sampler.seed}, {"settings", sampler.settings}};
  j["pruner"] = {{"name", pruner.name}, {"startup", pruner.startup}, {"warmup", pruner.warmup}, {"reduction", pruner.reduction}};
  j["trials"] = trials;
  j["budget"] = {{"steps", budget.steps ? nlohmann::json(*budget.steps) : nlohmann::json(nullptr)},
                 {"epochs", budget.epochs ? nlohmann::json(*budget.epochs) : nlohmann::json(nullptr)},
                 {"checkpoints", budget.validations()}};
  j["reference"] = reference ? nlohmann::json(*reference) : nlohmann::json(nullptr);
  j["latency"] = {{"configs", latency.configs}, {"repeats", latency.repeats}, {"threads", latency.threads}};
  if (!precision_run.empty()) j["precision_run"] = precision_run;  // only then: older studies resume as they were
  return j;
}

}  // namespace fastslow::search
