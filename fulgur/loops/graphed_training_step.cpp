#include "fulgur/loops/graphed_training_step.h"

#include <fmt/format.h>
#include <torch/optim/sgd.h>

#include "fulgur/errors.h"
#include "fulgur/io/error_text.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/module.h"
#include "fulgur/optim/optimizer.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

constexpr const char* kKnob = "CUDAAcceleratorOptions::cuda_graph";

bool same_layout(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  return !a.defined() ||
         (a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && a.device() == b.device());
}

// Keeps log() calls in `logs` for the lifetime of this object.
class RecordingLogs {
 public:
  RecordingLogs(LoggerConnector& logger, std::vector<LoggerConnector::RecordedLog>& logs)
      : logger_(logger) {
    logs.clear();
    logger_.record_logs(&logs);
  }
  ~RecordingLogs() { logger_.record_logs(nullptr); }
  RecordingLogs(const RecordingLogs&) = delete;
  RecordingLogs& operator=(const RecordingLogs&) = delete;

 private:
  LoggerConnector& logger_;
};

}  // namespace

GraphedTrainingStep::GraphedTrainingStep(Trainer& trainer, std::unique_ptr<StepGraph> graph)
    : trainer_(trainer), graph_(std::move(graph)) {
  const Trainer& t = trainer_;
  if (t.world_size() > 1) {
    throw ConfigError(fmt::format(
        "{} trains in one process; with {} processes each step's gradient all-reduce goes "
        "through the host, which a graph cannot replay",
        kKnob, t.world_size()));
  }
  if (!t.module()->automatic_optimization()) {
    throw MisconfigurationError(fmt::format(
        "{} captures the step the Trainer drives; with manual optimization training_step "
        "steps the optimizers itself. Turn cuda_graph off, or use automatic optimization",
        kKnob));
  }
  if (t.accumulate_grad_batches() != 1) {
    throw ConfigError(fmt::format(
        "{} replays a whole optimizer step per batch; accumulate_grad_batches={} steps every {} "
        "batches. Set accumulate_grad_batches=1 or turn cuda_graph off",
        kKnob, t.accumulate_grad_batches(), t.accumulate_grad_batches()));
  }
  if (t.options().gradient_clip_val) {
    throw ConfigError(fmt::format(
        "{} cannot replay gradient clipping: LibTorch computes the clipping factor on the host. "
        "Unset gradient_clip_val or turn cuda_graph off",
        kKnob));
  }
  const std::string precision = t.strategy().precision()->name();
  if (precision == "16-mixed") {
    throw ConfigError(fmt::format(
        "{} cannot replay precision=\"16-mixed\": its loss scaler decides on the host whether "
        "each step is taken. Use \"bf16-mixed\" or \"32-true\", or turn cuda_graph off",
        kKnob));
  }
  auto& optimizer = t.optimizers().front()->optimizer();
  if (dynamic_cast<torch::optim::SGD*>(&optimizer) == nullptr) {
    throw ConfigError(fmt::format(
        "{} replays torch::optim::SGD steps only: other LibTorch optimizers compute part of "
        "each step on the host (Adam its bias correction from the step count), which a replay "
        "would repeat unchanged. Use SGD or turn cuda_graph off",
        kKnob));
  }
}

torch::Tensor GraphedTrainingStep::run(Batch& batch, const EagerStep& eager) {
  if (eager_steps_ < graph_->warmup_steps() && captures_ == 0) {
    // The first batch's shapes are the ones to capture (not, say, a short last batch's).
    if (eager_steps_ == 0) inputs_ = batch;
    torch::Tensor loss;
    graph_->warm_up([&] { loss = eager(batch); });
    ++eager_steps_;
    return loss;
  }
  // The captured optimizer step carries the learning rates it was recorded with.
  read_learning_rates(current_lrs_);
  const bool lrs_settled = current_lrs_ == previous_lrs_;
  previous_lrs_.swap(current_lrs_);  // both keep their capacity: no allocation per step
  if (captured_ && previous_lrs_ != captured_lrs_) captured_ = false;
  if (!captured_ && fits_inputs(batch) && (captures_ == 0 || lrs_settled)) {
    return capture(batch, eager);
  }
  if (!captured_ || !fits_inputs(batch)) {
    ++eager_steps_;
    return eager(batch);
  }
  return replay(batch);
}

torch::Tensor GraphedTrainingStep::capture(Batch& batch, const EagerStep& eager) {
  // Outside the capture: the inputs' memory must outlive it, and this batch is their first.
  inputs_ = {batch.data.clone(), batch.target.defined() ? batch.target.clone() : torch::Tensor()};
  torch::Tensor loss;
  {
    const RecordingLogs recording(trainer_.logger_connector(), logs_);
    try {
      graph_->capture([&] { loss = eager(inputs_); });
    } catch (const c10::Error& e) {
      throw MisconfigurationError(fmt::format(
          "{}: the training step could not be captured as a CUDA graph ({}). A captured step "
          "may not read device values on the host (item(), printing a tensor, a branch on a "
          "tensor's value) nor change shapes from batch to batch; turn cuda_graph off for "
          "this Module",
          kKnob, error_text(e)));
    }
  }
  if (!loss.defined()) {
    throw MisconfigurationError(fmt::format(
        "{}: training_step returned no loss while it was captured; a captured step trains on "
        "every batch",
        kKnob));
  }
  loss_ = loss;
  captured_lrs_ = previous_lrs_;
  captured_ = true;
  ++captures_;
  // The capture recorded this batch's step without running it, and counted it (the optimizer
  // step's progress) as the eager step does; the first replay runs it.
  graph_->replay();
  ++replays_;
  trainer_.logger_connector().take_recorded(logs_);
  return loss_;
}

torch::Tensor GraphedTrainingStep::replay(const Batch& batch) {
  inputs_.data.copy_(batch.data, /*non_blocking=*/true);
  if (inputs_.target.defined()) inputs_.target.copy_(batch.target, /*non_blocking=*/true);
  auto& progress = trainer_.fit_loop().epoch_loop.optim_progress.step;
  progress.increment_ready();
  graph_->replay();
  progress.increment_completed();
  ++replays_;
  trainer_.logger_connector().take_recorded(logs_);
  return loss_;
}

bool GraphedTrainingStep::fits_inputs(const Batch& batch) const {
  return same_layout(batch.data, inputs_.data) && same_layout(batch.target, inputs_.target);
}

void GraphedTrainingStep::read_learning_rates(std::vector<double>& into) const {
  into.clear();
  for (const auto& group : trainer_.optimizers().front()->param_groups()) {
    into.push_back(group.options().get_lr());
  }
}

}  // namespace fulgur
