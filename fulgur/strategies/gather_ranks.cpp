#include "fulgur/strategies/gather_ranks.h"

#include <torch/autograd.h>
#include <torch/torch.h>

#include "fulgur/strategies/strategy.h"

namespace fulgur {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The gather as an autograd function, so that sync_grads can carry gradients back to each rank.
struct GatherWithGradients : torch::autograd::Function<GatherWithGradients> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input,
                               Strategy* strategy) {
    // saved_data holds IValues only; the strategy outlives the graph (it owns the run).
    ctx->saved_data["strategy"] = reinterpret_cast<int64_t>(strategy);
    return torch::stack(strategy->all_gather(input));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto* strategy = reinterpret_cast<Strategy*>(ctx->saved_data["strategy"].toInt());
    // Each rank's gradient for the whole stack, summed over the ranks; this rank's slice of
    // the sum is its input's gradient.
    const auto summed = strategy->reduce(grad_outputs[0].contiguous(), ReduceOp::Sum);
    return {summed[strategy->global_rank()], torch::Tensor()};
  }
};

}  // namespace

at::Tensor gather_ranks(Strategy& strategy, const at::Tensor& tensor, bool sync_grads) {
  if (strategy.world_size() == 1) return tensor;
  const auto input = tensor.contiguous();
  if (sync_grads) return GatherWithGradients::apply(input, &strategy);
  torch::NoGradGuard no_grad;
  return torch::stack(strategy.all_gather(input));
}

}  // namespace fulgur
