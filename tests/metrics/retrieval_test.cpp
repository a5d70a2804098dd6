// The retrieval metrics against per-query references in numpy and sklearn
// (average_precision_score, roc_auc_score and ndcg_score with tied scores): documents of 40 queries
// arriving in shuffled order over uneven batches, each top_k, the empty-query actions, the
// aggregations, ignore_index; forward's batch value; the documents of two thread ranks synced; the
// errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_collection.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/retrieval_auroc.h"
#include "fulgur/metrics/retrieval_fall_out.h"
#include "fulgur/metrics/retrieval_hit_rate.h"
#include "fulgur/metrics/retrieval_map.h"
#include "fulgur/metrics/retrieval_mrr.h"
#include "fulgur/metrics/retrieval_normalized_dcg.h"
#include "fulgur/metrics/retrieval_precision.h"
#include "fulgur/metrics/retrieval_r_precision.h"
#include "fulgur/metrics/retrieval_recall.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::py;
using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using fulgur::testing::Throws;

// 40 queries of 3 to 17 documents in shuffled order; queries 0 and 5 have no relevant
// document and query 7 no irrelevant one.
struct Documents {
  torch::Tensor scores, relevant, grades, queries;
};

Documents documents() {
  torch::manual_seed(51);
  const int64_t n = 400;
  auto queries = torch::cat(
      {torch::arange(40).repeat_interleave(3), torch::randint(0, 40, {n - 120}, torch::kLong)});
  queries = queries.index_select(0, torch::randperm(n));
  const auto scores = torch::randn({n}, torch::kDouble);
  auto relevant = (scores + torch::randn({n}, torch::kDouble)).gt(0.8).to(torch::kLong);
  relevant.masked_fill_(queries.eq(0) | queries.eq(5), 0);
  relevant.masked_fill_(queries.eq(7), 1);
  auto grades = (scores + torch::randn({n}, torch::kDouble)).clamp(-1, 2).round().clamp_min(0);
  grades.masked_fill_(queries.eq(0), 0);
  return {scores, relevant, grades.to(torch::kLong), queries};
}

at::Tensor feed(RetrievalMetric& metric, const at::Tensor& preds, const at::Tensor& target,
                const at::Tensor& indexes) {
  const int64_t n = preds.size(0);
  for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 31}, {31, n / 2}, {n / 2, n}}) {
    metric.update(preds.slice(0, a, b), target.slice(0, a, b), indexes.slice(0, a, b));
  }
  return metric.compute();
}

// Python: per_query(fn, s, y, q, empty, need) scores each query as the metric should.
const char* kPerQuery = R"(
def per_query(fn, s, y, q, empty='neg', need=lambda y: (y > 0).any(), agg=np.mean):
    out = []
    for k in np.unique(q):
        ss, yy = s[q == k], y[q == k]
        order = np.argsort(-ss, kind='stable')
        if not need(yy):
            if empty != 'skip':
                out.append(1.0 if empty == 'pos' else 0.0)
            continue
        out.append(fn(ss, yy, yy[order]))
    return agg(out) if out else 0.0
def ap_k(r, k):
    hits = np.flatnonzero(r[:k] > 0)
    return np.mean(np.arange(1, len(hits) + 1) / (hits + 1)) if len(hits) else 0.0
def mrr(r, k):
    hits = np.flatnonzero(r[:k] > 0)
    return 1.0 / (hits[0] + 1) if len(hits) else 0.0
lower_median = lambda v: np.sort(v)[(len(v) - 1) // 2]
def auc_k(s, y, k):
    top = np.argsort(-s, kind='stable')[:k]
    return M.roc_auc_score(y[top], s[top]) if 0 < y[top].sum() < len(top) else 0.0
)";

