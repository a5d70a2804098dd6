#pragma once
// The pruning rules of torch.nn.utils.prune, as masks: 1 keeps an entry, 0 prunes it.
//
// Each rule prunes `amount` of what `mask` still keeps: an int is a count, a double a fraction
// rounded half to even (Python's round), so pruning 0.5 twice keeps a quarter, as PyTorch's
// iterative pruning does. Unstructured rules rank single entries, structured ones whole slices
// along `dim` (the output channels for dim 0). The scores are the parameter's values; random
// rules draw from LibTorch's generator (torch.rand_like, as PyTorch), so a seeded run repeats.
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace fulgur::pruning {

// An int counts entries (or slices); a double in [0, 1] is a fraction of them.
using Amount = std::variant<int64_t, double>;

std::string to_string(const Amount& amount);

// ConfigError, with PyTorch's text, for a negative count or a fraction outside [0, 1].
void check_amount(const Amount& amount);

// How many of `size` entries `amount` prunes; ConfigError when a count exceeds `size`.
int64_t entries_to_prune(const Amount& amount, int64_t size);

// L1Unstructured (the smallest |score| go) or RandomUnstructured (random entries go).
torch::Tensor prune_unstructured(const torch::Tensor& scores, const torch::Tensor& mask,
                                 const Amount& amount, bool random);

// LnStructured (the slices along `dim` with the smallest `norm`-norm go; `norm` may be
// infinite) or, without a norm, RandomStructured. ConfigError, as PyTorch, for a tensor of
// fewer than 2 dimensions or a `dim` it lacks.
torch::Tensor prune_structured(const torch::Tensor& scores, const torch::Tensor& mask,
                               const Amount& amount, int64_t dim, std::optional<double> norm);

}  // namespace fulgur::pruning
