#pragma once
// ScaleInvariantSignalNoiseRatio (torchmetrics' SI-SNR): ScaleInvariantSignalDistortionRatio on
// zero-mean signals, the mean over the samples in dB; each sample the last dimension of
// [..., time] inputs. States: "sum_si_snr" and "total".
#include "fulgur/metrics/audio/signal_ratio_metric.h"

namespace fulgur::metrics {

class ScaleInvariantSignalNoiseRatio : public SignalRatioMetric {
 public:
  ScaleInvariantSignalNoiseRatio();

 protected:
  at::Tensor ratios(const at::Tensor& preds, const at::Tensor& target, double eps) const override;
};

}  // namespace fulgur::metrics
