#include "fulgur/pruning/pruning_methods.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <cmath>

#include "fulgur/errors.h"

namespace fulgur::pruning {

std::string to_string(const Amount& amount) {
  if (const auto* count = std::get_if<int64_t>(&amount)) return std::to_string(*count);
  return fmt::format("{}", std::get<double>(amount));
}

void check_amount(const Amount& amount) {
  const bool valid = std::visit([](auto value) { return value >= 0; }, amount) &&
                     (std::holds_alternative<int64_t>(amount) || std::get<double>(amount) <= 1.0);
  if (!valid) {
    throw ConfigError(fmt::format(
        "amount={} should either be a float in the range [0, 1] or a non-negative integer",
        to_string(amount)));
  }
}

int64_t entries_to_prune(const Amount& amount, int64_t size) {
  check_amount(amount);
  if (const auto* count = std::get_if<int64_t>(&amount)) {
    if (*count > size) {
      throw ConfigError(fmt::format(
          "amount={} should be smaller than the number of parameters to prune={}", *count, size));
    }
    return *count;
  }
  // Python's round(): halves go to the even neighbour, as the default rounding mode does.
  return static_cast<int64_t>(std::nearbyint(std::get<double>(amount) * static_cast<double>(size)));
}

torch::Tensor prune_unstructured(const torch::Tensor& scores, const torch::Tensor& mask,
                                 const Amount& amount, bool random) {
  torch::NoGradGuard no_grad;
  auto flat = mask.flatten().clone();
  const auto kept = flat.nonzero().squeeze(1);
  const int64_t prune = entries_to_prune(amount, kept.numel());
  if (prune == 0) return flat.view_as(mask);
  const auto candidates = scores.detach().flatten().index_select(0, kept);
  // L1: the smallest magnitudes; random: the largest of uniform draws.
  const auto ranked = random ? torch::rand_like(candidates) : candidates.abs();
  const auto chosen = std::get<1>(torch::topk(ranked, prune, 0, /*largest=*/random));
  flat.index_fill_(0, kept.index_select(0, chosen), 0);
  return flat.view_as(mask);
}

torch::Tensor prune_structured(const torch::Tensor& scores, const torch::Tensor& mask,
                               const Amount& amount, int64_t dim, std::optional<double> norm) {
  torch::NoGradGuard no_grad;
  const int64_t dims = mask.dim();
  if (dims < 2) {
    throw ConfigError(fmt::format(
        "Structured pruning can only be applied to multidimensional tensors. Found tensor of "
        "shape [{}] with {} dims",
        fmt::join(mask.sizes(), ", "), dims));
  }
  if (dim < -dims || dim >= dims) {
    throw ConfigError(fmt::format("pruning_dim={} is out of range for a tensor of shape [{}]", dim,
                                  fmt::join(mask.sizes(), ", ")));
  }
  if (dim < 0) dim += dims;
  std::vector<int64_t> others;
  for (int64_t d = 0; d < dims; ++d) {
    if (d != dim) others.push_back(d);
  }
  // The slices still kept, then the rule among them.
  const auto kept_slice = mask.sum(others).ne(0).nonzero().squeeze(1);
  const int64_t slices = kept_slice.numel();
  const int64_t prune = entries_to_prune(amount, slices);
  auto result = mask.clone();
  if (prune == 0) return result;
  torch::Tensor keep;  // positions among the kept slices
  if (norm) {
    const auto candidates = scores.detach().index_select(dim, kept_slice);
    const auto norms = torch::norm(candidates, *norm, others);
    keep = std::get<1>(torch::topk(norms, slices - prune, 0, /*largest=*/true));
  } else {
    // RandomStructured: the slices whose draw is above the prune-th smallest stay.
    const auto draws = torch::rand({slices});
    const auto threshold = std::get<0>(torch::kthvalue(draws, prune));
    keep = draws.gt(threshold).nonzero().squeeze(1);
  }
  auto pruned = torch::ones({slices}, kept_slice.options().dtype(torch::kBool));
  pruned.index_fill_(0, keep.to(pruned.device()), false);
  result.index_fill_(dim, kept_slice.masked_select(pruned), 0);
  return result;
}

}  // namespace fulgur::pruning
