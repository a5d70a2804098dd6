#include "fulgur/metrics/cohen_kappa.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

// torchmetrics' CohenKappa has no multilabel task (the confusion matrix has).
std::string binary_or_multiclass(std::string task, const std::optional<int64_t>& num_classes) {
  parse_binary_or_multiclass_task("CohenKappa", task, num_classes);
  return task;
}

}  // namespace

CohenKappa::CohenKappa(CohenKappaOptions o)
    : ConfusionMatrix("CohenKappa", {.task = binary_or_multiclass(std::move(o.task), o.num_classes),
                                     .threshold = o.threshold,
                                     .num_classes = o.num_classes,
                                     .ignore_index = o.ignore_index,
                                     .validate_args = o.validate_args}),
      weights_(std::move(o.weights)) {
  if (weights_ != "none" && weights_ != "linear" && weights_ != "quadratic") {
    throw ConfigError(fmt::format(
        "CohenKappa(weights=\"{}\") is not valid; choose \"none\", \"linear\" or \"quadratic\"",
        weights_));
  }
}

at::Tensor CohenKappa::compute_value() {
  const auto m = counts();
  const int64_t classes = m.size(0);
  const auto expected = at::outer(m.sum(1), m.sum(0)) / m.sum();
  const auto index = at::arange(classes, m.options());
  const auto distance = (index.unsqueeze(1) - index.unsqueeze(0)).abs();
  const auto w = weights_ == "linear"      ? distance
                 : weights_ == "quadratic" ? distance.square()
                                           : distance.clamp_max(1);
  return 1 - (w * m).sum() / (w * expected).sum();
}

}  // namespace fulgur::metrics
