#pragma once
// Turning what a model outputs into what classification metrics count, as torchmetrics does:
// binary preds may be labels (integers), probabilities or logits (floats outside [0, 1] go
// through a sigmoid, then `> threshold`); multiclass preds may be labels [N, ...] or scores
// [N, C, ...] (probabilities or logits: the class with the highest score, or the top k);
// multilabel preds and target are [N, L, ...], each label a binary task of its own (preds
// 0/1 labels, probabilities or logits as binary ones).
// Ignored samples (multilabel: ignored elements) are kept but weighted 0, so that no step needs a
// data-dependent shape (which would read a number back from the device). All checks raise
// MetricError naming the metric.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fulgur::metrics {

enum class Task { Binary, Multiclass, Multilabel };

// ConfigError unless `task` is "binary", "multiclass" (with num_classes >= 2) or "multilabel"
// (with num_labels >= 2), as torchmetrics.
Task parse_task(const std::string& metric, const std::string& task,
                const std::optional<int64_t>& num_classes,
                const std::optional<int64_t>& num_labels);

// For the metrics torchmetrics offers without a multilabel task (CalibrationError, CohenKappa,
// HingeLoss): a ConfigError saying so for any task but "binary" and "multiclass", else
// parse_task's checks.
Task parse_binary_or_multiclass_task(const std::string& metric, const std::string& task,
                                     const std::optional<int64_t>& num_classes);

// How many columns a task's per-class counts have: 1 (binary), num_classes or num_labels.
int64_t task_columns(Task task, const std::optional<int64_t>& num_classes,
                     const std::optional<int64_t>& num_labels);

struct LabelBatch {
  at::Tensor preds;   // binary: [N] 0/1; multiclass: [N] labels, or [N, C] scores;
                      // multilabel: [N, L] 0/1
  at::Tensor target;  // binary, multiclass: [N] labels; multilabel: [N, L] 0/1; ignored set to 0
  at::Tensor valid;   // int64 of target's shape: 1 counts, 0 ignored
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

// Multilabel inputs: preds and target [N, L, ...] of one shape (L = num_labels), the extra
// dimensions flattened into samples; an element whose target is ignore_index is left out
// (the rest of its sample still counts).
LabelBatch format_multilabel(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t num_labels, double threshold,
                             const std::optional<int64_t>& ignore_index, bool validate);

// [N, L, ...] -> [N * ..., L]: one row per sample and position, in format_multilabel's order.
at::Tensor label_columns(const at::Tensor& t, int64_t num_labels);

// torchmetrics' rule, without a host read: the sigmoid of the batch unless every value is
// already in [0, 1].
at::Tensor binary_probabilities(const at::Tensor& preds);
// Likewise with a softmax over dimension 1 for [N, C] multiclass scores.
at::Tensor multiclass_probabilities(const at::Tensor& preds);

// a / b, and 0 where b is 0 (torchmetrics' _safe_divide; sklearn's zero_division=0).
at::Tensor safe_divide(const at::Tensor& a, const at::Tensor& b);

}  // namespace fulgur::metrics
