#include "fulgur/metrics/base_aggregator.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

BaseAggregator::BaseAggregator(std::string name, AggregationOptions options)
    : Metric(std::move(name)), options_(std::move(options)) {
  if (const auto* s = std::get_if<std::string>(&options_.nan_strategy)) {
    if (*s != "warn" && *s != "ignore" && *s != "error" && *s != "disable") {
      throw ConfigError(fmt::format(
          "{}(nan_strategy=\"{}\") is not valid; choose \"warn\", \"ignore\", \"error\", "
          "\"disable\" or a number to replace NaN with",
          this->name(), *s));
    }
  }
  nan_count_ =
      add_state("nan_count", at::zeros({}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

std::pair<at::Tensor, at::Tensor> BaseAggregator::clean(const at::Tensor& value, double left_out) {
  if (!value.defined()) fail("update() needs a value");
  const auto v = value.detach().to(at::kDouble);
  if (const auto* replacement = std::get_if<double>(&options_.nan_strategy)) {
    return {at::nan_to_num(v, *replacement, kInf, -kInf), at::Tensor()};
  }
  const auto& strategy = std::get<std::string>(options_.nan_strategy);
  if (strategy == "disable") return {v, at::Tensor()};
  const auto nan = at::isnan(v);
  if (strategy == "error") {
    if (nan.any().item<bool>()) fail("the value contains NaN (nan_strategy=\"error\")");
    return {v, at::Tensor()};
  }
  state(nan_count_).add_(nan.sum());
  return {at::where(nan, at::full({}, left_out, v.options()), v), at::logical_not(nan)};
}

std::pair<at::Tensor, at::Tensor> BaseAggregator::weighted_sums(const at::Tensor& value,
                                                                const at::Tensor& weight) {
  auto [v, counts] = clean(value, 0.0);
  auto w =
      weight.defined() ? weight.detach().to(v.device(), at::kDouble) : at::ones({}, v.options());
  if (!at::is_expandable_to(w.sizes(), v.sizes())) {
    fail(fmt::format("weight of shape [{}] does not broadcast to the value's shape [{}]",
                     fmt::join(w.sizes(), ", "), fmt::join(v.sizes(), ", ")));
  }
  w = w.expand(v.sizes());
  // A left-out value weighs nothing (its weight may be NaN too).
  if (counts.defined()) w = at::where(counts, w, at::zeros({}, w.options()));
  return {(v * w).sum(), w.sum()};
}

bool BaseAggregator::leaves_nan_out() const {
  const auto* strategy = std::get_if<std::string>(&options_.nan_strategy);
  return strategy && (*strategy == "warn" || *strategy == "ignore");
}

at::Tensor BaseAggregator::compute_value() {
  const auto* strategy = std::get_if<std::string>(&options_.nan_strategy);
  if (strategy && *strategy == "warn") {
    const auto left_out = state(nan_count_).item<int64_t>();
    if (left_out > 0) {
      warn(fmt::format("{}: {} NaN value{} left out (nan_strategy=\"warn\")", name(), left_out,
                       left_out == 1 ? " was" : "s were"));
    }
  }
  return aggregate();
}

}  // namespace fulgur::metrics
