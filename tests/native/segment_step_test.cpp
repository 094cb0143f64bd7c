// Graph segment training: the cut (segments.h) against a naive reading of
// the graph, and the step (segment_step.h) against the whole-graph step.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>

#include "fastslow/data/collection.h"
#include "fastslow/features/layout_context.h"
#include "model_test_graphs.h"
#include "tiny_data.h"
#include "train/loaded_run.h"
#include "train/segment_step.h"
#include "models/registry.h"

namespace fastslow::train {
namespace {

std::vector<int64_t> values(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

std::set<std::pair<int64_t, int64_t>> edge_set(const models::GraphTensors& g, const std::vector<int64_t>& ids) {
  std::set<std::pair<int64_t, int64_t>> out;
  const std::vector<int64_t> s = values(g.edge_src), d = values(g.edge_dst);
  for (size_t i = 0; i < s.size(); ++i) out.insert({ids[static_cast<size_t>(s[i])], ids[static_cast<size_t>(d[i])]});
  return out;
}

TEST(Segments, TopologicalOrderPutsProducersFirst) {
  // Producers with higher ids than their consumers: the order is not the id order.
  const models::GraphTensors g = models::make_graph_tensors(5, 1, std::vector<float>(5, 0.f), {1, 2, 3, 4, 5},
                                                            {0, 3, 3, 4, 1, 0, 2, 1}, {});
  const std::vector<int64_t> order = topological_order(g);
  ASSERT_EQ(order.size(), 5u);
  std::vector<size_t> place(5);
  for (size_t i = 0; i < order.size(); ++i) place[static_cast<size_t>(order[i])] = i;
  const std::vector<int64_t> s = values(g.edge_src), d = values(g.edge_dst);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_LT(place[static_cast<size_t>(s[i])], place[static_cast<size_t>(d[i])]);
  EXPECT_EQ(order, (std::vector<int64_t>{4, 3, 0, 1, 2}));  // rows [consumer, producer]: 4 -> 3 -> 0 -> 1 -> 2
}

TEST(Segments, CutCoversEveryNodeOnceKeepsInnerEdgesAndMapsConfigColumns) {
  const models::GraphTensors g = test::random_graph(203, 4, 11, 37);
  const std::vector<int64_t> all_config = values(g.config_nodes);
  const std::vector<int64_t> src = values(g.edge_src), dst = values(g.edge_dst);
  for (int64_t s : {1, 7, 50, 203, 1000}) {
    const std::vector<GraphSegment> segs = make_segments(g, s);
    EXPECT_EQ(static_cast<int64_t>(segs.size()), (203 + s - 1) / s);
    std::vector<int> seen(203, 0);
    std::vector<int64_t> segment_of(203);
    size_t columns = 0;
    for (size_t k = 0; k < segs.size(); ++k) {
      const std::vector<int64_t> ids = values(segs[k].nodes);
      EXPECT_LE(static_cast<int64_t>(ids.size()), s);
      EXPECT_EQ(segs[k].graph.num_nodes, static_cast<int64_t>(ids.size()));
      for (int64_t v : ids) {
        ++seen[static_cast<size_t>(v)];
        segment_of[static_cast<size_t>(v)] = static_cast<int64_t>(k);
      }
      // Node features and opcodes follow their node.
      EXPECT_TRUE(torch::equal(segs[k].graph.node_feat, g.node_feat.index_select(0, segs[k].nodes)));
      EXPECT_TRUE(torch::equal(segs[k].graph.opcode, g.opcode.index_select(0, segs[k].nodes)));
      // Each local configurable node is the whole graph's configurable node of its column.
      const std::vector<int64_t> local = values(segs[k].graph.config_nodes), cols = values(segs[k].config_columns);
      ASSERT_EQ(local.size(), cols.size());
      for (size_t j = 0; j < local.size(); ++j)
        EXPECT_EQ(ids[static_cast<size_t>(local[j])], all_config[static_cast<size_t>(cols[j])]);
      columns += cols.size();
    }
    for (int c : seen) EXPECT_EQ(c, 1);
    EXPECT_EQ(columns, all_config.size());
    // The inner edges are exactly the graph's edges within one segment.
    std::set<std::pair<int64_t, int64_t>> expected, got;
    for (size_t i = 0; i < src.size(); ++i)
      if (segment_of[static_cast<size_t>(src[i])] == segment_of[static_cast<size_t>(dst[i])])
        expected.insert({src[i], dst[i]});
    for (const GraphSegment& seg : segs) {
      const auto e = edge_set(seg.graph, values(seg.nodes));
      got.insert(e.begin(), e.end());
    }
    EXPECT_EQ(got, expected) << "S = " << s;
  }
  EXPECT_THROW(make_segments(g, 0), Error);
}

// The layout context names operands' producers by the whole graph's
// configurable columns; a segment's names its own, or none (-1) for a
// producer cut off into another segment.
TEST(Segments, ProducerColumnsBecomeTheSegmentsOwn) {
  models::GraphTensors g = test::random_graph(203, 4, 11, 37);
  const int64_t nc = g.config_nodes.numel(), width = LayoutContext::kWidth;
  ASSERT_GT(nc, 10);
  std::vector<float> context(static_cast<size_t>(nc * width), 0.5f);
  for (int64_t j = 0; j < nc; ++j) {
    context[static_cast<size_t>(j * width + LayoutContext::kInProducer)] = j % 3 == 0 ? -1.f : static_cast<float>((j * 7) % nc);
    context[static_cast<size_t>(j * width + LayoutContext::kKernelProducer)] = static_cast<float>((j + 1) % nc);
  }
  models::set_config_context(g, context, width);
  for (const GraphSegment& seg : make_segments(g, 50)) {
    const std::vector<int64_t> cols = values(seg.config_columns);
    const torch::Tensor c = seg.graph.config_context;
    ASSERT_EQ(c.size(0), static_cast<int64_t>(cols.size()));
    for (size_t r = 0; r < cols.size(); ++r)
      for (int p : {LayoutContext::kInProducer, LayoutContext::kKernelProducer}) {
        const float whole = context[static_cast<size_t>(cols[r] * width + p)];
        const auto at = std::find(cols.begin(), cols.end(), static_cast<int64_t>(whole));
        const float expected = whole >= 0 && at != cols.end() ? static_cast<float>(at - cols.begin()) : -1.f;
        EXPECT_EQ(c[static_cast<int64_t>(r)][p].item<float>(), expected) << "column " << cols[r];
      }
    EXPECT_EQ(c[0][0].item<float>(), 0.5f);  // the rest of the row is the node's own
  }
}

models::RankModel small_layout_model(const char* name) {
  models::ModelOptions o;
  o.kind = "layout";
  o.name = name;
  o.hidden = 16;
  torch::manual_seed(1);
  return models::make_model(o);
}

TEST(Segments, ModelsSplitIntoNodeStatesAndReadoutExactly) {
  const models::GraphTensors g = test::random_graph(60, 140, 3, 9);
  for (const char* name : {"focus", "attn", "sage"}) {
    const models::RankModel model = small_layout_model(name);
    models::SegmentableModel* m = model->segmentable();
    ASSERT_NE(m, nullptr) << name;
    const torch::Tensor c = test::random_layout_configs(5, 9, 18);
    torch::NoGradGuard no_grad;
    const torch::Tensor whole = model->forward(g, c), split = m->readout(g, m->node_states(g, c), c);
    EXPECT_TRUE(torch::allclose(whole, split, 1e-5, 1e-6)) << name;
  }
}

// GST's history adds up per-segment shares of the readout: cut a graph's
// states into segments, and the shares of all of them, each counted once,
// are the readout; counting one share twice is having it in two rows.
TEST(Segments, SegmentSharesAddUpToTheReadout) {
  const models::GraphTensors g = test::random_graph(60, 140, 3, 9);
  for (const char* name : {"focus", "attn", "sage"}) {
    const models::RankModel model = small_layout_model(name);
    models::SegmentableModel* m = model->segmentable();
    ASSERT_NE(m, nullptr) << name;
    const torch::Tensor c = test::random_layout_configs(5, 9, 18);
    torch::NoGradGuard no_grad;
    const torch::Tensor states = m->node_states(g, c);
    const std::vector<GraphSegment> segs = make_segments(g, 13);
    ASSERT_EQ(segs.size(), 5u);
    std::vector<torch::Tensor> shares;
    for (const GraphSegment& s : segs) {
      const torch::Tensor cs = c.index_select(1, s.config_columns);
      shares.push_back(m->segment_summary(s.graph, states.index_select(0, s.nodes), cs));
      EXPECT_EQ(shares.back().size(0), 5) << name;
    }
    const torch::Tensor all = torch::stack(shares);
    const torch::Tensor ones = torch::ones({5, 5});
    EXPECT_TRUE(torch::allclose(m->summary_readout(g, all, ones, c), m->readout(g, states, c), 1e-4, 1e-5)) << name;
    // Weights 2 and 0 on segments 0 and 1 == segment 0's share in both rows.
    torch::Tensor w = ones.clone();
    w[0].fill_(2);
    w[1].fill_(0);
    torch::Tensor twice = all.clone();
    twice[1].copy_(all[0]);
    EXPECT_TRUE(torch::allclose(m->summary_readout(g, all, w, c), m->summary_readout(g, twice, ones, c), 1e-4, 1e-5))
        << name;
  }
}

struct Prepared {
  std::shared_ptr<const PreparedData> data;
  TrainOptions o;
};

Prepared tiny_prepared(const std::string& out) {
  Prepared p;
  p.o = small_layout_run(out);
  p.o.kind = "layout";
  p.o.khop = 0;  // whole graphs, as segment training is for
  p.o.apply_defaults();
  p.data = prepare_run_data(p.o);
  return p;
}

std::vector<torch::Tensor> gradients(models::RankModelImpl& m) {
  std::vector<torch::Tensor> out;
  for (const torch::Tensor& p : m.parameters()) out.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  return out;
}

TEST(SegmentStep, OneSegmentIsTheWholeGraphStepAndSmallerOnesTrainEveryLayer) {
  test::TempDir dir;
  const Prepared p = tiny_prepared(dir.file("run"));
  torch::manual_seed(0);
  models::RankModel model = models::make_model(model_options(p.o, p.data->norm));
  Pick pick;
  pick.graph = 0;
  for (int64_t g = 0; g < 8; ++g) pick.groups.push_back(g);
  const int64_t n = p.data->train.at(0).tensors.num_nodes;
  ASSERT_GT(n, 20);

  WholeGraphStep whole(LossSpec::parse(p.o.loss));
  model->zero_grad();
  const double whole_loss = whole.run(*model, *p.data, pick, torch::kCPU).item<double>();
  const std::vector<torch::Tensor> g_whole = gradients(*model);

  SegmentStep one(LossSpec::parse(p.o.loss), torch::kCPU, n, 3);
  model->zero_grad();
  EXPECT_NEAR(one.run(*model, *p.data, pick, torch::kCPU).item<double>(), whole_loss, 1e-6);
  const std::vector<torch::Tensor> g_one = gradients(*model);
  for (size_t i = 0; i < g_whole.size(); ++i) EXPECT_TRUE(torch::allclose(g_one[i], g_whole[i], 1e-5, 1e-7)) << i;

  SegmentStep cut(LossSpec::parse(p.o.loss), torch::kCPU, n / 4 + 1, 3);
  EXPECT_EQ(cut.segments(*p.data, 0).size(), 4u);
  model->zero_grad();
  const double cut_loss = cut.run(*model, *p.data, pick, torch::kCPU).item<double>();
  EXPECT_TRUE(std::isfinite(cut_loss));
  const std::vector<torch::Tensor> g_cut = gradients(*model);
  double differs = 0, total = 0;
  for (size_t i = 0; i < g_cut.size(); ++i) {
    differs += (g_cut[i] - g_whole[i]).abs().sum().item<double>();
    total += g_cut[i].abs().sum().item<double>();
  }
  EXPECT_GT(total, 0);    // the segment's gradient reaches the weights
  EXPECT_GT(differs, 0);  // and it is not the whole graph's
  // The same pick trains the same segment (a resumed run draws the same).
  EXPECT_EQ(cut.segment_of(pick, 4), cut.segment_of(pick, 4));
}

TEST(SegmentStep, HistoryKeepsEachSegmentsShareAndDropsAboutHalfOfTheStaleOnes) {
  test::TempDir dir;
  const Prepared p = tiny_prepared(dir.file("run"));
  torch::manual_seed(0);
  models::RankModel model = models::make_model(model_options(p.o, p.data->norm));
  Pick pick;
  pick.graph = 0;
  for (int64_t g = 0; g < 8; ++g) pick.groups.push_back(g * 2);
  const int64_t n = p.data->train.at(0).tensors.num_nodes;

  // One segment: no table, the whole-graph step.
  WholeGraphStep whole(LossSpec::parse(p.o.loss));
  SegmentStep one(LossSpec::parse(p.o.loss), torch::kCPU, n, 3, HistoryOptions{true});
  model->zero_grad();
  const double whole_loss = whole.run(*model, *p.data, pick, torch::kCPU).item<double>();
  model->zero_grad();
  EXPECT_NEAR(one.run(*model, *p.data, pick, torch::kCPU).item<double>(), whole_loss, 1e-6);
  EXPECT_EQ(one.history().bytes(), 0);

  SegmentStep cut(LossSpec::parse(p.o.loss), torch::kCPU, n / 4 + 1, 3, HistoryOptions{true});
  const std::vector<GraphSegment>& segs = cut.segments(*p.data, 0);
  ASSERT_EQ(segs.size(), 4u);
  model->zero_grad();
  const double loss = cut.run(*model, *p.data, pick, torch::kCPU).item<double>();
  EXPECT_TRUE(std::isfinite(loss));
  double total = 0;
  for (const torch::Tensor& g : gradients(*model)) total += g.abs().sum().item<double>();
  EXPECT_GT(total, 0);
  EXPECT_GT(cut.history().bytes(), 0);
  // Every segment's stored share of every group is what the model gives
  // that segment alone (the weights have not moved since).
  const GraphEntry& e = p.data->train.at(0);
  const Batch b = make_batch(e, pick.groups, p.data->norm, torch::kCPU);
  const torch::Tensor stored = cut.history().get(0, pick.groups);
  ASSERT_EQ(stored.size(0), 4);
  torch::NoGradGuard no_grad;
  for (size_t k = 0; k < segs.size(); ++k) {
    const torch::Tensor c = b.config_feat.index_select(1, segs[k].config_columns);
    models::SegmentableModel& m = *model->segmentable();
    const torch::Tensor share = m.segment_summary(segs[k].graph, m.node_states(segs[k].graph, c), c);
    EXPECT_TRUE(torch::allclose(stored[static_cast<int64_t>(k)], share, 1e-4, 1e-5)) << "segment " << k;
  }
  // Another batch's groups are not this one's: their rows are missing.
  EXPECT_EQ(cut.history().missing(0, 1, {1, 3, 5}).size(), 3u);
  EXPECT_TRUE(cut.history().missing(0, 1, {0, 2}).empty());
  // Stale-embedding dropout keeps about half, as a function of the pick.
  int kept = 0, draws = 0;
  for (int64_t s = 0; s < 400; ++s) {
    Pick q{0, {s, s + 1}};
    for (size_t k = 0; k < 4; ++k) {
      kept += cut.keeps(q, k) ? 1 : 0;
      ++draws;
      EXPECT_EQ(cut.keeps(q, k), cut.keeps(q, k));
    }
  }
  EXPECT_NEAR(static_cast<double>(kept) / draws, HistoryOptions{}.keep, 0.05);
  EXPECT_THROW(SegmentStep(LossSpec::parse(p.o.loss), torch::kCPU, 9, 3, HistoryOptions{true, 0.0}), Error);
}

}  // namespace
}  // namespace fastslow::train
