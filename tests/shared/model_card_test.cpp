#include "fastslow/rank/model_card.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/features/tile_features.h"
#include "test_support.h"

namespace fastslow {
namespace {

nlohmann::json stats(int64_t width) {
  nlohmann::json s = {{"log_scale", nlohmann::json::array()}, {"mean", nlohmann::json::array()},
                      {"stddev", nlohmann::json::array()}};
  for (int64_t i = 0; i < width; ++i) {
    s["log_scale"].push_back(i % 2);
    s["mean"].push_back(0.5 * static_cast<double>(i));
    s["stddev"].push_back(1.0 + static_cast<double>(i));
  }
  return s;
}

// The fields the readers need; `fastslow export` writes more.
nlohmann::json card(const std::string& kind) {
  nlohmann::json j = {{"format", "fastslow-model"},
                      {"format_version", 1},
                      {"kind", kind},
                      {"model", {{"name", "attn"}, {"hidden", 64}, {"layers", 3}, {"opcode_vocab", 121}}},
                      {"node_feat_width", 7},
                      {"config_feat_width", kind == "tile" ? 5 : 4},
                      {"normalization", {{"node", stats(7)}}},
                      {"pruning", {{"khop", 2}}},
                      {"batching", {{"chunk", 64}}}};
  if (kind == "tile") j["normalization"]["config"] = stats(5);
  return j;
}

TEST(ModelCard, ReadsWhatTheReadersNeed) {
  const ModelCard c = ModelCard::from_json(card("layout").dump(), "m/model.json");
  EXPECT_EQ(c.kind, GraphKind::Layout);
  EXPECT_EQ(c.model, "attn");
  EXPECT_EQ(c.join, "early");
  EXPECT_EQ(c.hidden, 64);
  EXPECT_EQ(c.layers, 3);
  EXPECT_EQ(c.opcode_vocab, 121);
  EXPECT_EQ(c.node_feat_width, 7);
  EXPECT_EQ(c.config_feat_width, 4);
  EXPECT_EQ(c.node_stats.width(), 7);
  EXPECT_DOUBLE_EQ(c.node_stats.stddev[3], 4.0);
  EXPECT_EQ(c.khop, 2);
  EXPECT_EQ(c.chunk, 64);
  const ModelCard t = ModelCard::from_json(card("tile").dump(), "m/model.json");
  EXPECT_EQ(t.kind, GraphKind::Tile);
  EXPECT_EQ(t.config_stats.width(), 5);
}

TEST(ModelCard, MalformedCardsNameTheFileAndTheProblem) {
  auto error = [](const std::string& text) {
    return test::error_of([&] { ModelCard::from_json(text, "dir/model.json"); });
  };
  EXPECT_NE(error("{not json").find("dir/model.json"), std::string::npos);
  EXPECT_NE(error("{\"format\": \"other\"}").find("not a fastslow model card"), std::string::npos);
  nlohmann::json j = card("layout");
  j["format_version"] = 9;
  EXPECT_NE(error(j.dump()).find("format version 9"), std::string::npos);
  j = card("layout");
  j.erase("pruning");
  EXPECT_NE(error(j.dump()).find("\"pruning\""), std::string::npos);
  j = card("layout");
  j["node_feat_width"] = 8;
  EXPECT_NE(error(j.dump()).find("node statistics cover 7 columns"), std::string::npos);
  j = card("tile");
  j["normalization"].erase("config");
  EXPECT_NE(error(j.dump()).find("\"config\""), std::string::npos);
  j = card("layout");
  j["batching"]["chunk"] = 0;
  EXPECT_NE(error(j.dump()).find("\"chunk\" must be an integer >= 1"), std::string::npos);
  j = card("layout");
  j["kind"] = "graph";
  EXPECT_NE(error(j.dump()).find("unknown kind 'graph'"), std::string::npos);
  j = card("layout");
  j["pruning"]["khop"] = int64_t{1} << 40;  // was cast to int without a check
  EXPECT_NE(error(j.dump()).find("\"khop\" 1099511627776 is out of range"), std::string::npos);
}

TEST(ModelCard, RefusesGraphsOfAnotherKindOrOtherWidths) {
  const ModelCard c = ModelCard::from_json(card("layout").dump(), "model.json");
  EXPECT_NO_THROW(c.check_fits("g.npz", GraphKind::Layout, 7, 4));
  std::string msg = test::error_of([&] { c.check_fits("g.npz", GraphKind::Tile, 7, 4); });
  EXPECT_NE(msg.find("g.npz"), std::string::npos);
  EXPECT_NE(msg.find("is a tile graph; the model ranks layout graphs"), std::string::npos) << msg;
  msg = test::error_of([&] { c.check_fits("g.npz", GraphKind::Layout, 140, 4); });
  EXPECT_NE(msg.find("node_feat"), std::string::npos);
  EXPECT_NE(msg.find("has 140 feature columns; the model was trained on 7"), std::string::npos) << msg;
  msg = test::error_of([&] { c.check_fits("g.npz", GraphKind::Layout, 7, 18); });
  EXPECT_NE(msg.find("node_config_feat"), std::string::npos);
  EXPECT_NE(msg.find("has 18 config feature columns; the model was trained on 4"), std::string::npos) << msg;
}

TEST(ModelCard, TileModelsWithTilingFeaturesFitThePublishedWidth) {
  nlohmann::json j = card("tile");
  j["config_feat_width"] = kTileConfigColumns + kTileDerived;
  j["normalization"]["config"] = stats(kTileConfigColumns + kTileDerived);
  j["normalization"]["tile_features"] = true;
  const ModelCard c = ModelCard::from_json(j.dump(), "model.json");
  EXPECT_TRUE(c.tile_features);
  EXPECT_EQ(c.graph_config_width(), kTileConfigColumns);
  EXPECT_NO_THROW(c.check_fits("k.npz", GraphKind::Tile, 7, kTileConfigColumns));
  const std::string msg = test::error_of([&] { c.check_fits("k.npz", GraphKind::Tile, 7, 48); });
  EXPECT_NE(msg.find("has 48 config feature columns; the model was trained on 24"), std::string::npos) << msg;
  // The flag needs the published width, and a boolean.
  j["normalization"]["tile_features"] = "yes";
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "model.json"); }).find("true or false"),
            std::string::npos);
  nlohmann::json k = card("tile");
  k["normalization"]["tile_features"] = true;
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(k.dump(), "model.json"); }).find("48 config columns, not 5"),
            std::string::npos);
}

