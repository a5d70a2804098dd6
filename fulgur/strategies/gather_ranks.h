#pragma once
// Lightning's all_gather (LightningModule.all_gather, Fabric.all_gather) over a Strategy's
// collectives: every rank's tensor stacked along a new first dimension (world_size × ...); in a
// world of one process the tensor itself, unchanged, as Lightning's single-device strategy.
#include <ATen/core/Tensor.h>

namespace fulgur {

class Strategy;

// Every rank must call it with a tensor of the same shape. sync_grads: the result stays in the
// autograd graph, and the gradient reaching this rank's `tensor` is the sum, over the ranks, of
// the gradients each rank's result gave to this rank's slice (torch.distributed.nn's
// all_gather); every rank must then run backward through it. Without it the result is
// detached, as Lightning's.
at::Tensor gather_ranks(Strategy& strategy, const at::Tensor& tensor, bool sync_grads = false);

}  // namespace fulgur
