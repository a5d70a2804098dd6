#include "fulgur/nn/sync_batch_norm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include "fulgur/strategies/strategy.h"

namespace fulgur::nn {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Every dimension but the channels'.
std::vector<int64_t> reduced_dims(const torch::Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// A per-channel vector shaped to broadcast against (N, C, ...).
torch::Tensor per_channel(const torch::Tensor& vector, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = vector.numel();
  return vector.view(shape);
}

struct RunningStats {
  torch::Tensor mean, var;  // undefined when the layer does not track them
  double factor = 0;
};

// Training-mode batch norm over the global batch. Forward gathers each rank's count, mean and
// sum of squared deviations and combines them (Chan et al.), which stays accurate where
// E[x²] - E[x]² would cancel; backward all-reduces the two per-channel gradient sums.
class SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& weight, const torch::Tensor& bias,
                               RunningStats running, double eps, Strategy* strategy) {
    const auto dims = reduced_dims(input);
    const int64_t channels = input.size(1);
    // Statistics in at least float precision, as LibTorch's kernels keep them.
    const auto x = input.scalar_type() == torch::kDouble ? input : input.to(torch::kFloat);
    const auto [local_var, local_mean] = torch::var_mean(x, dims, /*unbiased=*/false);
    const double local_count = static_cast<double>(input.numel() / std::max<int64_t>(channels, 1));
    const auto packed = torch::cat(
        {local_mean, local_var * local_count, torch::full({1}, local_count, local_mean.options())});
    const auto gathered = torch::stack(strategy->all_gather(packed)).to(packed.device());
    const auto counts = gathered.select(1, 2 * channels).unsqueeze(1);  // (world, 1)
    const auto means = gathered.narrow(1, 0, channels);
    const auto squares = gathered.narrow(1, channels, channels);
    const auto total = counts.sum();
    const auto mean = (means * counts).sum(0) / total;
    const auto m2 = (squares + counts * (means - mean).square()).sum(0);
    const auto invstd = torch::rsqrt(m2 / total + eps);

    if (running.mean.defined()) {
      torch::NoGradGuard no_grad;
      running.mean.mul_(1 - running.factor).add_(mean.to(running.mean.dtype()), running.factor);
      // The running variance is the unbiased one, as LibTorch's; the count stays a tensor, so
      // the step never waits for the host.
      const auto unbiased = m2 / (total - 1).clamp_min(1);
      running.var.mul_(1 - running.factor).add_(unbiased.to(running.var.dtype()), running.factor);
    }

    const auto normalized = (x - per_channel(mean, x.dim())) * per_channel(invstd, x.dim());
    auto output = normalized;
    if (weight.defined()) output = output * per_channel(weight, x.dim());
    if (bias.defined()) output = output + per_channel(bias, x.dim());
    ctx->save_for_backward({normalized, invstd, weight, total});
    ctx->saved_data["strategy"] = reinterpret_cast<int64_t>(strategy);
    ctx->saved_data["has_bias"] = bias.defined();
    return output.to(input.scalar_type());
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& normalized = saved[0];
    const auto& invstd = saved[1];
    const auto& weight = saved[2];
    auto* strategy = reinterpret_cast<Strategy*>(ctx->saved_data["strategy"].toInt());
    const auto& total = saved[3];

    const auto grad = grads[0].to(normalized.scalar_type());
    const auto dims = reduced_dims(grad);
    const int64_t channels = grad.size(1);
    const auto sum_dy = grad.sum(dims);
    const auto sum_dy_normalized = (grad * normalized).sum(dims);
    // The parameters' gradients stay local: DDP averages them like any other.
    const auto grad_weight = weight.defined() ? sum_dy_normalized : torch::Tensor();
    const auto grad_bias = ctx->saved_data["has_bias"].toBool() ? sum_dy : torch::Tensor();

    const auto global =
        strategy->reduce(torch::cat({sum_dy, sum_dy_normalized}), ReduceOp::Sum).to(grad.device());
    const auto mean_dy = global.narrow(0, 0, channels) / total;
    const auto mean_dy_normalized = global.narrow(0, channels, channels) / total;
    auto scale = invstd;
    if (weight.defined()) scale = scale * weight.to(invstd.scalar_type());
    const int64_t dim = grad.dim();
    const auto grad_input =
        (grad - per_channel(mean_dy, dim) - normalized * per_channel(mean_dy_normalized, dim)) *
        per_channel(scale, dim);
    return {grad_input.to(grads[0].scalar_type()),
            grad_weight.defined() ? grad_weight.to(weight.scalar_type()) : grad_weight,
            grad_bias.defined() ? grad_bias.to(weight.scalar_type()) : grad_bias,
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

SyncBatchNormImpl::SyncBatchNormImpl(const torch::nn::BatchNormOptions& options)
    : options(options) {
  reset();
}

void SyncBatchNormImpl::reset() {
  if (options.affine()) {
    weight = register_parameter("weight", torch::empty({options.num_features()}));
    bias = register_parameter("bias", torch::empty({options.num_features()}));
  } else {
    weight = register_parameter("weight", torch::Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", torch::Tensor(), /*requires_grad=*/false);
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", torch::zeros({options.num_features()}));
    running_var = register_buffer("running_var", torch::ones({options.num_features()}));
    num_batches_tracked = register_buffer("num_batches_tracked", torch::tensor(0, torch::kLong));
  } else {
    running_mean = register_buffer("running_mean", torch::Tensor());
    running_var = register_buffer("running_var", torch::Tensor());
    num_batches_tracked = register_buffer("num_batches_tracked", torch::Tensor());
  }
  reset_parameters();
}

void SyncBatchNormImpl::reset_running_stats() {
  if (!options.track_running_stats()) return;
  torch::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void SyncBatchNormImpl::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  torch::NoGradGuard no_grad;
  weight.fill_(1);
  bias.zero_();
}

void SyncBatchNormImpl::pretty_print(std::ostream& stream) const {
  stream << "fulgur::nn::SyncBatchNorm(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ')';
}

torch::Tensor SyncBatchNormImpl::forward(const torch::Tensor& input) {
  if (input.dim() < 2) {
    throw std::invalid_argument(fmt::format(
        "fulgur::nn::SyncBatchNorm expects (N, C, ...) input of at least 2 dimensions, got {}",
        input.dim()));
  }
  if (input.size(1) != options.num_features()) {
    throw std::invalid_argument(
        fmt::format("fulgur::nn::SyncBatchNorm({}) got input with {} channels (shape {})",
                    options.num_features(), input.size(1), fmt::join(input.sizes(), "x")));
  }
  // LibTorch's BatchNorm bookkeeping: count the batch, pick the running-average factor.
  double factor = 0;
  if (is_training() && options.track_running_stats()) {
    num_batches_tracked.add_(1);
    factor = options.momentum() ? *options.momentum() : 1.0 / num_batches_tracked.item<double>();
  }
  const bool batch_stats = is_training() || !options.track_running_stats();
  const bool sync = batch_stats && strategy_ != nullptr && strategy_->world_size() > 1;
  if (!sync) {
    const bool use_running = !is_training() || options.track_running_stats();
    return torch::batch_norm(input, weight, bias, use_running ? running_mean : torch::Tensor(),
                             use_running ? running_var : torch::Tensor(), batch_stats, factor,
                             options.eps(), /*cudnn_enabled=*/true);
  }
  RunningStats running;
  if (options.track_running_stats()) running = {running_mean, running_var, factor};
  return SyncBatchNormFunction::apply(input, weight, bias, running, options.eps(), strategy_);
}

}  // namespace fulgur::nn
