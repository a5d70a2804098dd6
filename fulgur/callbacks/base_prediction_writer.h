#pragma once
// BasePredictionWriter: Lightning's base for callbacks that write what predict returns, batch by
// batch (memory stays flat over a large predict set) or all at once at the epoch's end. Subclass
// it and override the write that `interval` calls; the other is never called. Under DDP every
// rank writes its own shard's predictions: name files by trainer.global_rank().
#include <cstdint>
#include <vector>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

enum class WriteInterval { Batch, Epoch, BatchAndEpoch };

class BasePredictionWriter : public Callback {
 public:
  explicit BasePredictionWriter(WriteInterval interval = WriteInterval::Batch)
      : interval_(interval) {}
  std::string name() const override { return "BasePredictionWriter"; }
  WriteInterval interval() const { return interval_; }

  // One batch's prediction; `batch_indices` are its samples' indices in the dataset.
  virtual void write_on_batch_end(Trainer& trainer, Module& module, const torch::Tensor& prediction,
                                  const std::vector<int64_t>& batch_indices, Batch& batch,
                                  int64_t batch_idx);
  // Every batch's prediction, with each batch's sample indices.
  virtual void write_on_epoch_end(Trainer& trainer, Module& module,
                                  const std::vector<torch::Tensor>& predictions,
                                  const std::vector<std::vector<int64_t>>& batch_indices);

  void on_predict_epoch_start(Trainer& trainer, Module& module) override;
  void on_predict_batch_end(Trainer& trainer, Module& module, const torch::Tensor& output,
                            Batch& batch, int64_t batch_idx) override;
  void on_predict_epoch_end(Trainer& trainer, Module& module) override;

 private:
  WriteInterval interval_;
  std::vector<std::vector<int64_t>> epoch_batch_indices_;
};

}  // namespace fulgur