TEST(ModelCard, PerProgramModelsRankTheirOwnGraphOnly) {
  nlohmann::json j = card("layout");
  j["model"]["wide_nodes"] = 3;
  j["data"] = {{"mode", "per-program"},
               {"program", {{"graph", "unet3d.npz"}, {"nodes", 2774}, {"edges", 4730}, {"config_nodes", 3}}}};
  const ModelCard c = ModelCard::from_json(j.dump(), "m/model.json");
  EXPECT_EQ(c.wide_nodes, 3);
  EXPECT_EQ(c.program.graph, "unet3d.npz");
  EXPECT_NO_THROW(c.check_program("unet3d.npz", 2774, 4730, 3));
  const std::string e = test::error_of([&] { c.check_program("other.npz", 490, 749, 3); });
  EXPECT_NE(e.find("other.npz"), std::string::npos) << e;
  EXPECT_NE(e.find("not the program"), std::string::npos) << e;
  EXPECT_NE(e.find("unet3d.npz: 2774 nodes"), std::string::npos) << e;
  // Any graph fits a model without a table.
  EXPECT_NO_THROW(ModelCard::from_json(card("layout").dump(), "m/model.json").check_program("x.npz", 1, 0, 9));
  // A table without its program, or of another size, is a malformed card.
  j["data"].erase("program");
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); }).find("program"), std::string::npos);
  j["data"]["program"] = {{"graph", "g"}, {"nodes", 10}, {"edges", 9}, {"config_nodes", 4}};
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); }).find("covers 3"), std::string::npos);
}

