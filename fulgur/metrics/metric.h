#pragma once
// Metric (torchmetrics' Metric): a value accumulated over many batches. Subclasses register
// their state tensors with the reduction that merges them across processes (sum, max, min,
// or cat for "keep every sample"); update() folds a batch into the states on their device
// without reading anything back to the host (unless validate_args asks for value checks);
// compute() turns the states into the value.
//
// Across processes, sync(strategy) replaces the local states by the reduction of every
// rank's states (sum the counts, then compute: never the mean of per-rank results; cat
// states are gathered even when ranks hold different numbers of samples), and unsync()
// brings the local states back. compute(strategy) does the three in a row. sync is a
// collective: every rank must call it, also a rank that saw no batch.
//
// compute() before any update() (on any rank, once synced) raises MetricError: a metric of
// nothing has no value, and a silent 0 would look like a real score. compute() returns a
// float64 tensor: 0-dim for scalar metrics (is_scalar()), else the shape the metric
// documents. The value is cached until the next update, reset, sync or load.
//
// state_dict() holds every state (cat states concatenated) and "_update_count";
// load_state_dict() checks names and shapes and raises CheckpointError naming the metric.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fulgur {
class Strategy;
}  // namespace fulgur

namespace fulgur::metrics {

// How a state merges across processes.
enum class Reduction { Sum, Max, Min, Cat };

class Metric {
 public:
  explicit Metric(std::string name);
  virtual ~Metric() = default;
  Metric(const Metric&) = delete;
  Metric& operator=(const Metric&) = delete;

  // The class name as torchmetrics spells it ("Accuracy"), used in messages.
  const std::string& name() const { return name_; }

  // One batch. Classification and regression metrics take (preds, target); aggregation
  // metrics take (value, weight) with weight optional. The states follow the inputs: when
  // these sit on another device, the states move there first (Lightning moves metrics with
  // their module; fulgur's metrics live outside it).
  void update(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  // torchmetrics' forward: update() with this batch, and return the metric on this batch
  // alone (what Module::log reports per step), kept as forward_value() until the next
  // update, forward or reset.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target = at::Tensor());
  const at::Tensor& forward_value() const { return forward_value_; }
  // The value of everything seen since the last reset (on every rank, once synced).
  at::Tensor compute();
  // sync, compute, unsync: the value over every rank's samples.
  at::Tensor compute(Strategy& strategy);
  // Back to the state of a fresh metric (on the same device).
  void reset();

  // Replace the states by their reduction over all ranks (a collective). Raises MetricError
  // when already synced.
  void sync(Strategy& strategy);
  // Restore the states from before sync(). Raises MetricError when not synced.
  void unsync();
  bool is_synced() const { return synced_.has_value(); }

  // update() calls since the last reset; after sync(), summed over the ranks.
  int64_t update_count() const { return update_count_; }

  // Moves every state (and each state's default) to `device`.
  void to(const c10::Device& device);
  c10::Device device() const { return device_; }

  // True when compute() returns a 0-dim tensor (what Module::log can take as a number).
  virtual bool is_scalar() const { return true; }
  // For monitors: whether a larger value is better (nullopt when it has no direction).
  virtual std::optional<bool> higher_is_better() const { return std::nullopt; }

  // A dict of tensors: each state by name, and "_update_count".
  c10::IValue state_dict() const;
  void load_state_dict(const c10::IValue& state);

  // torchmetrics' merge_state: folds `other`'s states (the same metric, built with the same
  // options) into this one's by each state's reduction, and adds its update count, as if this
  // metric had seen other's batches too. MetricError for another kind of metric or one whose
  // update needs the accumulated states (full_state_update), and while either is synced.
  void merge_state(const Metric& other);
  // The same with state values given in registration order (as state_values() returns them).
  void merge_state(const std::vector<at::Tensor>& values, int64_t update_count);

  // What wrappers need to keep copies of a metric's states (Running): each state's name,
  // reduction and value after reset, in registration order; and the current values (a cat
  // state's chunks joined).
  struct StateInfo {
    std::string name;
    Reduction reduction;
    at::Tensor initial;
  };
  std::vector<StateInfo> state_info() const;
  std::vector<at::Tensor> state_values() const;

  // torchmetrics' full_state_update: true when update_state() must see the accumulated states
  // (a running window overwrites its oldest slot), so forward() cannot merge a batch's fresh
  // states into them by their reductions. forward() then updates the accumulated states, and
  // computes the batch alone in fresh states that it drops after.
  virtual bool full_state_update() const { return false; }

 protected:
  using StateId = size_t;
  // Registers a state; `initial` is its value after reset (for Cat: an empty tensor whose
  // trailing dimensions and dtype every appended chunk must share).
  StateId add_state(const std::string& name, const at::Tensor& initial, Reduction reduction);
  // The current value of a Sum/Max/Min state, to update in place or reassign.
  at::Tensor& state(StateId id);
  // Cat states: append a chunk (converted to the state's dtype), or read all chunks joined.
  void append(StateId id, const at::Tensor& chunk);
  at::Tensor cat_state(StateId id) const;
  // Any state's current value (a cat state's chunks joined), and its replacement (a cat state
  // then holds `value` as its one chunk).
  at::Tensor state_value(StateId id) const;
  void set_state(StateId id, const at::Tensor& value);

  // The subclass' part of update(): inputs already on the states' device.
  virtual void update_state(const at::Tensor& input, const at::Tensor& target) = 0;
  virtual at::Tensor compute_value() = 0;
  // "Accuracy: <message>" as a MetricError.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  struct State {
    std::string name;
    Reduction reduction;
    at::Tensor initial;
    at::Tensor value;                // Sum/Max/Min
    std::vector<at::Tensor> chunks;  // Cat
  };
  struct Snapshot {
    std::vector<at::Tensor> values;
    std::vector<std::vector<at::Tensor>> chunks;
    int64_t update_count;
  };
  at::Tensor gather_cat(Strategy& strategy, const State& state) const;
  // Folds `value` (a Sum/Max/Min value, or chunks to append for Cat) into `state`.
  static void reduce_into(State& state, const at::Tensor& value, std::vector<at::Tensor> chunks);

  std::string name_;
  std::vector<State> states_;
  int64_t update_count_ = 0;
  c10::Device device_ = c10::Device(c10::kCPU);
  std::optional<Snapshot> synced_;  // the local states while synced
  at::Tensor computed_;             // cached compute() value; undefined when stale
  at::Tensor forward_value_;        // the last forward()'s batch value
};

}  // namespace fulgur::metrics
