#pragma once
// What the clustering metrics share (torchmetrics' clustering utilities, sklearn's
// sklearn.metrics.cluster): the label checks, the contingency matrix of two clusterings and
// the quantities read from it. Cluster labels are any integers: only which samples share a
// label counts, not the label's value.
#include <ATen/core/Tensor.h>

#include <string>

namespace fulgur::metrics {

// MetricError naming `metric` unless preds and target are 1-D integer (or bool) tensors of
// one length.
void check_cluster_labels(const std::string& metric, const at::Tensor& preds,
                          const at::Tensor& target);

// float64 [target's clusters, preds' clusters]: how many samples each pair of clusters shares
// (sklearn's contingency_matrix; rows and columns in the labels' sorted order).
at::Tensor contingency_matrix(const at::Tensor& preds, const at::Tensor& target);

// The entropy in nats of a clustering with these cluster sizes (0 for a single cluster).
double cluster_entropy(const at::Tensor& sizes);

// The mutual information in nats between the contingency matrix's two clusterings, never
// below 0 (sklearn clips its rounding).
double mutual_information(const at::Tensor& contingency);

// sklearn's homogeneity (each predicted cluster holds members of one class only) and
// completeness (each class lies in one predicted cluster): the mutual information over the
// target's or the preds' entropy, 1 where that clustering is a single cluster.
struct HomogeneityCompleteness {
  double homogeneity;
  double completeness;
};
HomogeneityCompleteness homogeneity_completeness(const at::Tensor& contingency);

// The pairs of samples (ordered, as sklearn's pair_confusion_matrix counts them) that the two
// clusterings put together or apart: "target" is the row clustering, "preds" the column one.
struct PairCounts {
  double apart_in_both;
  double together_in_preds_only;
  double together_in_target_only;
  double together_in_both;
};
PairCounts pair_counts(const at::Tensor& contingency);

// ConfigError unless `method` is "min", "geometric", "arithmetic" or "max".
void check_average_method(const std::string& metric, const std::string& method);
// The two entropies' mean of that kind, which normalizes the mutual information.
double generalized_mean(double a, double b, const std::string& method);

}  // namespace fulgur::metrics
