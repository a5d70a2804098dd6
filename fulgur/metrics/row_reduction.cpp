#include "fulgur/metrics/row_reduction.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/regression_inputs.h"

namespace fulgur::metrics {

RowReduction::RowReduction(std::string name, std::string reduction, const std::string& state_name)
    : Metric(std::move(name)), reduction_(std::move(reduction)) {
  const auto& r = reduction_;
  if (r != "sum" && r != "mean" && r != "none") {
    throw ConfigError(
        fmt::format("{}(reduction=\"{}\") is not valid; choose \"sum\", \"mean\" or \"none\"",
                    this->name(), r));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (r == "none") {
    rows_ = add_state(state_name, at::zeros({0}, doubles), Reduction::Cat);
  } else {
    rows_ = add_state(state_name, at::zeros({}, doubles), Reduction::Sum);
    total_ = add_state("total", at::zeros({}, doubles), Reduction::Sum);
  }
}

void RowReduction::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = regression_pair(name(), preds, target);
  if (p.dim() != 2) {
    fail(fmt::format("preds and target must be [N, D], not [{}]", fmt::join(p.sizes(), ", ")));
  }
  const auto rows = row_values(p, t);
  if (reduction_ == "none") {
    append(rows_, rows);
  } else {
    state(rows_).add_(rows.sum());
    state(total_).add_(p.size(0));
  }
}

at::Tensor RowReduction::compute_value() {
  if (reduction_ == "none") return cat_state(rows_);
  if (reduction_ == "sum") return state(rows_).clone();
  return state(rows_) / state(total_);
}

}  // namespace fulgur::metrics
