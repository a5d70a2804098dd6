#pragma once
// The retrieval metrics (torchmetrics' RetrievalMAP, RetrievalMRR, ...): documents scored for
// queries. update(preds, target, indexes) takes each document's score, its relevance (0/1;
// RetrievalNormalizedDCG: any non-negative grade) and the query it belongs to, in tensors of
// one shape; a query's documents may arrive over several updates and ranks. compute() ranks
// each query's documents by score (ties keep their order of arrival; RetrievalNormalizedDCG
// averages over them, as sklearn), scores each query, and aggregates the queries.
//
// A query without a relevant document (RetrievalFallOut: without an irrelevant one) scores as
// empty_target_action says: "neg" 0, "pos" 1, "skip" leaves it out, "error" a MetricError. With
// no query left the value is 0, as torchmetrics. The states keep every document (cat states,
// gathered across processes); the ranking happens on the host at compute().
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct RetrievalOptions {
  std::optional<int64_t> top_k;  // rank cut-off; none = all of a query's documents
  // "neg", "pos", "skip" or "error"; none: the metric's default ("neg"; RetrievalFallOut "pos")
  std::optional<std::string> empty_target_action;
  std::optional<int64_t> ignore_index;  // documents whose target is this are left out
  std::string aggregation = "mean";     // over the queries: "mean", "median" (the lower
                                        // middle value, as torch.median), "min" or "max"
  bool validate_args = true;            // value checks (one host read per update)
};

class RetrievalMetric : public Metric {
 public:
  // One batch of documents: float scores, their relevance, and each one's query id (integers).
  void update(const at::Tensor& preds, const at::Tensor& target, const at::Tensor& indexes);
  // torchmetrics' forward: update(), and the value of this batch's documents alone.
  at::Tensor forward(const at::Tensor& preds, const at::Tensor& target, const at::Tensor& indexes);
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // ConfigError naming the metric for a bad top_k, empty_target_action or aggregation.
  RetrievalMetric(std::string name, RetrievalOptions options,
                  const std::string& default_empty_target_action = "neg");

  // One query's documents, best score first.
  struct RankedQuery {
    std::span<const double> relevance;
    std::span<const double> scores;
  };
  virtual double query_score(const RankedQuery& query) const = 0;
  // Whether the query has what query_score needs (default: a relevant document), and what
  // one that has not lacks, for empty_target_action="error".
  virtual bool scorable(const RankedQuery& query) const;
  virtual const char* empty_query() const { return "no relevant document"; }
  // Whether a target may hold grades other than 0 and 1.
  virtual bool graded() const { return false; }

  // How many of a query's `documents` the cut-off keeps.
  int64_t cutoff(int64_t documents) const;
  const RetrievalOptions& options() const { return options_; }

 private:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  RetrievalOptions options_;
  std::string empty_target_action_;
  at::Tensor pending_indexes_;  // the indexes of the update() in progress
  StateId preds_, target_, indexes_;
};

}  // namespace fulgur::metrics
