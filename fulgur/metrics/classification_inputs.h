#pragma once
// Turning what a model outputs into what classification metrics count, as torchmetrics does:
// binary preds may be labels (integers), probabilities or logits (floats outside [0, 1] go
// through a sigmoid, then `> threshold`); multiclass preds may be labels [N, ...] or scores
// [N, C, ...] (probabilities or logits: the class with the highest score, or the top k).
// Ignored samples are kept but weighted 0, so that no step needs a data-dependent shape
// (which would read a number back from the device). All checks raise MetricError naming
// the metric.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fulgur::metrics {

enum class Task { Binary, Multiclass };

// ConfigError unless `task` is "binary" or "multiclass" (and num_classes >= 2 for multiclass).
Task parse_task(const std::string& metric, const std::string& task,
                const std::optional<int64_t>& num_classes);

struct LabelBatch {
  at::Tensor preds;   // binary: [N] 0/1; multiclass: [N] labels, or [N, C] scores
  at::Tensor target;  // [N] labels; ignored samples set to 0
  at::Tensor valid;   // [N] int64: 1 counts, 0 ignored
};

// Flattens binary inputs of equal shape to [N] 0/1 labels.
LabelBatch format_binary(const std::string& metric, const at::Tensor& preds,
                         const at::Tensor& target, double threshold,
                         const std::optional<int64_t>& ignore_index, bool validate);

// Multiclass inputs: preds [N, ...] labels or [N, C, ...] scores, target [N, ...] labels;
// extra dimensions are flattened into samples. Scores stay scores (the caller picks top-k).
LabelBatch format_multiclass(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t num_classes,
                             const std::optional<int64_t>& ignore_index, bool validate);

// torchmetrics' rule, without a host read: the sigmoid of the batch unless every value is
// already in [0, 1].
at::Tensor binary_probabilities(const at::Tensor& preds);
// Likewise with a softmax over dimension 1 for [N, C] multiclass scores.
at::Tensor multiclass_probabilities(const at::Tensor& preds);

// a / b, and 0 where b is 0 (torchmetrics' _safe_divide; sklearn's zero_division=0).
at::Tensor safe_divide(const at::Tensor& a, const at::Tensor& b);

}  // namespace fulgur::metrics
