#include "fulgur/metrics/rank_correlation.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <vector>

#include "fulgur/metrics/multioutput.h"

namespace fulgur::metrics {

RankCorrelation::RankCorrelation(std::string name, int64_t num_outputs)
    : Metric(std::move(name)), num_outputs_(num_outputs) {
  check_num_outputs(this->name(), num_outputs_);
  // One output keeps [N] states.
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  const auto empty =
      num_outputs_ == 1 ? at::zeros({0}, doubles) : at::zeros({0, num_outputs_}, doubles);
  preds_ = add_state("preds", empty, Reduction::Cat);
  target_ = add_state("target", empty, Reduction::Cat);
}

void RankCorrelation::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto [p, t] = per_output_pair(name(), preds, target, num_outputs_);
  const bool one = num_outputs_ == 1;
  append(preds_, one ? p.reshape({-1}) : p);
  append(target_, one ? t.reshape({-1}) : t);
}

at::Tensor RankCorrelation::compute_value() {
  const auto p = cat_state(preds_).reshape({-1, num_outputs_});
  const auto t = cat_state(target_).reshape({-1, num_outputs_});
  if (p.size(0) < 2) fail(fmt::format("needs at least 2 samples to score, got {}", p.size(0)));
  std::vector<at::Tensor> columns;
  for (int64_t o = 0; o < num_outputs_; ++o) {
    columns.push_back(
        coefficient(p.select(1, o).contiguous(), t.select(1, o).contiguous()).to(p.device()));
  }
  const auto value = at::stack(columns).clamp(-1, 1);
  return num_outputs_ == 1 ? value.squeeze(0) : value;
}

}  // namespace fulgur::metrics