TEST(ModelCard, CarriesTheCollectionOfACollectionModeModel) {
  EXPECT_FALSE(ModelCard::from_json(card("layout").dump(), "m/model.json").collection.has_value());
  nlohmann::json j = card("layout");
  j["data"] = {{"mode", "collection"}, {"collection", "layout:nlp:default"}, {"source", "nlp"}};
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").collection, "layout:nlp:default");
  j["data"]["collection"] = nullptr;
  EXPECT_FALSE(ModelCard::from_json(j.dump(), "m/model.json").collection.has_value());
  // An unknown collection, or one of the other kind, is a malformed card.
  j["data"]["collection"] = "layout:tpu:default";
  std::string e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
  EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
  EXPECT_NE(e.find("data.collection"), std::string::npos) << e;
  EXPECT_NE(e.find("layout:tpu:default"), std::string::npos) << e;
  j["data"]["collection"] = "tile:xla";
  e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
  EXPECT_NE(e.find("'tile:xla' is not a layout collection"), std::string::npos) << e;
  j["data"]["collection"] = 3;
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); }).find("must be a string"),
            std::string::npos);
}

// The weights' precision (export --precision): fp32 where the card says
// none; an unknown one is a malformed card naming the file. And the ONNX
// file's size, where the card records it.
TEST(ModelCard, CarriesTheWeightsPrecisionAndTheFilesSize) {
  EXPECT_EQ(ModelCard::from_json(card("layout").dump(), "m/model.json").weight_precision, "fp32");
  nlohmann::json j = card("layout");
  for (const char* p : {"fp32", "fp16", "int8", "per-layer"}) {
    j["precision"] = {{"weights", p}, {"lowered", 3}, {"kept_fp32", 2}, {"tensors", nlohmann::json::array()}};
    EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").weight_precision, p);
  }
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").onnx_bytes, 0);
  j["onnx"] = {{"file", "model.onnx"}, {"opset", 17}, {"bytes", 97707}};
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").onnx_bytes, 97707);
  j["precision"]["weights"] = "int4";
  const std::string e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
  EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
  EXPECT_NE(e.find("precision.weights 'int4'"), std::string::npos) << e;
}

TEST(ModelCard, CarriesTheTrainingDataProfileWhenThereIsOne) {
  EXPECT_FALSE(ModelCard::from_json(card("layout").dump(), "m/model.json").training_data.has_value());
  nlohmann::json j = card("layout");
  j["training_data"] = {{"version", 1},         {"kind", "layout"},   {"origin", "generated"},
                        {"source", "layout:xla:default"}, {"graphs", 13}, {"nodes", {300, 2500}},
                        {"config_nodes", {20, 300}},      {"node_min", {0, 0}}, {"node_max", {1, 5}},
                        {"opcodes", {2, 40}},             {"layout_values", {{-1, 0, 1}, {0, 1}}}};
  const ModelCard c = ModelCard::from_json(j.dump(), "m/model.json");
  ASSERT_TRUE(c.training_data.has_value());
  EXPECT_EQ(c.training_data->origin, "generated");
  EXPECT_EQ(c.training_data->max_config_nodes, 300);
  EXPECT_EQ(c.training_data->summary(), "generated data (layout:xla:default): 13 graphs of 300-2,500 nodes, 20-300 configurable, 2 opcodes");
  j["training_data"]["kind"] = "tile";
  j["training_data"]["config_min"] = {0};
  j["training_data"]["config_max"] = {1};
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); }).find("other graph kind"), std::string::npos);
  j["training_data"] = {{"version", 1}};
  const std::string e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
  EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
}

nlohmann::json ensemble_card() {
  nlohmann::json j = card("layout");
  j["model"]["name"] = "ensemble";
  j["ensemble"] = {{"combine", "weighted"},
                   {"members",
                    {{{"run", "seed-0"}, {"model", "focus"}, {"hidden", 32}, {"layers", 2}, {"join", "early"},
                      {"parameters", 1000}, {"weight", 0.75}, {"scale", 2.0}, {"valid_score", 0.6},
                      {"weights_file", "member-0.pt"}},
                     {{"run", "sage-1"}, {"model", "sage"}, {"hidden", 16}, {"layers", 3}, {"parameters", 500},
                      {"weight", 0.25}, {"scale", 0.5}, {"valid_score", nullptr}, {"weights_file", "member-1.pt"}}}}};
  return j;
}

