#include "fulgur/connectors/result_collection.h"

namespace fulgur {

void ResultCollection::log(const std::string& name, const torch::Tensor& value,
                           const ResolvedLog& options, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  auto v = value.detach();
  if (v.numel() != 1) v = v.mean();
  v = v.reshape({});
  if (!v.is_floating_point()) v = v.to(torch::kFloat);
  auto [it, inserted] = entries_.try_emplace(name);
  Entry& e = it->second;
  e.options = options;
  e.last = v;
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

std::map<std::string, ResultCollection::Value> ResultCollection::take_step_values() {
  std::map<std::string, Value> out;
  for (auto& [name, e] : entries_) {
    if (!e.step_pending) continue;
    e.step_pending = false;
    const std::string key = e.options.on_epoch ? name + "_step" : name;
    out[key] = {e.last, e.options.prog_bar, e.options.logger};
  }
  return out;
}

std::map<std::string, ResultCollection::Value> ResultCollection::epoch_values() const {
  std::map<std::string, Value> out;
  for (const auto& [name, e] : entries_) {
    if (!e.options.on_epoch || !e.accumulated.defined()) continue;
    const std::string key = e.options.on_step ? name + "_epoch" : name;
    auto value = e.options.reduce_fx == ReduceFx::Mean ? e.accumulated / e.weight : e.accumulated;
    out[key] = {value, e.options.prog_bar, e.options.logger};
  }
  return out;
}

}  // namespace fulgur
