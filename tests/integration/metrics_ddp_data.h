#pragma once
// The data set of the two-process metric test, made the same way (same seed, same LibTorch)
// by metrics-worker and by metrics_ddp_test.cpp, which scores all of it with sklearn. Rank 0
// takes the first kRank0Samples samples, rank 1 the rest: uneven shards.
#include <torch/torch.h>

namespace fulgur::testing {

struct MetricsDdpData {
  torch::Tensor scores;      // [N, 3] multiclass logits
  torch::Tensor labels;      // [N] in [0, 3)
  torch::Tensor binary;      // [N] 0/1 (scores[:, 0] is its binary score)
  torch::Tensor y;           // [N] regression target
  torch::Tensor yhat;        // [N] regression prediction
  torch::Tensor multilabel;  // [N, 3] 0/1, correlated with scores (its logits)
};

constexpr int64_t kMetricsSamples = 157;
constexpr int64_t kRank0Samples = 101;

inline MetricsDdpData metrics_ddp_data() {
  torch::manual_seed(2024);
  MetricsDdpData d;
  d.scores = torch::randn({kMetricsSamples, 3}, torch::kDouble);
  d.labels = torch::randint(0, 3, {kMetricsSamples}, torch::kLong);
  d.binary = torch::randint(0, 2, {kMetricsSamples}, torch::kLong);
  d.y = torch::randn({kMetricsSamples}, torch::kDouble) * 2;
  d.yhat = d.y + torch::randn({kMetricsSamples}, torch::kDouble);
  d.multilabel =
      (d.scores + torch::randn({kMetricsSamples, 3}, torch::kDouble)).gt(0).to(torch::kLong);
  return d;
}

}  // namespace fulgur::testing
