#include "fulgur/metrics/metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/synced_compute.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur::metrics {

namespace {

const char* const kUpdateCountKey = "_update_count";

ReduceOp collective_op(Reduction reduction) {
  switch (reduction) {
    case Reduction::Max:
      return ReduceOp::Max;
    case Reduction::Min:
      return ReduceOp::Min;
    default:
      return ReduceOp::Sum;
  }
}

std::string shape_text(at::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

}  // namespace

Metric::Metric(std::string name) : name_(std::move(name)) {}

void Metric::fail(const std::string& message) const {
  throw MetricError(fmt::format("{}: {}", name_, message));
}

Metric::StateId Metric::add_state(const std::string& name, const at::Tensor& initial,
                                  Reduction reduction) {
  for (const auto& s : states_) {
    if (s.name == name) throw ConfigError(fmt::format("{}: state \"{}\" added twice", name_, name));
  }
  if (reduction == Reduction::Cat && (initial.dim() == 0 || initial.size(0) != 0)) {
    throw ConfigError(fmt::format(
        "{}: cat state \"{}\" must start as an empty tensor of shape [0, ...]", name_, name));
  }
  auto start = initial.detach().to(device_);
  states_.push_back({name, reduction, start, start.clone(), {}});
  return states_.size() - 1;
}

at::Tensor& Metric::state(StateId id) { return states_.at(id).value; }

void Metric::append(StateId id, const at::Tensor& chunk) {
  auto& s = states_.at(id);
  s.chunks.push_back(chunk.detach().to(s.initial.device(), s.initial.scalar_type()));
}

at::Tensor Metric::cat_state(StateId id) const {
  const auto& s = states_.at(id);
  if (s.chunks.empty()) return s.initial;
  if (s.chunks.size() == 1) return s.chunks.front();
  return at::cat(s.chunks, 0);
}

void Metric::update(const at::Tensor& input, const at::Tensor& target) {
  if (synced_) {
    fail("update() was called while the metric is synced; call unsync() first");
  }
  if (input.defined() && input.device() != device_) to(input.device());
  update_state(input, target);
  ++update_count_;
  computed_ = at::Tensor();
  forward_value_ = at::Tensor();
}

at::Tensor Metric::forward(const at::Tensor& input, const at::Tensor& target) {
  if (synced_) fail("forward() was called while the metric is synced; call unsync() first");
  const bool full_state = full_state_update();
  if (full_state) update(input, target);
  // The batch alone: the accumulated states are put aside, the batch goes into fresh ones,
  // and the two are merged back by each state's reduction (or, updated already, put back).
  std::vector<at::Tensor> values;
  std::vector<std::vector<at::Tensor>> chunks;
  for (auto& s : states_) {
    values.push_back(s.value);
    chunks.push_back(std::move(s.chunks));
  }
  const int64_t count = update_count_;
  auto put_back = [&] {
    for (size_t i = 0; i < states_.size(); ++i) {
      states_[i].value = values[i];
      states_[i].chunks = std::move(chunks[i]);
    }
    update_count_ = count;
  };
  reset();
  at::Tensor batch_value;
  try {
    update(input, target);
    batch_value = compute();
  } catch (...) {
    put_back();
    computed_ = at::Tensor();
    throw;
  }
  if (full_state) {
    put_back();
  } else {
    // The accumulated states come back, and the batch's fresh ones fold into them.
    for (size_t i = 0; i < states_.size(); ++i) {
      State& s = states_[i];
      const auto batch = s.value;
      auto batch_chunks = std::move(s.chunks);
      s.value = values[i].to(device_);
      s.chunks = std::move(chunks[i]);
      reduce_into(s, batch, std::move(batch_chunks));
    }
    update_count_ = count + 1;
  }
  computed_ = at::Tensor();
  forward_value_ = batch_value;
  return batch_value;
}

void Metric::reduce_into(State& state, const at::Tensor& value, std::vector<at::Tensor> chunks) {
  switch (state.reduction) {
    case Reduction::Sum:
      state.value = state.value + value.to(state.value.device());
      break;
    case Reduction::Max:
      state.value = at::maximum(state.value, value.to(state.value.device()));
      break;
    case Reduction::Min:
      state.value = at::minimum(state.value, value.to(state.value.device()));
      break;
    case Reduction::Cat:
      for (auto& chunk : chunks) state.chunks.push_back(chunk.to(state.initial.device()));
      break;
  }
}

void Metric::merge_state(const Metric& other) {
  if (other.name_ != name_ || other.states_.size() != states_.size()) {
    fail(fmt::format("merge_state() needs another {}, not {}", name_, other.name_));
  }
  if (other.synced_) fail("merge_state() was given a synced metric; unsync() it first");
  merge_state(other.state_values(), other.update_count_);
}

void Metric::merge_state(const std::vector<at::Tensor>& values, int64_t update_count) {
  if (full_state_update()) {
    fail(
        "merge_state() cannot merge this metric: its update needs the accumulated states "
        "(full_state_update), so batches seen apart do not fold together");
  }
  if (synced_) fail("merge_state() was called while the metric is synced; call unsync() first");
  if (values.size() != states_.size()) {
    fail(fmt::format("merge_state() was given {} state values; this metric has {}", values.size(),
                     states_.size()));
  }
  for (size_t i = 0; i < states_.size(); ++i) {
    const auto& s = states_[i];
    const auto& v = values[i];
    const bool fits =
        s.reduction == Reduction::Cat
            ? v.dim() == s.initial.dim() && v.sizes().slice(1) == s.initial.sizes().slice(1)
            : v.sizes() == s.initial.sizes();
    if (!fits) {
      fail(fmt::format("merge_state() was given state \"{}\" of shape {}; this metric's is {}",
                       s.name, shape_text(v.sizes()), shape_text(s.initial.sizes())));
    }
  }
  for (size_t i = 0; i < states_.size(); ++i) {
    auto& s = states_[i];
    const auto value = values[i].detach().to(s.initial.scalar_type());
    if (s.reduction == Reduction::Cat) {
      reduce_into(s, value, {value});
    } else {
      reduce_into(s, value, {});
    }
  }
  update_count_ += update_count;
  computed_ = at::Tensor();
}

std::vector<Metric::StateInfo> Metric::state_info() const {
  std::vector<StateInfo> info;
  for (const auto& s : states_) info.push_back({s.name, s.reduction, s.initial});
  return info;
}

std::vector<at::Tensor> Metric::state_values() const {
  std::vector<at::Tensor> values;
  for (size_t i = 0; i < states_.size(); ++i) values.push_back(state_value(i));
  return values;
}

at::Tensor Metric::state_value(StateId id) const {
  const auto& s = states_.at(id);
  return s.reduction == Reduction::Cat ? cat_state(id) : s.value;
}

void Metric::set_state(StateId id, const at::Tensor& value) {
  auto& s = states_.at(id);
  const auto v = value.detach().to(s.initial.device(), s.initial.scalar_type());
  if (s.reduction == Reduction::Cat) {
    s.chunks = {v};
  } else {
    s.value = v;
  }
}

at::Tensor Metric::compute() {
  if (update_count_ == 0) {
    fail(
        "compute() was called before any update(); a metric of no samples has no value (feed "
        "it a batch first, or check update_count())");
  }
  if (!computed_.defined()) computed_ = compute_value();
  return computed_;
}

at::Tensor Metric::compute(Strategy& strategy) { return synced_compute(*this, strategy); }

void Metric::reset() {
  for (auto& s : states_) {
    s.value = s.initial.clone();
    s.chunks.clear();
  }
  update_count_ = 0;
  synced_.reset();
  computed_ = at::Tensor();
  forward_value_ = at::Tensor();
}

at::Tensor Metric::gather_cat(Strategy& strategy, const State& s) const {
  const auto local =
      s.chunks.empty() ? s.initial : (s.chunks.size() == 1 ? s.chunks[0] : at::cat(s.chunks));
  // Collectives need the same shape on every rank: share the lengths, pad to the longest,
  // gather, then cut each rank's padding off again.
  const auto lengths_per_rank =
      strategy.all_gather(at::tensor({local.size(0)}, at::TensorOptions().dtype(at::kLong)));
  std::vector<int64_t> lengths;
  int64_t longest = 0;
  for (const auto& l : lengths_per_rank) {
    lengths.push_back(l.to(at::kCPU).item<int64_t>());
    longest = std::max(longest, lengths.back());
  }
  if (longest == 0) return local;  // nothing anywhere: skip gathering empty tensors
  auto padded = local;
  if (local.size(0) < longest) {
    auto pad_shape = local.sizes().vec();
    pad_shape[0] = longest - local.size(0);
    padded = at::cat({local, at::zeros(pad_shape, local.options())});
  }
  const auto gathered = strategy.all_gather(padded.contiguous());
  std::vector<at::Tensor> parts;
  for (size_t rank = 0; rank < gathered.size(); ++rank) {
    parts.push_back(gathered[rank].narrow(0, 0, lengths.at(rank)));
  }
  return at::cat(parts).to(device_);
}

void Metric::sync(Strategy& strategy) {
  if (synced_) fail("sync() was called on a metric that is already synced; call unsync() first");
  Snapshot local;
  local.update_count = update_count_;
  for (const auto& s : states_) {
    local.values.push_back(s.value);
    local.chunks.push_back(s.chunks);
  }
  // Every rank reaches the same collectives in the same order: the states' registration order.
  std::vector<at::Tensor> values(states_.size());
  std::vector<at::Tensor> joined(states_.size());
  for (size_t i = 0; i < states_.size(); ++i) {
    const auto& s = states_[i];
    if (s.reduction == Reduction::Cat) {
      joined[i] = gather_cat(strategy, s);
    } else {
      values[i] = strategy.reduce(s.value, collective_op(s.reduction)).to(device_);
    }
  }
  const auto count = strategy.reduce(
      at::tensor({update_count_}, at::TensorOptions().dtype(at::kLong)), ReduceOp::Sum);
  for (size_t i = 0; i < states_.size(); ++i) {
    auto& s = states_[i];
    if (s.reduction == Reduction::Cat) {
      s.chunks = {joined[i]};
    } else {
      s.value = values[i];
    }
  }
  update_count_ = count.to(at::kCPU).item<int64_t>();
  synced_ = std::move(local);
  computed_ = at::Tensor();
}

void Metric::unsync() {
  if (!synced_) fail("unsync() was called on a metric that is not synced");
  for (size_t i = 0; i < states_.size(); ++i) {
    states_[i].value = synced_->values[i];
    states_[i].chunks = synced_->chunks[i];
  }
  update_count_ = synced_->update_count;
  synced_.reset();
  computed_ = at::Tensor();
}

void Metric::to(const c10::Device& device) {
  for (auto& s : states_) {
    s.initial = s.initial.to(device);
    s.value = s.value.to(device);
    for (auto& c : s.chunks) c = c.to(device);
  }
  if (synced_) {
    for (auto& v : synced_->values) v = v.to(device);
    for (auto& chunks : synced_->chunks) {
      for (auto& c : chunks) c = c.to(device);
    }
  }
  if (computed_.defined()) computed_ = computed_.to(device);
  device_ = device;
}

c10::IValue Metric::state_dict() const {
  c10::Dict<std::string, at::Tensor> dict;
  for (size_t i = 0; i < states_.size(); ++i) {
    const auto& s = states_[i];
    const auto value = s.reduction == Reduction::Cat ? cat_state(i) : s.value;
    dict.insert(s.name, value.detach().clone());
  }
  dict.insert(kUpdateCountKey, at::tensor(update_count_, at::TensorOptions().dtype(at::kLong)));
  return dict;
}

void Metric::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) {
    throw CheckpointError(fmt::format("the {} metric state in the checkpoint is a {}, not a dict",
                                      name_, state.tagKind()));
  }
  const auto dict = state.toGenericDict();
  auto tensor_at = [&](const std::string& key) {
    if (!dict.contains(key)) {
      throw CheckpointError(
          fmt::format("the {} metric state in the checkpoint has no \"{}\"", name_, key));
    }
    const auto value = dict.at(key);
    if (!value.isTensor()) {
      throw CheckpointError(
          fmt::format("the {} metric state's \"{}\" in the checkpoint is a {}, not a tensor", name_,
                      key, value.tagKind()));
    }
    return value.toTensor();
  };
  for (const auto& entry : dict) {
    const auto key = entry.key().isString() ? entry.key().toStringRef() : std::string("?");
    bool known = key == kUpdateCountKey;
    for (const auto& s : states_) known = known || s.name == key;
    if (!known) {
      throw CheckpointError(fmt::format(
          "the {} metric state in the checkpoint has \"{}\", which this metric does not have "
          "(was it saved by another metric?)",
          name_, key));
    }
  }
  // Check everything before changing anything, so that a bad state leaves the metric as it was.
  std::vector<at::Tensor> loaded;
  for (const auto& s : states_) {
    const auto t = tensor_at(s.name);
    const bool fits =
        s.reduction == Reduction::Cat
            ? t.dim() == s.initial.dim() && t.sizes().slice(1) == s.initial.sizes().slice(1)
            : t.sizes() == s.initial.sizes();
    if (!fits) {
      throw CheckpointError(fmt::format(
          "the {} metric state's \"{}\" in the checkpoint has shape {}, expected {}{} (was the "
          "metric built with other options, e.g. num_classes?)",
          name_, s.name, shape_text(t.sizes()),
          s.reduction == Reduction::Cat ? "[N, ...] with trailing " : "",
          shape_text(s.reduction == Reduction::Cat ? s.initial.sizes().slice(1)
                                                   : s.initial.sizes())));
    }
    loaded.push_back(t.detach().to(device_, s.initial.scalar_type()).clone());
  }
  const auto count = tensor_at(kUpdateCountKey);
  if (count.numel() != 1 || count.is_floating_point() || count.item<int64_t>() < 0) {
    throw CheckpointError(
        fmt::format("the {} metric state's \"{}\" in the checkpoint is not a non-negative integer",
                    name_, kUpdateCountKey));
  }
  for (size_t i = 0; i < states_.size(); ++i) {
    auto& s = states_[i];
    if (s.reduction == Reduction::Cat) {
      s.chunks.clear();
      if (loaded[i].size(0) > 0) s.chunks.push_back(loaded[i]);
    } else {
      s.value = loaded[i];
    }
  }
  update_count_ = count.item<int64_t>();
  synced_.reset();
  computed_ = at::Tensor();
}

}  // namespace fulgur::metrics
