#include "fulgur/metrics/running_aggregator.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

namespace {

AggregationOptions aggregation_options(const std::string& name, const RunningOptions& options) {
  if (options.window < 1) {
    throw ConfigError(fmt::format("{}(window={}) is not valid; the window must be at least 1", name,
                                  options.window));
  }
  return {.nan_strategy = options.nan_strategy};
}

}  // namespace

RunningAggregator::RunningAggregator(std::string name, const RunningOptions& options)
    : BaseAggregator(name, aggregation_options(name, options)), window_(options.window) {}

Metric::StateId RunningAggregator::add_window_state(const std::string& name) {
  return add_state(name, at::zeros({window_}, at::TensorOptions().dtype(at::kDouble)),
                   Reduction::Sum);
}

void RunningAggregator::put(StateId id, const at::Tensor& value) {
  // update_count() is the number of updates before this one (0 after a reset, and in the fresh
  // states forward() computes a batch in): the slot cycles through the window.
  state(id).select(0, update_count() % window_).copy_(value);
}

at::Tensor RunningAggregator::window_sum(StateId id) { return state(id).sum(); }

}  // namespace fulgur::metrics
