#include "fulgur/metrics/multioutput_wrapper.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

// Whether each row (along dim 0) holds a NaN.
at::Tensor nan_rows(const at::Tensor& x) {
  const auto nan = x.isnan();
  return x.dim() == 1 ? nan : nan.flatten(1).any(1);
}

}  // namespace

MultioutputWrapper::MultioutputWrapper(std::unique_ptr<Metric> base, int64_t num_outputs,
                                       MultioutputWrapperOptions options)
    : Metric("MultioutputWrapper"), base_(std::move(base)), options_(options) {
  if (!base_) throw ConfigError("MultioutputWrapper needs a metric to wrap, not a null pointer");
  if (num_outputs < 1) {
    throw ConfigError(fmt::format("MultioutputWrapper({}): num_outputs must be at least 1, not {}",
                                  base_->name(), num_outputs));
  }
  if (base_->full_state_update()) {
    throw ConfigError(fmt::format(
        "MultioutputWrapper({}): the metric's update needs its accumulated states, so one "
        "instance cannot serve every output; wrap a metric without full_state_update",
        base_->name()));
  }
  base_->reset();
  const auto states = base_->state_info();
  outputs_.resize(num_outputs);
  for (int64_t output = 0; output < num_outputs; ++output) {
    for (const auto& s : states) {
      outputs_[output].push_back(
          add_state(fmt::format("{}_{}", s.name, output), s.initial, s.reduction));
    }
  }
}

at::Tensor MultioutputWrapper::output_slice(const at::Tensor& tensor, const char* what,
                                            int64_t output) const {
  const int64_t dim = options_.output_dim;
  if (dim < -tensor.dim() || dim >= tensor.dim()) {
    fail(fmt::format("{}({}): output_dim {} is outside {} of shape [{}]", name(), base_->name(),
                     dim, what, fmt::join(tensor.sizes(), ", ")));
  }
  if (tensor.size(dim) != num_outputs()) {
    fail(fmt::format("{}({}): {} has {} outputs along dim {} (shape [{}]); expected {}", name(),
                     base_->name(), what, tensor.size(dim), dim, fmt::join(tensor.sizes(), ", "),
                     num_outputs()));
  }
  return tensor.narrow(dim, output, 1);
}

void MultioutputWrapper::update_state(const at::Tensor& preds, const at::Tensor& target) {
  std::vector<at::Tensor> values(outputs_.size() * outputs_.front().size());
  for (int64_t output = 0; output < num_outputs(); ++output) {
    auto p = output_slice(preds, "preds", output);
    auto t = target.defined() ? output_slice(target, "target", output) : at::Tensor();
    if (options_.remove_nans && p.dim() > 0) {
      auto nan = nan_rows(p);
      if (t.defined() && t.dim() > 0) nan = nan | nan_rows(t);
      const auto kept = nan.logical_not().nonzero().squeeze(1);
      p = p.index_select(0, kept);
      if (t.defined() && t.dim() > 0) t = t.index_select(0, kept);
    }
    if (options_.squeeze_outputs) {
      p = p.squeeze(options_.output_dim);
      if (t.defined()) t = t.squeeze(options_.output_dim);
    }
    base_->reset();
    base_->update(p, t);
    const auto output_values = base_->state_values();
    for (size_t i = 0; i < output_values.size(); ++i) {
      values[outputs_[output][i]] = output_values[i];
    }
  }
  base_->reset();
  merge_state(values, 0);  // the update itself counts once, in update()
}

at::Tensor MultioutputWrapper::compute_value() {
  std::vector<at::Tensor> per_output;
  for (const auto& ids : outputs_) {
    std::vector<at::Tensor> values;
    for (const StateId id : ids) values.push_back(state_value(id));
    base_->reset();
    base_->merge_state(values, update_count());
    per_output.push_back(base_->compute());
  }
  base_->reset();
  return at::stack(per_output);
}

}  // namespace fulgur::metrics
