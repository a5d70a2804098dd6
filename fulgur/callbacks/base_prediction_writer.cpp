#include "fulgur/callbacks/base_prediction_writer.h"

#include "fulgur/errors.h"
#include "fulgur/loops/prediction_loop.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

bool on_batch(WriteInterval interval) { return interval != WriteInterval::Epoch; }
bool on_epoch(WriteInterval interval) { return interval != WriteInterval::Batch; }

}  // namespace

void BasePredictionWriter::write_on_batch_end(Trainer&, Module&, const torch::Tensor&,
                                              const std::vector<int64_t>&, Batch&, int64_t) {
  throw MisconfigurationError(
      name() + " writes at each batch's end (WriteInterval::Batch or BatchAndEpoch) but does not "
               "override write_on_batch_end");
}

void BasePredictionWriter::write_on_epoch_end(Trainer&, Module&, const std::vector<torch::Tensor>&,
                                              const std::vector<std::vector<int64_t>>&) {
  throw MisconfigurationError(
      name() + " writes at the epoch's end (WriteInterval::Epoch or BatchAndEpoch) but does not "
               "override write_on_epoch_end");
}

void BasePredictionWriter::on_predict_epoch_start(Trainer&, Module&) {
  epoch_batch_indices_.clear();
}

void BasePredictionWriter::on_predict_batch_end(Trainer& trainer, Module& module,
                                                const torch::Tensor& output, Batch& batch,
                                                int64_t batch_idx) {
  auto indices = trainer.predict_loop().current_batch_indices();
  if (on_batch(interval_)) write_on_batch_end(trainer, module, output, indices, batch, batch_idx);
  if (on_epoch(interval_)) epoch_batch_indices_.push_back(std::move(indices));
}

void BasePredictionWriter::on_predict_epoch_end(Trainer& trainer, Module& module) {
  if (!on_epoch(interval_)) return;
  write_on_epoch_end(trainer, module, trainer.predict_loop().predictions(), epoch_batch_indices_);
}

}  // namespace fulgur
