#pragma once
// The metrics that score transcriptions against references (the error rates, EditDistance):
// update(preds, target) takes the texts (UTF-8, one prediction per reference), reduces each
// pair to a row of counts on the host, and folds the batch's [N, counts] rows into the states;
// compute() turns the summed counts into the value, as torchmetrics' text metrics.
#include <cstdint>
#include <string>
#include <vector>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

class TextMetric : public Metric {
 public:
  // MetricError when the lists differ in length or a text is not UTF-8.
  void update(const std::vector<std::string>& preds, const std::vector<std::string>& target);
  // update(), and the value of this batch alone.
  at::Tensor forward(const std::vector<std::string>& preds, const std::vector<std::string>& target);

 protected:
  TextMetric(std::string name, int64_t counts_per_pair);
  // One pair's counts, decoded to code points, written to counts[0 .. counts_per_pair).
  virtual void count(const std::u32string& pred, const std::u32string& target,
                     double* counts) const = 0;
  // update_state() receives the batch's float64 [N, counts_per_pair] rows as its input.

 private:
  at::Tensor batch_counts(const std::vector<std::string>& preds,
                          const std::vector<std::string>& target) const;

  int64_t counts_per_pair_;
};

}  // namespace fulgur::metrics
