#include "fulgur/metrics/retrieval_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

// Holds the indexes for the update_state() of one update() or forward() call: Metric's
// update() takes two tensors, so the third rides along here.
class PendingIndexes {
 public:
  PendingIndexes(at::Tensor& slot, const at::Tensor& indexes) : slot_(slot) { slot_ = indexes; }
  ~PendingIndexes() { slot_ = at::Tensor(); }
  PendingIndexes(const PendingIndexes&) = delete;
  PendingIndexes& operator=(const PendingIndexes&) = delete;

 private:
  at::Tensor& slot_;
};

double aggregate(std::vector<double> scores, const std::string& aggregation) {
  if (scores.empty()) return 0.0;
  if (aggregation == "min") return *std::min_element(scores.begin(), scores.end());
  if (aggregation == "max") return *std::max_element(scores.begin(), scores.end());
  if (aggregation == "median") {
    const auto middle = scores.begin() + (scores.size() - 1) / 2;
    std::nth_element(scores.begin(), middle, scores.end());
    return *middle;
  }
  double sum = 0;
  for (const double s : scores) sum += s;
  return sum / static_cast<double>(scores.size());
}

}  // namespace

RetrievalMetric::RetrievalMetric(std::string name, RetrievalOptions options,
                                 const std::string& default_empty_target_action)
    : Metric(std::move(name)),
      options_(std::move(options)),
      empty_target_action_(options_.empty_target_action.value_or(default_empty_target_action)) {
  const auto& o = options_;
  if (o.top_k && *o.top_k < 1) {
    throw ConfigError(fmt::format("{}(top_k={}) must be at least 1", this->name(), *o.top_k));
  }
  const auto& action = empty_target_action_;
  if (action != "neg" && action != "pos" && action != "skip" && action != "error") {
    throw ConfigError(fmt::format(
        "{}(empty_target_action=\"{}\") is not valid; choose \"neg\", \"pos\", \"skip\" or "
        "\"error\"",
        this->name(), action));
  }
  const auto& a = o.aggregation;
  if (a != "mean" && a != "median" && a != "min" && a != "max") {
    throw ConfigError(fmt::format(
        "{}(aggregation=\"{}\") is not valid; choose \"mean\", \"median\", \"min\" or \"max\"",
        this->name(), a));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  preds_ = add_state("preds", at::zeros({0}, doubles), Reduction::Cat);
  target_ = add_state("target", at::zeros({0}, doubles), Reduction::Cat);
  indexes_ = add_state("indexes", at::zeros({0}, doubles.dtype(at::kLong)), Reduction::Cat);
}

void RetrievalMetric::update(const at::Tensor& preds, const at::Tensor& target,
                             const at::Tensor& indexes) {
  const PendingIndexes pending(pending_indexes_, indexes);
  Metric::update(preds, target);
}

at::Tensor RetrievalMetric::forward(const at::Tensor& preds, const at::Tensor& target,
                                    const at::Tensor& indexes) {
  const PendingIndexes pending(pending_indexes_, indexes);
  return Metric::forward(preds, target);
}

void RetrievalMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& indexes = pending_indexes_;
  if (!preds.defined() || !target.defined() || !indexes.defined()) {
    fail("update() needs preds, target and indexes (the query of each document)");
  }
  if (preds.sizes() != target.sizes() || preds.sizes() != indexes.sizes()) {
    fail(fmt::format("preds [{}], target [{}] and indexes [{}] must have one shape",
                     fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", "),
                     fmt::join(indexes.sizes(), ", ")));
  }
  if (!preds.is_floating_point()) {
    fail(fmt::format("preds must be float scores, got {} values",
                     c10::toString(preds.scalar_type())));
  }
  if (indexes.is_floating_point() || indexes.scalar_type() == at::kBool) {
    fail(fmt::format("indexes must be integer query ids, got {} values",
                     c10::toString(indexes.scalar_type())));
  }
  const auto scores = preds.detach().reshape({-1}).to(at::kDouble);
  const auto relevance = target.detach().reshape({-1}).to(at::kDouble);
  if (options_.validate_args && scores.numel() > 0) {
    const auto counted = options_.ignore_index
                             ? relevance.ne(static_cast<double>(*options_.ignore_index))
                             : at::ones_like(relevance, at::kBool);
    const auto bad_target = graded() ? relevance.lt(0) : relevance.ne(0) & relevance.ne(1);
    const auto problems = at::stack({scores.isnan().any(), (bad_target & counted).any()}).cpu();
    if (problems[0].item<bool>()) fail("preds contain NaN");
    if (problems[1].item<bool>()) {
      fail(graded() ? "target must hold non-negative relevance grades"
                    : "target must hold 0 (irrelevant) or 1 (relevant)");
    }
  }
  append(preds_, scores);
  append(target_, relevance);
  append(indexes_, indexes.detach().reshape({-1}));
}

bool RetrievalMetric::scorable(const RankedQuery& query) const {
  return std::any_of(query.relevance.begin(), query.relevance.end(),
                     [](double r) { return r > 0; });
}

int64_t RetrievalMetric::cutoff(int64_t documents) const {
  return options_.top_k ? std::min(*options_.top_k, documents) : documents;
}

at::Tensor RetrievalMetric::compute_value() {
  auto scores = cat_state(preds_).cpu();
  auto relevance = cat_state(target_).cpu();
  auto queries = cat_state(indexes_).cpu();
  if (options_.ignore_index) {
    const auto keep = relevance.ne(static_cast<double>(*options_.ignore_index));
    scores = scores.masked_select(keep);
    relevance = relevance.masked_select(keep);
    queries = queries.masked_select(keep);
  }
  // By query, then best score first; stable sorts keep tied documents in arrival order.
  const c10::optional<bool> stable = true;
  const auto by_score = std::get<1>(scores.sort(stable, /*dim=*/0, /*descending=*/true));
  const auto by_query = by_score.index_select(
      0, std::get<1>(queries.index_select(0, by_score).sort(stable, /*dim=*/0)));
  scores = scores.index_select(0, by_query).contiguous();
  relevance = relevance.index_select(0, by_query).contiguous();
  queries = queries.index_select(0, by_query).contiguous();
  const double* s = scores.data_ptr<double>();
  const double* r = relevance.data_ptr<double>();
  const int64_t* q = queries.data_ptr<int64_t>();
  const int64_t n = scores.numel();

  std::vector<double> per_query;
  for (int64_t begin = 0, end = 0; begin < n; begin = end) {
    while (end < n && q[end] == q[begin]) ++end;
    const RankedQuery query{{r + begin, r + end}, {s + begin, s + end}};
    if (scorable(query)) {
      per_query.push_back(query_score(query));
      continue;
    }
    const auto& action = empty_target_action_;
    if (action == "error") {
      fail(fmt::format("query {} has {} (empty_target_action=\"error\")", q[begin], empty_query()));
    }
    if (action == "pos") per_query.push_back(1.0);
    if (action == "neg") per_query.push_back(0.0);
  }
  return at::scalar_tensor(aggregate(std::move(per_query), options_.aggregation),
                           at::TensorOptions().dtype(at::kDouble));
}

}  // namespace fulgur::metrics
