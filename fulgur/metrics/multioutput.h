#pragma once
// What the multi-output regression scores (R2Score, ExplainedVariance) share, as torchmetrics:
// preds/target [N] for one output or [N, num_outputs], and how the per-output scores become
// the value. multioutput: "uniform_average" (their mean), "variance_weighted" (weighted by each
// output's target variance) or "raw_values" (a [num_outputs] tensor; 0-dim for one output).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>

namespace fulgur::metrics {

// ExplainedVarianceOptions (R2ScoreOptions adds `adjusted`).
struct MultioutputOptions {
  int64_t num_outputs = 1;
  std::string multioutput = "uniform_average";
};

// ConfigError naming `metric` for num_outputs < 1.
void check_num_outputs(const std::string& metric, int64_t num_outputs);

// ConfigError naming `metric` for num_outputs < 1 or an unknown multioutput.
void check_multioutput(const std::string& metric, int64_t num_outputs,
                       const std::string& multioutput);

// (preds, target) as float64 [N, num_outputs]; MetricError naming `metric` when the shapes
// differ or do not fit num_outputs.
std::pair<at::Tensor, at::Tensor> per_output_pair(const std::string& metric,
                                                  const at::Tensor& preds, const at::Tensor& target,
                                                  int64_t num_outputs);

// The value from per-output scores and each output's target variance (any positive multiple).
at::Tensor combine_outputs(const at::Tensor& scores, const at::Tensor& variances,
                           const std::string& multioutput);

// Whether compute() gives a 0-dim tensor.
inline bool multioutput_is_scalar(int64_t num_outputs, const std::string& multioutput) {
  return multioutput != "raw_values" || num_outputs == 1;
}

}  // namespace fulgur::metrics
