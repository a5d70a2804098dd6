#pragma once
// CriticalSuccessIndex (torchmetrics'; the threat score of weather forecasting): preds and
// target of one shape, each value >= threshold an event; hits / (hits + misses + false alarms),
// 0 when neither ever has one. With keep_sequence_dim, a score per index of that dimension
// (e.g. per frame of a [N, S, H, W] sequence of images), the updates' scores joined one after
// another, as torchmetrics.
#include <cstdint>
#include <optional>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct CriticalSuccessIndexOptions {
  std::optional<int64_t> keep_sequence_dim;  // nullopt: one score over every element
};

class CriticalSuccessIndex : public Metric {
 public:
  // Raises ConfigError for a non-finite threshold or a negative keep_sequence_dim.
  explicit CriticalSuccessIndex(double threshold, CriticalSuccessIndexOptions options = {});
  bool is_scalar() const override { return !options_.keep_sequence_dim.has_value(); }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  double threshold_;
  CriticalSuccessIndexOptions options_;
  // [hits, misses, false alarms]: one Sum row, or a Cat row per sequence index.
  StateId counts_;
};

}  // namespace fulgur::metrics
