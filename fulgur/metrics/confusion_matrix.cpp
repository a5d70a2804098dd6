#include "fulgur/metrics/confusion_matrix.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

ConfusionMatrix::ConfusionMatrix(ConfusionMatrixOptions options)
    : ConfusionMatrix("ConfusionMatrix", std::move(options)) {}

ConfusionMatrix::ConfusionMatrix(std::string name, ConfusionMatrixOptions options)
    : Metric(std::move(name)),
      options_(std::move(options)),
      task_(parse_task(this->name(), options_.task, options_.num_classes, options_.num_labels)),
      classes_(task_ == Task::Multiclass ? *options_.num_classes : 2) {
  const auto& n = options_.normalize;
  if (n != "none" && n != "true" && n != "pred" && n != "all") {
    throw ConfigError(fmt::format(
        "{}(normalize=\"{}\") is not valid; choose \"none\", \"true\", \"pred\" or \"all\"",
        this->name(), n));
  }
  if (options_.threshold < 0 || options_.threshold > 1) {
    throw ConfigError(
        fmt::format("{}(threshold={}) must be in [0, 1]", this->name(), options_.threshold));
  }
  auto shape = std::vector<int64_t>{classes_, classes_};
  if (task_ == Task::Multilabel) shape.insert(shape.begin(), *options_.num_labels);
  matrix_ =
      add_state("confmat", at::zeros(shape, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void ConfusionMatrix::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (task_ == Task::Multilabel) {
    const auto batch = format_multilabel(name(), preds, target, *o.num_labels, o.threshold,
                                         o.ignore_index, o.validate_args);
    // Cell (label, target, pred) of the [L, 2, 2] counts.
    const auto label = at::arange(*o.num_labels, batch.target.options());
    const auto cell = label * 4 + batch.target * 2 + batch.preds;
    state(matrix_).view({-1}).index_add_(0, cell.reshape({-1}), batch.valid.reshape({-1}));
    return;
  }
  const auto batch =
      task_ == Task::Binary
          ? format_binary(name(), preds, target, o.threshold, o.ignore_index, o.validate_args)
          : format_multiclass(name(), preds, target, classes_, o.ignore_index, o.validate_args);
  const auto predicted = batch.preds.dim() == 2 ? batch.preds.argmax(1) : batch.preds;
  // index_add_ rather than bincount: bincount sizes its output from the data (a host read).
  state(matrix_).view({-1}).index_add_(0, batch.target * classes_ + predicted, batch.valid);
}

at::Tensor ConfusionMatrix::counts() { return state(matrix_).to(at::kDouble); }

at::Tensor ConfusionMatrix::compute_value() {
  const auto m = counts();
  const auto& n = options_.normalize;
  // The last two dimensions are each matrix' rows and columns.
  if (n == "true") return safe_divide(m, m.sum(-1, /*keepdim=*/true));
  if (n == "pred") return safe_divide(m, m.sum(-2, /*keepdim=*/true));
  if (n == "all") return safe_divide(m, m.sum({-2, -1}, /*keepdim=*/true));
  return m;
}

}  // namespace fulgur::metrics