TEST(Retrieval, MatchesPerQueryReferences) {
  const auto d = documents();
  auto ignored = d.relevant.clone();
  ignored.masked_fill_(torch::rand({d.relevant.size(0)}) < 0.1, -1);
  // Tied scores for the DCG: rounded to one decimal.
  const auto tied = (d.scores * 10).round() / 10;
  std::vector<Check> checks;
  const auto add = [&](const std::string& what, RetrievalMetric&& metric, const at::Tensor& preds,
                       const at::Tensor& target, const std::string& reference) {
    checks.push_back({what, feed(metric, preds, target, d.queries), reference});
  };
  const auto& s = d.scores;
  const auto& y = d.relevant;
  add("map", RetrievalMAP(), s, y,
      "per_query(lambda s, y, r: M.average_precision_score(y, s), S, Y, Q)");
  add("map top 3", RetrievalMAP({.top_k = 3}), s, y,
      "per_query(lambda s, y, r: ap_k(r, 3), S, Y, Q)");
  add("map skip median", RetrievalMAP({.empty_target_action = "skip", .aggregation = "median"}), s,
      y, "per_query(lambda s, y, r: ap_k(r, 99), S, Y, Q, 'skip', agg=lower_median)");
  add("map pos min", RetrievalMAP({.empty_target_action = "pos", .aggregation = "min"}), s, y,
      "per_query(lambda s, y, r: ap_k(r, 99), S, Y, Q, 'pos', agg=np.min)");
  add("map max", RetrievalMAP({.aggregation = "max"}), s, y,
      "per_query(lambda s, y, r: ap_k(r, 99), S, Y, Q, agg=np.max)");
  add("map ignore_index", RetrievalMAP({.ignore_index = -1}), s, ignored,
      "per_query(lambda s, y, r: ap_k(r, 99), S[I != -1], I[I != -1], Q[I != -1])");
  add("mrr", RetrievalMRR(), s, y, "per_query(lambda s, y, r: mrr(r, 99), S, Y, Q)");
  add("mrr top 2", RetrievalMRR({.top_k = 2}), s, y,
      "per_query(lambda s, y, r: mrr(r, 2), S, Y, Q)");
  add("precision", RetrievalPrecision(), s, y, "per_query(lambda s, y, r: r.mean(), S, Y, Q)");
  add("precision top 10", RetrievalPrecision({.top_k = 10}), s, y,
      "per_query(lambda s, y, r: r[:10].sum() / 10, S, Y, Q)");
  add("precision top 10 adaptive", RetrievalPrecision({.top_k = 10}, /*adaptive_k=*/true), s, y,
      "per_query(lambda s, y, r: r[:10].mean(), S, Y, Q)");
  add("recall top 3", RetrievalRecall({.top_k = 3}), s, y,
      "per_query(lambda s, y, r: r[:3].sum() / r.sum(), S, Y, Q)");
  add("hit rate top 3", RetrievalHitRate({.top_k = 3}), s, y,
      "per_query(lambda s, y, r: float(r[:3].any()), S, Y, Q)");
  add("r-precision", RetrievalRPrecision(), s, y,
      "per_query(lambda s, y, r: r[:r.sum()].mean(), S, Y, Q)");
  add("fall-out top 3", RetrievalFallOut({.top_k = 3}), s, y,
      "per_query(lambda s, y, r: (r[:3] == 0).sum() / (r == 0).sum(), S, Y, Q, 'pos', "
      "need=lambda y: (y == 0).any())");
  add("auroc tied", RetrievalAUROC(), tied, y,
      "per_query(lambda s, y, r: M.roc_auc_score(y, s) if 0 < y.sum() < len(y) else 0.0, T, Y, "
      "Q)");
  add("auroc top 6", RetrievalAUROC({.top_k = 6}), s, y,
      "per_query(lambda s, y, r: auc_k(s, y, 6), S, Y, Q)");
  add("ndcg tied", RetrievalNormalizedDCG(), tied, d.grades,
      "per_query(lambda s, y, r: M.ndcg_score([y], [s]), T, G, Q)");
  add("ndcg tied top 4", RetrievalNormalizedDCG({.top_k = 4}), tied, d.grades,
      "per_query(lambda s, y, r: M.ndcg_score([y], [s], k=4), T, G, Q)");
  expect_reference(
      std::string(kPerQuery) + fmt::format("S = np.array({})\nY = np.array({})\nQ = np.array({})\n"
                                           "I = np.array({})\nT = np.array({})\nG = np.array({})\n",
                                           py(s), py(y), py(d.queries), py(ignored), py(tied),
                                           py(d.grades)),
      checks);
}

TEST(Retrieval, ForwardScoresTheBatchAlone) {
  RetrievalMRR mrr;
  const auto q = torch::tensor({0, 0, 1, 1});
  // Query 0: relevant at rank 2; query 1: at rank 1.
  const auto first =
      mrr.forward(torch::tensor({0.9, 0.1, 0.3, 0.8}), torch::tensor({0, 1, 0, 1}), q);
  EXPECT_DOUBLE_EQ(first.item<double>(), (0.5 + 1.0) / 2);
  // A second batch of the same queries: its own value, then the documents of both together.
  const auto second =
      mrr.forward(torch::tensor({0.95, 0.99}), torch::tensor({1, 0}), q.slice(0, 0, 2) + 1);
  EXPECT_DOUBLE_EQ(second.item<double>(), 0.5);  // query 1 only: 0.95 ranks second
  // Query 0: 0.9, 0.1 -> relevant at 2; query 1: 0.99 (no), 0.95 (yes), 0.8, 0.3 -> 1/2.
  EXPECT_DOUBLE_EQ(mrr.compute().item<double>(), 0.5);
  EXPECT_EQ(mrr.update_count(), 2);
}

