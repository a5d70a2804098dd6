#include "fulgur/optim/averaging_function.h"

namespace fulgur {

AveragingFunction swa_avg_fn() {
  return [](const torch::Tensor& averaged, const torch::Tensor& current,
            const torch::Tensor& count) { return averaged + (current - averaged) / (count + 1); };
}

AveragingFunction ema_avg_fn(double decay) {
  return [decay](const torch::Tensor& averaged, const torch::Tensor& current,
                 const torch::Tensor&) { return decay * averaged + (1.0 - decay) * current; };
}

}  // namespace fulgur
