#pragma once
// BLEUScore (torchmetrics'): corpus BLEU of translations against one or more references each.
// update(preds, target) takes the translations and, for each, its references (UTF-8, words
// split on whitespace). Over the corpus it counts each n-gram order's clipped matches (a
// prediction's n-grams, each counted at most as often as in the reference that has it most)
// and the prediction's n-grams, and the predictions' and the closest references' lengths
// (the first reference of the least length difference); compute() gives the brevity penalty
// times the weighted geometric mean of the n-gram precisions. 0 when an order has no match,
// smoothed or not, as torchmetrics; `smooth` adds one to the numerator and denominator of the
// orders above one (Lin and Och). States: "preds_len", "target_len", "numerator" and
// "denominator" ([n_gram] each), summed, so the memory is constant.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct BLEUScoreOptions {
  int64_t n_gram = 4;
  bool smooth = false;
  std::vector<double> weights;  // one per order; empty: 1 / n_gram each
};

class BLEUScore : public Metric {
 public:
  // Raises ConfigError for n_gram < 1 or weights of another length.
  explicit BLEUScore(BLEUScoreOptions options = {});
  // MetricError when the lists differ in length, a prediction has no reference, or a text is
  // not UTF-8.
  void update(const std::vector<std::string>& preds,
              const std::vector<std::vector<std::string>>& target);
  // update(), and the score of this batch alone.
  at::Tensor forward(const std::vector<std::string>& preds,
                     const std::vector<std::vector<std::string>>& target);
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // The batch's counts, [2 + 2 n_gram]: predictions' and references' lengths, matches and
  // n-grams per order.
  void update_state(const at::Tensor& counts, const at::Tensor& unused) override;
  at::Tensor compute_value() override;

 private:
  at::Tensor batch_counts(const std::vector<std::string>& preds,
                          const std::vector<std::vector<std::string>>& target) const;

  int64_t n_gram_;
  bool smooth_;
  std::vector<double> weights_;
  StateId preds_len_, target_len_, numerator_, denominator_;
};

}  // namespace fulgur::metrics
