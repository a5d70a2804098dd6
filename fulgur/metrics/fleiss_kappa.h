#pragma once
// FleissKappa (torchmetrics'): the agreement of several raters on the category of each sample
// beyond chance,
//   (P - Pe) / (1 - Pe + 1e-5),
// P the mean over the samples of the share of rater pairs that agree, Pe the chance agreement
// (the sum of the squared category shares); the 1e-5 is torchmetrics'. update(ratings) takes
// ratings alone: mode "counts", int [n_samples, n_categories], how many raters chose each
// category; mode "probs", float [n_samples, n_categories, n_raters], each rater's category its
// argmax (one category per column: torchmetrics' one-hot counts n_raters columns instead). The
// number of raters is the largest row total. Every sample's counts are kept, flattened, as a cat
// state "counts", with each update's category count in "num_categories" (torchmetrics keeps the
// counts too).
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct FleissKappaOptions {
  std::string mode = "counts";  // or "probs"
};

class FleissKappa : public Metric {
 public:
  // Raises ConfigError for an unknown mode.
  explicit FleissKappa(FleissKappaOptions options = {});
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  void update_state(const at::Tensor& ratings, const at::Tensor& unused) override;
  // MetricError when updates had different numbers of categories, or fewer than two raters.
  at::Tensor compute_value() override;

 private:
  std::string mode_;
  StateId counts_, categories_;
};

}  // namespace fulgur::metrics
