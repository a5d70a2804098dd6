#pragma once
// PredictionLoop: predict_step over every batch (under inference mode), with the predict hooks;
// collects what each step returns.
#include <memory>
#include <vector>

#include "fulgur/loops/progress.h"
#include "fulgur/trainer.h"

namespace fulgur {

class DataLoader;

class PredictionLoop {
 public:
  explicit PredictionLoop(Trainer& trainer) : trainer_(trainer) {}
  void set_dataloader(std::shared_ptr<DataLoader> loader) { loader_ = std::move(loader); }
  const std::shared_ptr<DataLoader>& dataloader() const { return loader_; }
  // Keeps (and returns) what each predict_step returned when `keep_predictions`.
  std::vector<torch::Tensor> run(int64_t max_batches, bool keep_predictions = true);
  // What predict_step returned for each batch so far (the run's result, as Lightning's
  // predict_loop.predictions).
  const std::vector<torch::Tensor>& predictions() const { return predictions_; }
  // The dataset indices of the samples in the batch being predicted (this rank's, under a
  // multi-process strategy).
  std::vector<int64_t> current_batch_indices() const;
  BatchProgress batch_progress;

 private:
  Trainer& trainer_;
  std::shared_ptr<DataLoader> loader_;
  std::vector<torch::Tensor> predictions_;
};

}  // namespace fulgur
