#include "fulgur/metrics/classwise_wrapper.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {

ClasswiseWrapper::ClasswiseWrapper(std::shared_ptr<Metric> metric, ClasswiseWrapperOptions options)
    : metric_(std::move(metric)), options_(std::move(options)) {
  if (!metric_) throw ConfigError("ClasswiseWrapper needs a metric");
  if (metric_->is_scalar()) {
    throw ConfigError(fmt::format(
        "ClasswiseWrapper: {} computes a single number; wrap one that computes a value per "
        "class (average=\"none\")",
        metric_->name()));
  }
}

void ClasswiseWrapper::update(const at::Tensor& preds, const at::Tensor& target) {
  metric_->update(preds, target);
}

std::map<std::string, at::Tensor> ClasswiseWrapper::forward(const at::Tensor& preds,
                                                            const at::Tensor& target) {
  return named(metric_->forward(preds, target));
}

std::map<std::string, at::Tensor> ClasswiseWrapper::compute() { return named(metric_->compute()); }

std::map<std::string, at::Tensor> ClasswiseWrapper::compute(Strategy& strategy) {
  return named(metric_->compute(strategy));
}

std::map<std::string, at::Tensor> ClasswiseWrapper::named(const at::Tensor& values) const {
  const auto& labels = options_.labels;
  if (values.dim() != 1 || (!labels.empty() && values.size(0) != std::ssize(labels))) {
    throw MetricError(fmt::format(
        "ClasswiseWrapper: {} computed a tensor of shape [{}], not one value per label ({} "
        "labels)",
        metric_->name(), fmt::join(values.sizes(), ", "),
        labels.empty() ? std::string("no") : std::to_string(labels.size())));
  }
  std::string prefix, postfix = options_.postfix.value_or("");
  if (options_.prefix || options_.postfix) {
    prefix = options_.prefix.value_or("");
  } else {
    prefix = metric_->name();
    std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    prefix += "_";
  }
  std::map<std::string, at::Tensor> out;
  for (int64_t i = 0; i < values.size(0); ++i) {
    const auto label = labels.empty() ? std::to_string(i) : labels[static_cast<size_t>(i)];
    out[prefix + label + postfix] = values[i];
  }
  return out;
}

}  // namespace fulgur::metrics
