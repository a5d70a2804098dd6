#pragma once
// GraphedTrainingStep: the training step recorded once as a graph and replayed
// (CUDAAcceleratorOptions::cuda_graph). The first warmup_steps() batches train eagerly; the
// next one is captured: its training_step, zero_grad, backward and optimizer step, hooks and
// all, are recorded into the graph while the host runs them once. Each later batch of the same
// shapes is copied into the captured inputs and the graph replayed: the same kernels on the
// same memory, without the host launching each again.
//
// What the step's host code did at the capture stays done once: its hooks run then only, its
// log() calls are taken again after each replay with the values the replay wrote, and the loss
// returned is the graph's output tensor, which the next replay overwrites (clone it to keep
// it). The shapes captured are the first batch's; a batch of other shapes (a smaller last
// batch) trains eagerly. A learning rate changed
// since the capture (a scheduler) is taken eagerly, and captured afresh once it holds for a
// second step: a scheduler that moves the rate every step keeps the step eager.
#include <functional>
#include <memory>
#include <vector>

#include "fulgur/accelerators/step_graph.h"
#include "fulgur/connectors/logger_connector.h"
#include "fulgur/data/batch.h"

namespace fulgur {

class Trainer;

class GraphedTrainingStep {
 public:
  // Raises ConfigError or MisconfigurationError for a fit whose step cannot be replayed: more
  // than one process, manual optimization, gradient accumulation or clipping, a loss scaler
  // (16-mixed), an optimizer other than SGD.
  GraphedTrainingStep(Trainer& trainer, std::unique_ptr<StepGraph> graph);

  // The eager step (AutomaticOptimization::run for `batch`).
  using EagerStep = std::function<torch::Tensor(Batch&)>;
  // Trains on `batch`; returns the step's loss.
  torch::Tensor run(Batch& batch, const EagerStep& eager);

  int64_t captures() const { return captures_; }
  int64_t replays() const { return replays_; }
  int64_t eager_steps() const { return eager_steps_; }

 private:
  torch::Tensor capture(Batch& batch, const EagerStep& eager);
  torch::Tensor replay(const Batch& batch);
  bool fits_inputs(const Batch& batch) const;
  void read_learning_rates(std::vector<double>& into) const;

  Trainer& trainer_;
  std::unique_ptr<StepGraph> graph_;
  bool captured_ = false;
  // The captured step's inputs: each replayed batch is copied here. Before the capture, the
  // first batch: its shapes are the ones captured.
  Batch inputs_;
  torch::Tensor loss_;  // the captured step's loss, rewritten by each replay
  std::vector<LoggerConnector::RecordedLog> logs_;
  std::vector<double> captured_lrs_;
  std::vector<double> previous_lrs_;  // at the step before this one
  std::vector<double> current_lrs_;   // this step's, read into a reused buffer
  int64_t captures_ = 0;
  int64_t replays_ = 0;
  int64_t eager_steps_ = 0;
};

}  // namespace fulgur
