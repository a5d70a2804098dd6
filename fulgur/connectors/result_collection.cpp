#include "fulgur/connectors/result_collection.h"

#include "fulgur/metrics/metric.h"

namespace fulgur {

void ResultCollection::log(const std::string& name, const torch::Tensor& value,
                           const ResolvedLog& options, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  // Python's `.data`: no autograd history, and unlike detach() no dispatched op per step.
  auto v = value.variable_data();
  if (v.numel() != 1) v = v.mean();
  // A loss is already a scalar; the reshape is a dispatched op on every logged step.
  if (v.dim() != 0) v = v.reshape({});
  if (!v.is_floating_point()) v = v.to(torch::kFloat);
  auto [it, inserted] = entries_.try_emplace(name);
  Entry& e = it->second;
  e.options = options;
  e.last = options.sync_dist && options.on_step && sync_ ? sync_(v, options.reduce_fx) : v;
  e.step_pending = options.on_step;
  if (!options.on_epoch) return;
  const double w = static_cast<double>(std::max<int64_t>(batch_size, 1));
  if (inserted || !e.accumulated.defined()) {
    e.accumulated = options.reduce_fx == ReduceFx::Mean ? v * w : v.clone();
    e.weight = w;
    return;
  }
  switch (options.reduce_fx) {
    case ReduceFx::Mean: e.accumulated.add_(v, w); break;
    case ReduceFx::Sum: e.accumulated.add_(v); break;
    case ReduceFx::Min: e.accumulated = torch::minimum(e.accumulated, v); break;
    case ReduceFx::Max: e.accumulated = torch::maximum(e.accumulated, v); break;
  }
  e.weight += w;
}

void ResultCollection::log_metric(const std::string& name, std::shared_ptr<metrics::Metric> metric,
                                  const torch::Tensor& batch_value, const ResolvedLog& options) {
  Entry& e = entries_[name];
  e.options = options;
  e.metric = std::move(metric);
  e.step_pending = options.on_step;
  if (options.on_step) e.last = batch_value.detach().reshape({});
}

void ResultCollection::reset() {
  for (auto& [name, e] : entries_) {
    if (e.metric) e.metric->reset();
  }
  entries_.clear();
}

std::map<std::string, ResultCollection::Value> ResultCollection::take_step_values() {
  std::map<std::string, Value> out;
  for (auto& [name, e] : entries_) {
    if (!e.step_pending) continue;
    e.step_pending = false;
    const std::string key = e.options.on_epoch ? name + "_step" : name;
    out[key] = {e.last, e.options.prog_bar, e.options.logger, name};
  }
  return out;
}

std::map<std::string, ResultCollection::Value> ResultCollection::epoch_values() const {
  std::map<std::string, Value> out;
  for (const auto& [name, e] : entries_) {
    const std::string key = e.options.on_step ? name + "_epoch" : name;
    if (e.metric && e.options.on_epoch) {
      auto value = compute_metric_ ? compute_metric_(*e.metric) : e.metric->compute();
      out[key] = {value.reshape({}), e.options.prog_bar, e.options.logger, name};
      continue;
    }
    if (!e.options.on_epoch || !e.accumulated.defined()) continue;
    torch::Tensor value;
    if (e.options.reduce_fx != ReduceFx::Mean) {
      value = e.options.sync_dist && sync_ ? sync_(e.accumulated, e.options.reduce_fx)
                                           : e.accumulated;
    } else if (e.options.sync_dist && sync_) {
      // Σ value·weight and Σ weight of every rank, in one reduction.
      auto both = sync_(torch::stack({e.accumulated, torch::full({}, e.weight,
                                                                 e.accumulated.options())}),
                        ReduceFx::Sum);
      value = both[0] / both[1];
    } else {
      value = e.accumulated / e.weight;
    }
    out[key] = {value, e.options.prog_bar, e.options.logger, name};
  }
  return out;
}

}  // namespace fulgur
