#include "search/search_config.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow::search {
namespace {

// The issue's example, as a user would write it.
const char* kExample = R"(
[data]                            # as `train` takes it
data = "data"
collection = "layout:xla:random"
[space]
hidden = [16, 32, 64]
layers = { low = 1, high = 4 }
lr = { low = 1e-4, high = 1e-2, log = true }
[objectives]
latency = "minimize"
score = "maximize"
[search]
sampler = "tpe"
trials = 30
seed = 0
[budget]
steps = 300
)";

TEST(SearchConfig, ReadsTheIssuesExample) {
  const SearchConfig c = parse_search_config(kExample, "SEARCH.toml");
  EXPECT_EQ(c.train["data"], "data");
  EXPECT_EQ(c.train["collection"], "layout:xla:random");
  ASSERT_EQ(c.space.params.size(), 3u);
  const Param* hidden = nullptr;
  const Param* layers = nullptr;
  const Param* lr = nullptr;
  for (const Param& p : c.space.params) {
    if (p.name == "hidden") hidden = &p;
    if (p.name == "layers") layers = &p;
    if (p.name == "lr") lr = &p;
  }
  ASSERT_TRUE(hidden && layers && lr);
  EXPECT_EQ(hidden->kind, ParamKind::Categorical);
  EXPECT_EQ(hidden->choices, (std::vector<nlohmann::json>{16, 32, 64}));
  EXPECT_EQ(layers->kind, ParamKind::Int);
  EXPECT_EQ(lr->kind, ParamKind::Float);
  EXPECT_TRUE(lr->log);
  ASSERT_EQ(c.objectives.size(), 2u);
  EXPECT_EQ(c.objectives[0].name, "score");  // score first, whatever the file's order
  EXPECT_EQ(c.objectives[1].direction, Direction::Minimize);
  EXPECT_EQ(c.sampler.name, "tpe");
  EXPECT_EQ(c.trials, 30);
  EXPECT_EQ(*c.budget.steps, 300);
  EXPECT_EQ(c.budget.validations(), 4);
  EXPECT_EQ(c.pruner.name, "none");  // several objectives: no pruning by default
}

std::string error_of(const std::string& toml) {
  return test::error_of([&] { parse_search_config(toml, "S.toml"); });
}

TEST(SearchConfig, RefusesWhatCannotWorkWithAMessage) {
  const std::string base = "[data]\ndata = \"d\"\ncollection = \"layout:xla:random\"\n[objectives]\nscore = \"maximize\"\n[budget]\nepochs = 2\n";
  EXPECT_EQ(error_of(base + "[space]\nhidden = [8, 16]\n"), "");
  EXPECT_NE(error_of(base + "[space]\nhiden = [8, 16]\n").find("'hiden' cannot be searched"), std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nout = [\"a\"]\n").find("cannot be searched"), std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nlr = { low = 0.0, high = 1e-2, log = true }\n").find("log range needs low > 0"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nlayers = { low = 4, high = 1 }\n").find("low must be below high"), std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8, 8]\n").find("listed twice"), std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\nsampler = \"cmaes\"\n").find("sampler must be"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\nsampler = \"nsga2\"\n").find("nsga2 is for several"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\ntrails = 3\n").find("unknown key 'trails'"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[budget2]\n").find("unknown key 'budget2'"), std::string::npos);
  // Each sampler reads its own settings: another sampler's key is refused, naming its owner.
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\nsampler = \"tpe\"\npopulation = 8\n")
                .find("'population' is a setting of sampler nsga2, not of tpe"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\nsampler = \"random\"\nstartup = 3\n")
                .find("'startup' is a setting of sampler tpe"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[space]\nhidden = [8]\n[search]\nsampler = \"tpe\"\ncandidates = 0\n").find("candidates"),
            std::string::npos);
  const auto tpe = parse_search_config(base + "[space]\nhidden = [8]\n[search]\nsampler = \"tpe\"\nstartup = 3\n", "S.toml");
  EXPECT_EQ(tpe.sampler.settings, (nlohmann::json{{"startup", 3}}));
  EXPECT_EQ(tpe.to_json()["sampler"]["settings"]["startup"], 3);
  // TOML syntax errors name the line.
  EXPECT_NE(error_of(base + "[space]\nhidden = [8,\n").find("S.toml:"), std::string::npos);
  // Pruning with several objectives would cut trials on the front.
  EXPECT_NE(error_of("[data]\ngraph = \"g.npz\"\n[objectives]\nscore = \"maximize\"\nparams = \"minimize\"\n"
                     "[budget]\nepochs = 2\n[space]\nhidden = [8]\n[search]\npruner = \"median\"\n")
                .find("pruning judges the score alone"),
            std::string::npos);
  EXPECT_NE(error_of("[data]\ngraph = \"g.npz\"\n[objectives]\nlatency = \"minimize\"\n[budget]\nepochs = 2\n[space]\nhidden = [8]\n")
                .find("score"),
            std::string::npos);
  EXPECT_NE(error_of("[data]\ngraph = \"g.npz\"\ndata = \"d\"\n[objectives]\nscore = \"maximize\"\n[budget]\nepochs = 2\n[space]\nhidden = [8]\n")
                .find("or graph"),
            std::string::npos);
  EXPECT_NE(error_of(base.substr(0, base.find("[budget]")) + "[budget]\nsteps = 10\nepochs = 2\n[space]\nhidden = [8]\n")
                .find("one of them"),
            std::string::npos);
}

