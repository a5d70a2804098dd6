#include "fulgur/metrics/stat_scores.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

StatScores::StatScores(std::string name, ClassificationOptions options)
    : Metric(std::move(name)),
      options_(std::move(options)),
      task_(parse_task(this->name(), options_.task, options_.num_classes, options_.num_labels)) {
  const auto& o = options_;
  if (o.average != "micro" && o.average != "macro" && o.average != "weighted" &&
      o.average != "none") {
    throw ConfigError(fmt::format(
        "{}(average=\"{}\") is not valid; choose \"micro\", \"macro\", \"weighted\" or \"none\"",
        this->name(), o.average));
  }
  if (o.threshold < 0 || o.threshold > 1) {
    throw ConfigError(fmt::format("{}(threshold={}) must be in [0, 1]", this->name(), o.threshold));
  }
  if (o.top_k < 1 || (task_ != Task::Multiclass && o.top_k != 1) ||
      (task_ == Task::Multiclass && o.top_k > *o.num_classes)) {
    throw ConfigError(fmt::format(
        "{}(top_k={}) must be 1 for binary and multilabel tasks and in [1, num_classes] for "
        "multiclass ones",
        this->name(), o.top_k));
  }
  const auto shape = task_ == Task::Binary
                         ? std::vector<int64_t>{}
                         : std::vector<int64_t>{task_columns(task_, o.num_classes, o.num_labels)};
  const auto zeros = at::zeros(shape, at::TensorOptions().dtype(at::kLong));
  tp_ = add_state("tp", zeros, Reduction::Sum);
  fp_ = add_state("fp", zeros, Reduction::Sum);
  tn_ = add_state("tn", zeros, Reduction::Sum);
  fn_ = add_state("fn", zeros, Reduction::Sum);
}

bool StatScores::is_scalar() const { return task_ == Task::Binary || options_.average != "none"; }

void StatScores::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  at::Tensor predicted, actual, weight;  // 0/1 int64 of one shape
  if (task_ == Task::Binary) {
    const auto batch =
        format_binary(name(), preds, target, o.threshold, o.ignore_index, o.validate_args);
    predicted = batch.preds;
    actual = batch.target;
    weight = batch.valid;
  } else if (task_ == Task::Multilabel) {
    const auto batch = format_multilabel(name(), preds, target, *o.num_labels, o.threshold,
                                         o.ignore_index, o.validate_args);
    predicted = batch.preds;
    actual = batch.target;
    weight = batch.valid;
  } else {
    const int64_t classes = *o.num_classes;
    const auto batch =
        format_multiclass(name(), preds, target, classes, o.ignore_index, o.validate_args);
    if (batch.preds.dim() == 2) {
      const auto top = std::get<1>(batch.preds.topk(o.top_k, /*dim=*/1));
      predicted = at::zeros(batch.preds.sizes(), batch.target.options()).scatter_(1, top, 1);
    } else {
      if (o.top_k != 1) {
        fail(fmt::format("top_k={} needs scores of shape [N, C], not labels", o.top_k));
      }
      predicted = at::one_hot(batch.preds, classes);
    }
    actual = at::one_hot(batch.target, classes);
    weight = batch.valid.unsqueeze(1);
  }
  // Summed over samples; multiclass (multilabel) keeps one count per class (label).
  const auto not_predicted = 1 - predicted, not_actual = 1 - actual;
  state(tp_).add_((predicted * actual * weight).sum(0));
  state(fp_).add_((predicted * not_actual * weight).sum(0));
  state(tn_).add_((not_predicted * not_actual * weight).sum(0));
  state(fn_).add_((not_predicted * actual * weight).sum(0));
}

at::Tensor StatScores::compute_value() {
  const auto tp = state(tp_).to(at::kDouble), fp = state(fp_).to(at::kDouble),
             tn = state(tn_).to(at::kDouble), fn = state(fn_).to(at::kDouble);
  const auto& average = options_.average;
  if (task_ == Task::Binary) return score(tp, fp, tn, fn);
  if (average == "micro") return score(tp.sum(), fp.sum(), tn.sum(), fn.sum());
  const auto per_class = score(tp, fp, tn, fn);
  if (average == "none") return per_class;
  at::Tensor weights;
  if (average == "weighted") {
    weights = tp + fn;
  } else if (task_ == Task::Multilabel) {
    weights = at::ones_like(per_class);
  } else {
    // Classes that never occur do not count (sklearn's labels are those seen).
    const auto absent = options_.top_k == 1 ? (tp + fp + fn).eq(0) : (tp + fn).eq(0);
    weights = 1 - absent.to(at::kDouble);
  }
  return safe_divide((weights * per_class).sum(), weights.sum());
}

}  // namespace fulgur::metrics
