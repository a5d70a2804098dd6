#pragma once
// The linear sum assignment (scipy's linear_sum_assignment with maximize=True): each row of a
// square matrix matched to its own column so that the matched entries' total is the largest.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace fulgur::metrics {

// For each row of the square matrix `weights` [n, n], its column in a best matching. Solved
// on the host by the Hungarian method with potentials, O(n^3).
std::vector<int64_t> max_weight_assignment(const at::Tensor& weights);

}  // namespace fulgur::metrics