TEST(SearchConfig, ListsOfRootsAndReferencePoints) {
  const SearchConfig c = parse_search_config(
      "[data]\ndata = [\"a\", \"b\"]\ncollection = [\"layout:xla:random\", \"layout:nlp:random\"]\n"
      "[train]\nconfigs-per-graph = 16\n[space]\nmodel = [\"sage\", \"attn\"]\n"
      "[objectives]\nscore = \"maximize\"\nlatency = \"minimize\"\n"
      "[search]\nsampler = \"nsga2\"\nreference = { score = 0.0, latency = 50 }\n[budget]\nsteps = 40\ncheckpoints = 2\n",
      "S.toml");
  EXPECT_EQ(c.train["data"], "a,b");
  EXPECT_EQ(c.train["collection"], "layout:xla:random,layout:nlp:random");
  EXPECT_EQ(c.train["configs_per_graph"], 16);
  EXPECT_EQ(*c.reference, (std::vector<double>{0.0, 50.0}));
  EXPECT_EQ(c.budget.validations(), 2);
  EXPECT_EQ(c.to_json()["budget"]["checkpoints"], 2);
}

}  // namespace
// A precision study: a run and its objectives; the tables a training study
// needs are refused, and so are objectives the precision cannot change.
TEST(SearchConfig, APrecisionStudyTakesARunAndRefusesTrainingTables) {
  const std::string base = "[precision]\nrun = \"runs/x\"\n[objectives]\nscore = \"maximize\"\n";
  const SearchConfig c = parse_search_config(base + "onnx_bytes = \"minimize\"\n[search]\nsampler = \"nsga2\"\n", "P.toml");
  EXPECT_EQ(c.precision_run, "runs/x");
  EXPECT_TRUE(c.space.params.empty());  // the run's, read by precision_space
  EXPECT_EQ(c.objectives.size(), 2u);
  EXPECT_EQ(c.to_json()["precision_run"], "runs/x");
  EXPECT_FALSE(parse_search_config(kExample, "S.toml").to_json().contains("precision_run"));
  EXPECT_NE(error_of(base + "[space]\nhidden = [8, 16]\n").find("[space] a precision study"), std::string::npos);
  EXPECT_NE(error_of(base + "[budget]\nsteps = 4\n").find("[budget] a precision study"), std::string::npos);
  EXPECT_NE(error_of(base + "latency = \"minimize\"\n").find("latency: a precision study"), std::string::npos);
  EXPECT_NE(error_of("[precision]\n[objectives]\nscore = \"maximize\"\n").find("run: the trained run"),
            std::string::npos);
  EXPECT_NE(error_of("[precision]\nrun = \"x\"\nruns = 1\n[objectives]\nscore = \"maximize\"\n").find("unknown key 'runs'"),
            std::string::npos);
}

}  // namespace fastslow::search
