#pragma once
// The audio metrics that average a per-sample ratio in decibels (SignalNoiseRatio, the
// scale-invariant SNR and SDR, SourceAggregatedSignalDistortionRatio): update(preds, target)
// with same-shaped float tensors [..., time] scores each sample and keeps the sum and count of
// the scores (constant memory); compute() is their mean, as torchmetrics.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class SignalRatioMetric : public Metric {
 public:
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // `sum_state` and `total_state` name the states as torchmetrics does; `min_dims`: the
  // dimensions an input needs (1: time; 2: speakers and time).
  SignalRatioMetric(std::string name, const std::string& sum_state, const std::string& total_state,
                    int64_t min_dims);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

  // Each sample's ratio in dB from float64 inputs; eps belongs to the inputs' own dtype.
  virtual at::Tensor ratios(const at::Tensor& preds, const at::Tensor& target,
                            double eps) const = 0;

 private:
  int64_t min_dims_;
  StateId sum_, total_;
};

}  // namespace fulgur::metrics