TEST(Retrieval, MedianIsTheLowerMiddleValueAsTorchMedian) {
  // Reciprocal ranks 1, 1/2, 1/3, 1/4: the lower of the two middle values is 1/3.
  RetrievalMRR mrr({.aggregation = "median"});
  mrr.update(torch::tensor({0.9, 0.9, 0.8, 0.9, 0.8, 0.7, 0.9, 0.8, 0.7, 0.6}),
             torch::tensor({1, 0, 1, 0, 0, 1, 0, 0, 0, 1}),
             torch::tensor({0, 1, 1, 2, 2, 2, 3, 3, 3, 3}));
  EXPECT_DOUBLE_EQ(mrr.compute().item<double>(), 1.0 / 3);
}

TEST(Retrieval, SyncedDocumentsScoreAsOneSet) {
  const auto d = documents();
  const int64_t n = d.scores.size(0), split = 157;
  RetrievalNormalizedDCG whole({.top_k = 5});
  const auto expected = feed(whole, d.scores, d.grades, d.queries).item<double>();
  ThreadWorld world(2);
  std::mutex mutex;
  std::vector<double> local(2), synced(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    RetrievalNormalizedDCG metric({.top_k = 5});
    const int64_t a = rank == 0 ? 0 : split, b = rank == 0 ? split : n;
    metric.update(d.scores.slice(0, a, b), d.grades.slice(0, a, b), d.queries.slice(0, a, b));
    const double mine = metric.compute().item<double>();
    const double all = metric.compute(strategy).item<double>();
    std::lock_guard<std::mutex> lock(mutex);
    local[rank] = mine;
    synced[rank] = all;
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NEAR(synced[rank], expected, 1e-12) << rank;
    EXPECT_GT(std::abs(local[rank] - expected), 1e-6) << rank;
  }
}

TEST(Retrieval, BadOptionsAndInputs) {
  EXPECT_THAT([] { RetrievalMAP({.top_k = 0}); },
              Throws<ConfigError>("RetrievalMAP(top_k=0)", "at least 1"));
  EXPECT_THAT([] { RetrievalMRR({.empty_target_action = "drop"}); },
              Throws<ConfigError>("RetrievalMRR(empty_target_action=\"drop\")", "\"skip\""));
  EXPECT_THAT([] { RetrievalRecall({.aggregation = "sum"}); },
              Throws<ConfigError>("RetrievalRecall(aggregation=\"sum\")", "\"median\""));
  EXPECT_THAT([] { RetrievalRPrecision({.top_k = 3}); },
              Throws<ConfigError>("RetrievalRPrecision(top_k=3)", "number of relevant"));
  RetrievalMAP map({.empty_target_action = "error"});
  const auto q = torch::tensor({4, 4, 9});
  EXPECT_THAT(
      [&] {
        map.update(torch::tensor({0.1, 0.2}), torch::tensor({0, 1}), q);
      },
      Throws<MetricError>("RetrievalMAP", "must have one shape"));
  EXPECT_THAT(
      [&] {
        map.update(torch::tensor({1, 2, 3}), torch::tensor({0, 1, 0}), q);
      },
      Throws<MetricError>("RetrievalMAP", "preds must be float scores"));
  EXPECT_THAT(
      [&] {
        map.update(torch::rand({3}), torch::tensor({0, 2, 0}), q);
      },
      Throws<MetricError>("RetrievalMAP", "0 (irrelevant) or 1 (relevant)"));
  EXPECT_THAT(
      [&] {
        map.update(torch::rand({3}), torch::tensor({0, 1, 0}), torch::rand({3}));
      },
      Throws<MetricError>("RetrievalMAP", "indexes must be integer"));
  map.update(torch::rand({3}), torch::tensor({0, 1, 0}), q);
  EXPECT_THAT([&] { map.compute(); },
              Throws<MetricError>("RetrievalMAP", "query 9 has no relevant document"));
  RetrievalFallOut fall_out({.empty_target_action = "error"});
  fall_out.update(torch::rand({2}), torch::tensor({1, 1}), torch::tensor({3, 3}));
  EXPECT_THAT([&] { fall_out.compute(); },
              Throws<MetricError>("RetrievalFallOut", "query 3 has no irrelevant document"));
  RetrievalNormalizedDCG ndcg;
  EXPECT_THAT(
      [&] {
        ndcg.update(torch::rand({2}), torch::tensor({2.5, -1.0}), torch::tensor({0, 0}));
      },
      Throws<MetricError>("RetrievalNormalizedDCG", "non-negative relevance"));
  // Fed through a MetricCollection's two-tensor update(), a retrieval metric asks for indexes.
  MetricCollection collection({{"mrr", std::make_shared<RetrievalMRR>()}});
  EXPECT_THAT(
      [&] {
        collection.update(torch::rand({2}), torch::tensor({0, 1}));
      },
      Throws<MetricError>("RetrievalMRR", "needs preds, target and indexes"));
  // Everything skipped: 0, as torchmetrics.
  RetrievalMAP skipping({.empty_target_action = "skip"});
  skipping.update(torch::rand({2}), torch::tensor({0, 0}), torch::tensor({1, 1}));
  EXPECT_EQ(skipping.compute().item<double>(), 0.0);
}

}  // namespace
}  // namespace fulgur::metrics
