#pragma once
// MultioutputWrapper (torchmetrics'): one metric per output of a multi-output problem, e.g.
// R2Score per regression target or Accuracy per label column. update() takes each output's
// slice along output_dim (preds and, when given, target), drops the rows (along dim 0) where
// either holds a NaN (remove_nans), squeezes output_dim (squeeze_outputs), and feeds the wrapped
// metric alone; each output's states are kept as this metric's own ("<state>_<output>", the
// wrapped reductions), so sync() and state_dict() carry every output. compute() stacks the
// outputs' values: [num_outputs, ...].
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct MultioutputWrapperOptions {
  int64_t output_dim = -1;
  bool remove_nans = true;
  bool squeeze_outputs = true;
};

class MultioutputWrapper : public Metric {
 public:
  // Raises ConfigError for a null metric, num_outputs below 1, or a metric whose update needs
  // its accumulated states (full_state_update: its outputs could not share it).
  MultioutputWrapper(std::unique_ptr<Metric> base, int64_t num_outputs,
                     MultioutputWrapperOptions options = {});

  const Metric& base() const { return *base_; }
  int64_t num_outputs() const { return static_cast<int64_t>(outputs_.size()); }
  bool is_scalar() const override { return false; }
  std::optional<bool> higher_is_better() const override { return base_->higher_is_better(); }

 protected:
  // MetricError when output_dim is outside preds (or target), or its size is not num_outputs.
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  at::Tensor output_slice(const at::Tensor& tensor, const char* what, int64_t output) const;

  std::unique_ptr<Metric> base_;
  MultioutputWrapperOptions options_;
  std::vector<std::vector<StateId>> outputs_;  // outputs_[output][i]: the base's state i
};

}  // namespace fulgur::metrics
