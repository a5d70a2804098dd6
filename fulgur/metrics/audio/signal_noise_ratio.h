#pragma once
// SignalNoiseRatio (torchmetrics'): the mean over the samples of 10 log10(|target|^2 /
// |target - preds|^2) in dB, each sample the last dimension of [..., time] inputs; zero_mean
// subtracts each signal's mean first. States: "sum_snr" and "total".
#include "fulgur/metrics/audio/signal_ratio_metric.h"

namespace fulgur::metrics {

struct SignalNoiseRatioOptions {
  bool zero_mean = false;
};

class SignalNoiseRatio : public SignalRatioMetric {
 public:
  explicit SignalNoiseRatio(SignalNoiseRatioOptions options = {});

 protected:
  at::Tensor ratios(const at::Tensor& preds, const at::Tensor& target, double eps) const override;

 private:
  bool zero_mean_;
};

}  // namespace fulgur::metrics
