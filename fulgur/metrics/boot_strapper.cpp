#include "fulgur/metrics/boot_strapper.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/option_choice.h"
#include "fulgur/metrics/synced_compute.h"

namespace fulgur::metrics {
namespace {

at::Tensor rows_of(const at::Tensor& tensor, const at::Tensor& index) {
  return tensor.defined() ? tensor.index_select(0, index.to(tensor.device())) : tensor;
}

}  // namespace

BootStrapper::BootStrapper(Factory make_metric, BootStrapperOptions options)
    : options_(std::move(options)) {
  if (!make_metric) throw ConfigError("BootStrapper needs a factory that makes its metric");
  if (options_.num_bootstraps < 1) {
    throw ConfigError(fmt::format("BootStrapper: num_bootstraps must be at least 1, not {}",
                                  options_.num_bootstraps));
  }
  if (options_.quantile && !(*options_.quantile >= 0 && *options_.quantile <= 1)) {
    throw ConfigError(
        fmt::format("BootStrapper: quantile must be in [0, 1], not {}", *options_.quantile));
  }
  check_choice("BootStrapper", "sampling_strategy", options_.sampling_strategy,
               {"poisson", "multinomial"});
  for (int64_t i = 0; i < options_.num_bootstraps; ++i) {
    auto copy = make_metric();
    if (!copy) throw ConfigError("BootStrapper's factory returned a null metric");
    copies_.push_back(std::move(copy));
  }
}

Metric& BootStrapper::at(int64_t index) const {
  if (index < 0 || index >= num_bootstraps()) {
    throw MetricError(
        fmt::format("BootStrapper has no copy {}; it has {}", index, num_bootstraps()));
  }
  return *copies_[index];
}

at::Tensor BootStrapper::draw(int64_t rows) const {
  if (options_.sampling_strategy == "poisson") {
    const auto times = at::poisson(at::ones({rows})).to(at::kLong);
    return at::arange(rows).repeat_interleave(times);
  }
  return at::multinomial(at::ones({rows}), rows, true);
}

void BootStrapper::update(const at::Tensor& input, const at::Tensor& target) {
  if (!input.defined() || input.dim() == 0) {
    throw MetricError("BootStrapper: update() resamples along dimension 0, so it needs a batch");
  }
  for (auto& copy : copies_) {
    const auto index = draw(input.size(0));
    if (index.numel() == 0) continue;
    copy->update(rows_of(input, index), rows_of(target, index));
  }
}

std::map<std::string, at::Tensor> BootStrapper::forward(const at::Tensor& input,
                                                        const at::Tensor& target) {
  if (!input.defined() || input.dim() == 0) {
    throw MetricError("BootStrapper: forward() resamples along dimension 0, so it needs a batch");
  }
  std::vector<at::Tensor> values;
  for (auto& copy : copies_) {
    const auto index = draw(input.size(0));
    if (index.numel() == 0) continue;
    values.push_back(copy->forward(rows_of(input, index), rows_of(target, index)));
  }
  if (values.empty()) {
    throw MetricError("BootStrapper: every copy's sample of this batch was empty");
  }
  return statistics(values);
}

std::map<std::string, at::Tensor> BootStrapper::statistics(
    const std::vector<at::Tensor>& values) const {
  const auto stacked = at::stack(values);
  std::map<std::string, at::Tensor> out;
  if (options_.mean) out["mean"] = stacked.mean(0);
  if (options_.std) out["std"] = stacked.std(0);
  if (options_.quantile) out["quantile"] = at::quantile(stacked, *options_.quantile);
  if (options_.raw) out["raw"] = stacked;
  return out;
}

std::map<std::string, at::Tensor> BootStrapper::compute() {
  std::vector<at::Tensor> values;
  for (auto& copy : copies_) values.push_back(copy->compute());
  return statistics(values);
}

std::map<std::string, at::Tensor> BootStrapper::compute(Strategy& strategy) {
  return synced_compute(*this, strategy);
}

void BootStrapper::reset() {
  for (auto& copy : copies_) copy->reset();
}

void BootStrapper::sync(Strategy& strategy) {
  for (auto& copy : copies_) copy->sync(strategy);
}

void BootStrapper::unsync() {
  for (auto& copy : copies_) {
    if (copy->is_synced()) copy->unsync();
  }
}

void BootStrapper::to(const c10::Device& device) {
  for (auto& copy : copies_) copy->to(device);
}

c10::IValue BootStrapper::state_dict() const {
  auto list = c10::impl::GenericList(c10::AnyType::get());
  for (const auto& copy : copies_) list.push_back(copy->state_dict());
  return list;
}

void BootStrapper::load_state_dict(const c10::IValue& state) {
  if (!state.isList()) {
    throw CheckpointError(fmt::format(
        "the BootStrapper state in the checkpoint is a {}, not a list", state.tagKind()));
  }
  const auto list = state.toList();
  if (static_cast<int64_t>(list.size()) != num_bootstraps()) {
    throw CheckpointError(
        fmt::format("the BootStrapper state in the checkpoint has {} copies, this one {}",
                    list.size(), num_bootstraps()));
  }
  for (size_t i = 0; i < list.size(); ++i) copies_[i]->load_state_dict(list.get(i));
}

}  // namespace fulgur::metrics