TEST(ModelCard, ReadsAnEnsemblesMembers) {
  EXPECT_FALSE(ModelCard::from_json(card("layout").dump(), "m/model.json").ensemble.has_value());
  const ModelCard c = ModelCard::from_json(ensemble_card().dump(), "m/model.json");
  ASSERT_TRUE(c.ensemble.has_value());
  EXPECT_EQ(c.model, "ensemble");
  EXPECT_EQ(c.ensemble->combine, "weighted");
  ASSERT_EQ(c.ensemble->members.size(), 2u);
  const auto& a = c.ensemble->members[0];
  EXPECT_EQ(a.run, "seed-0");
  EXPECT_EQ(a.model, "focus");
  EXPECT_EQ(a.hidden, 32);
  EXPECT_EQ(a.layers, 2);
  EXPECT_EQ(a.parameters, 1000);
  EXPECT_DOUBLE_EQ(a.weight, 0.75);
  EXPECT_DOUBLE_EQ(a.scale, 2.0);
  EXPECT_DOUBLE_EQ(a.valid_score, 0.6);
  EXPECT_EQ(a.weights_file, "member-0.pt");
  const auto& b = c.ensemble->members[1];
  EXPECT_EQ(b.model, "sage");
  EXPECT_EQ(b.join, "early");  // left out: early, as for a single model
  EXPECT_TRUE(std::isnan(b.valid_score));
  EXPECT_EQ(b.weights_file, "member-1.pt");
  // What prepares a graph is the card's own, read as for a single model.
  EXPECT_EQ(c.khop, 2);
  EXPECT_EQ(c.chunk, 64);
  EXPECT_NO_THROW(c.check_fits("g.npz", GraphKind::Layout, 7, 4));
}

// A focus model on the 18 layout values reads the layout context: a card of
// another version of it, or of none, is refused naming the card; a model
// that reads no context (attn, or focus on other widths) needs no record.
TEST(ModelCard, AFocusModelOfAnotherLayoutContextIsRefused) {
  const int64_t published = static_cast<int64_t>(node_feature_names().size());
  nlohmann::json j = card("layout");
  j["model"]["name"] = "focus";
  j["config_feat_width"] = 3 * LayoutContext::kSlots;
  j["node_feat_width"] = published;
  j["normalization"]["node"] = stats(published);
  const std::vector<nlohmann::json> others = {nullptr, 1, LayoutContext::kVersion + 1};
  for (const nlohmann::json& recorded : others) {
    if (recorded.is_null()) j["normalization"].erase("layout_context");
    else j["normalization"]["layout_context"] = recorded;
    const std::string e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
    EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
    EXPECT_NE(e.find("train it again"), std::string::npos) << e;
  }
  j["normalization"]["layout_context"] = LayoutContext::kVersion;
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").model, "focus");
  j["normalization"]["layout_context"] = "2";
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); }).find("layout_context"),
            std::string::npos);
  j["normalization"].erase("layout_context");
  j["model"]["name"] = "attn";
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").model, "attn");
  j["model"]["name"] = "focus";
  j["config_feat_width"] = 4;
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").model, "focus");
  // Files without the published columns always got the "unknown" table.
  j["config_feat_width"] = 3 * LayoutContext::kSlots;
  j["node_feat_width"] = 7;
  j["normalization"]["node"] = stats(7);
  EXPECT_EQ(ModelCard::from_json(j.dump(), "m/model.json").model, "focus");
  j["node_feat_width"] = published;
  j["normalization"]["node"] = stats(published);
  // An ensemble with a member that reads it is held to it too.
  nlohmann::json e = ensemble_card();
  e["config_feat_width"] = 3 * LayoutContext::kSlots;
  e["node_feat_width"] = published;
  e["normalization"]["node"] = stats(published);
  EXPECT_NE(test::error_of([&] { ModelCard::from_json(e.dump(), "m/model.json"); }).find("train it again"),
            std::string::npos);
  e["normalization"]["layout_context"] = LayoutContext::kVersion;
  EXPECT_TRUE(ModelCard::from_json(e.dump(), "m/model.json").ensemble.has_value());
}

