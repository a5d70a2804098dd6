#pragma once
// CalibrationError (torchmetrics'): how far a classifier's confidence is from its accuracy.
// The confidences are cut into n_bins equal bins over [0, 1] (a confidence of exactly 1 in a
// bin of its own, as torchmetrics' bucketize); per bin, the mean confidence is compared with
// the share of right answers:
//   l1   the expected calibration error (ECE): sum over bins of |accuracy - confidence|
//        weighted by the bin's share of the samples;
//   l2   the root mean square calibration error (RMSCE): the square root of the same sum of
//        squares;
//   max  the maximum calibration error (MCE): the largest |accuracy - confidence| (empty bins
//        count as 0, as torchmetrics).
//   binary      preds [N, ...] probabilities or logits (a sigmoid unless every value is in
//               [0, 1]), target 0/1: the confidence is the probability of class 1 and the
//               "accuracy" the target itself, as torchmetrics.
//   multiclass  preds [N, C, ...] scores (a softmax unless in [0, 1]), target [N, ...]: the
//               confidence is the highest probability, right when its class is the target.
// States: per bin the samples, the summed confidences and the right answers (three sums of
// n_bins + 1 float64 numbers; torchmetrics keeps every sample, with the same value).
// torchmetrics has no multilabel CalibrationError: that task is a ConfigError.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/classification_inputs.h"
#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct CalibrationErrorOptions {
  std::string task;                     // required: "binary" or "multiclass"
  int64_t n_bins = 15;                  // equal bins over [0, 1]
  std::string norm = "l1";              // "l1" (ECE), "l2" (RMSCE) or "max" (MCE)
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class CalibrationError : public Metric {
 public:
  // Raises ConfigError for a bad task, num_classes, n_bins or norm.
  explicit CalibrationError(CalibrationErrorOptions options);
  std::optional<bool> higher_is_better() const override { return false; }

 protected:
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;

 private:
  CalibrationErrorOptions options_;
  Task task_;
  StateId samples_, confidence_, right_;
};

}  // namespace fulgur::metrics
