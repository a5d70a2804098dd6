#pragma once
// The speech-recognition error rates (CharErrorRate, WordErrorRate, MatchErrorRate,
// WordInfoLost, WordInfoPreserved): each pair of texts, as characters or as words, counts the
// edit distance from the reference to the prediction, the reference's and the prediction's
// lengths and the longer of the two; the four are summed over every pair ("errors",
// "target_total", "preds_total", "total"), so the rate is over the whole corpus, not a mean of
// per-sentence rates, as torchmetrics.
#include "fulgur/metrics/text/text_metric.h"

namespace fulgur::metrics {

class ErrorRateMetric : public TextMetric {
 public:
  enum class Unit { Characters, Words };

 protected:
  ErrorRateMetric(std::string name, Unit unit);
  void update_state(const at::Tensor& counts, const at::Tensor& unused) override;
  at::Tensor compute_value() override;
  void count(const std::u32string& pred, const std::u32string& target,
             double* counts) const override;

  // The value from the corpus' edit distance, reference and prediction lengths, and the sum
  // of each pair's longer length (0-dim float64 tensors).
  virtual at::Tensor rate(const at::Tensor& errors, const at::Tensor& target_total,
                          const at::Tensor& preds_total, const at::Tensor& total) const = 0;

 private:
  Unit unit_;
  StateId errors_, target_total_, preds_total_, total_;
};

}  // namespace fulgur::metrics
