#pragma once
// ClasswiseWrapper (torchmetrics'): a metric that computes one value per class (average "none")
// turned into one named number per class, ready for Module::log_dict. The keys are
// prefix + label + postfix; with neither a prefix nor a postfix, the metric's name in lower
// case, "_", then the label ("accuracy_cat"). Labels default to the class indices.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct ClasswiseWrapperOptions {
  std::vector<std::string> labels;  // one per class; empty: "0", "1", ...
  std::optional<std::string> prefix;
  std::optional<std::string> postfix;
};

class ClasswiseWrapper {
 public:
  // Raises ConfigError for a null metric or one that computes a single number.
  explicit ClasswiseWrapper(std::shared_ptr<Metric> metric, ClasswiseWrapperOptions options = {});

  Metric& metric() const { return *metric_; }
  void update(const at::Tensor& preds, const at::Tensor& target = at::Tensor());
  // The batch's value per class.
  std::map<std::string, at::Tensor> forward(const at::Tensor& preds,
                                            const at::Tensor& target = at::Tensor());
  // MetricError when the metric's values are not one per label.
  std::map<std::string, at::Tensor> compute();
  std::map<std::string, at::Tensor> compute(Strategy& strategy);
  void reset() { metric_->reset(); }

 private:
  std::map<std::string, at::Tensor> named(const at::Tensor& values) const;

  std::shared_ptr<Metric> metric_;
  ClasswiseWrapperOptions options_;
};

}  // namespace fulgur::metrics
