#pragma once
// LogAUC (torchmetrics'): the area under each class' ROC curve over a range of false positive
// rates with the rate on a log10 axis, divided by the range's width there, so 1 is a perfect
// ranking: what matters where a low false positive rate is what counts (virtual screening,
// fraud). The curve is ROC's (exact, or binned with `thresholds`), interpolated at both ends
// of fpr_range, as torchmetrics. Binary: a 0-dim value; multiclass (one-vs-rest) and multilabel
// (per label): the classes' mean with average "macro", or their [C] values with "none".
#include <optional>
#include <string>
#include <utility>

#include "fulgur/metrics/roc.h"

namespace fulgur::metrics {

struct LogAUCOptions {
  std::string task;                    // required: "binary", "multiclass" or "multilabel"
  std::optional<int64_t> num_classes;  // required for multiclass
  std::optional<int64_t> num_labels;   // required for multilabel
  std::pair<double, double> fpr_range = {0.001, 0.1};  // 0 < low < high <= 1
  std::string average = "macro";                       // "macro" or "none"
  std::optional<CurveThresholds> thresholds;  // unset: the exact curve; set: the binned curve
  std::optional<int64_t> ignore_index;        // samples whose target is this value are left out
  bool validate_args = true;                  // value checks (one host read per update)
};

class LogAUC : public ROC {
 public:
  // Raises ConfigError for a bad fpr_range or average, and ROC's bad options.
  explicit LogAUC(LogAUCOptions options);
  bool is_scalar() const override { return task() == Task::Binary || average_ == "macro"; }
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  at::Tensor compute_value() override;

 private:
  double score(const RocCurve& curve) const;

  std::pair<double, double> fpr_range_;
  std::string average_;
};

}  // namespace fulgur::metrics
