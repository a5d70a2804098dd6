#pragma once
// The averaging functions of weight averaging (torch.optim.swa_utils' avg_fn): from the average
// so far, the Module's current value and how many values the average holds (a long tensor), the
// new average. StochasticWeightAveraging and WeightAveraging take one.
#include <torch/types.h>

#include <functional>

namespace fulgur {

using AveragingFunction = std::function<torch::Tensor(
    const torch::Tensor& averaged, const torch::Tensor& current, const torch::Tensor& count)>;

// get_swa_avg_fn(): the running mean, averaged + (current - averaged) / (count + 1).
AveragingFunction swa_avg_fn();
// get_ema_avg_fn(decay): the exponential moving average, decay * averaged + (1 - decay) * current.
AveragingFunction ema_avg_fn(double decay = 0.999);

}  // namespace fulgur