TEST(ModelCard, RefusesAnEnsembleItCannotRankWith) {
  auto error = [](const nlohmann::json& j) {
    return test::error_of([&] { ModelCard::from_json(j.dump(), "ens/model.json"); });
  };
  nlohmann::json j = ensemble_card();
  j["ensemble"]["combine"] = "rank";
  std::string e = error(j);
  EXPECT_NE(e.find("ens/model.json"), std::string::npos) << e;
  EXPECT_NE(e.find("rank positions"), std::string::npos) << e;
  j = ensemble_card();
  j["ensemble"]["combine"] = "median";
  EXPECT_NE(error(j).find("mean or weighted, not 'median'"), std::string::npos);
  j = ensemble_card();
  j["ensemble"]["members"][1]["weight"] = 0.5;
  EXPECT_NE(error(j).find("weights sum to 1.25"), std::string::npos) << error(j);
  j = ensemble_card();
  j["ensemble"]["members"][1]["scale"] = 0;
  EXPECT_NE(error(j).find("member sage-1 has a scale that is not positive"), std::string::npos) << error(j);
  j = ensemble_card();
  j["ensemble"]["members"][0]["weights_file"] = "../elsewhere/model.pt";
  EXPECT_NE(error(j).find("weights_file must name a file beside the card"), std::string::npos) << error(j);
  j = ensemble_card();
  j["ensemble"]["members"][0].erase("hidden");
  EXPECT_NE(error(j).find("\"hidden\""), std::string::npos) << error(j);
  j = ensemble_card();
  j["ensemble"]["members"] = nlohmann::json::array();
  EXPECT_NE(error(j).find("at least one member"), std::string::npos);
  j = ensemble_card();
  j.erase("ensemble");
  EXPECT_NE(error(j).find("without an \"ensemble\" object"), std::string::npos) << error(j);
}

// Inputs the model_card fuzzer found (fuzz/corpus/model_card/regress-*):
// each must be the core's Error, never undefined behaviour or nlohmann's own
// exception escaping.
std::string fuzz_card_error(const std::string& name) {
  const std::vector<uint8_t> bytes = test::fuzz_input("model_card", name);
  return test::error_of([&] { ModelCard::from_json(std::string(bytes.begin(), bytes.end()), "fuzz/model.json"); });
}

TEST(ModelCardFuzz, ProfileOpcodeBeyondIntIsAnError) {
  // Was a double -> int32 conversion out of range (UBSan: float-cast-overflow).
  const std::string e = fuzz_card_error("regress-profile-opcode-beyond-int.json");
  EXPECT_NE(e.find("\"opcodes\" holds"), std::string::npos) << e;
}

TEST(ModelCardFuzz, FormatOfAnotherTypeIsAnError) {
  // Was nlohmann::json::type_error from json::value("format", "").
  const std::string e = fuzz_card_error("regress-format-not-a-string.json");
  EXPECT_NE(e.find("not a fastslow model card"), std::string::npos) << e;
}

TEST(ModelCardFuzz, JoinOfAnotherTypeIsAnError) {
  // Was nlohmann::json::type_error from json::value("join", "early"); the
  // ensemble members' join was read the same way.
  std::string e = fuzz_card_error("regress-join-not-a-string.json");
  EXPECT_NE(e.find("\"join\" must be a string"), std::string::npos) << e;
  nlohmann::json j = card("layout");
  j["model"]["name"] = "ensemble";
  j["ensemble"] = {{"combine", "mean"},
                   {"members", {{{"run", "a"}, {"model", "sage"}, {"join", {1, 2}}, {"hidden", 8}, {"layers", 1},
                                 {"weight", 1.0}, {"scale", 1.0}, {"weights_file", "member-0.pt"}}}}};
  e = test::error_of([&] { ModelCard::from_json(j.dump(), "m/model.json"); });
  EXPECT_NE(e.find("\"join\" must be a string"), std::string::npos) << e;
}

}  // namespace
}  // namespace fastslow
