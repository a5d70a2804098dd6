// BasePredictionWriter: which write each interval calls, with the predictions and the dataset
// indices of each batch's samples (also from a shuffled loader), and the error for a write the
// subclass did not override.
#include "fulgur/callbacks/base_prediction_writer.h"

#include <gtest/gtest.h>

#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

using Indices = std::vector<int64_t>;

// Sample i is the row [i, i, i, i]: its prediction, the row's sum, is 4i.
std::shared_ptr<DataLoader> rows(int64_t n, bool shuffle = false) {
  auto x = torch::arange(n, torch::kFloat).unsqueeze(1).repeat({1, 4});
  return std::make_shared<DataLoader>(
      std::make_shared<TensorDataset>(x, torch::zeros({n, 1})),
      DataLoaderOptions{.batch_size = 2, .shuffle = shuffle, .seed = 7});
}

class SumsRows : public RecordingModule {
 public:
  using RecordingModule::RecordingModule;
  torch::Tensor predict_step(Batch& batch, int64_t) override { return batch.data.sum(1); }
};

class RecordingWriter : public BasePredictionWriter {
 public:
  using BasePredictionWriter::BasePredictionWriter;
  void write_on_batch_end(Trainer&, Module&, const torch::Tensor& prediction,
                          const Indices& batch_indices, Batch&, int64_t batch_idx) override {
    batch_writes.push_back({batch_idx, batch_indices, prediction.clone()});
  }
  void write_on_epoch_end(Trainer&, Module&, const std::vector<torch::Tensor>& predictions,
                          const std::vector<Indices>& batch_indices) override {
    epoch_predictions = predictions;
    epoch_indices = batch_indices;
    ++epoch_writes;
  }
  struct BatchWrite {
    int64_t batch_idx;
    Indices indices;
    torch::Tensor prediction;
  };
  std::vector<BatchWrite> batch_writes;
  std::vector<torch::Tensor> epoch_predictions;
  std::vector<Indices> epoch_indices;
  int epoch_writes = 0;
};

std::vector<torch::Tensor> predict(std::shared_ptr<Callback> writer,
                                   std::shared_ptr<DataLoader> loader,
                                   bool return_predictions = true) {
  Calls calls;
  SumsRows module(calls);
  Trainer trainer(quiet({.callbacks = {std::move(writer)}}));
  return trainer.predict(module, std::move(loader), std::nullopt, return_predictions);
}

TEST(BasePredictionWriter, BatchIntervalWritesEachBatchWithItsSampleIndices) {
  auto writer = std::make_shared<RecordingWriter>(WriteInterval::Batch);
  predict(writer, rows(5));
  ASSERT_EQ(writer->batch_writes.size(), 3u);
  const std::vector<Indices> expected = {{0, 1}, {2, 3}, {4}};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(writer->batch_writes[k].batch_idx, static_cast<int64_t>(k));
    EXPECT_EQ(writer->batch_writes[k].indices, expected[k]);
  }
  EXPECT_TRUE(torch::equal(writer->batch_writes[2].prediction, torch::tensor({16.0f})));
  EXPECT_EQ(writer->epoch_writes, 0);
}

TEST(BasePredictionWriter, EpochIntervalWritesEverythingOnceWithEachBatchsIndices) {
  auto writer = std::make_shared<RecordingWriter>(WriteInterval::Epoch);
  auto loader = rows(7, /*shuffle=*/true);
  const auto returned = predict(writer, loader);
  EXPECT_TRUE(writer->batch_writes.empty());
  ASSERT_EQ(writer->epoch_writes, 1);
  ASSERT_EQ(writer->epoch_predictions.size(), 4u);
  ASSERT_EQ(writer->epoch_indices.size(), 4u);
  // Each prediction belongs to the samples its indices name: sample i predicts 4i.
  std::vector<int64_t> seen;
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(writer->epoch_indices[k], loader->batch_indices(static_cast<int64_t>(k)));
    const auto expected = torch::tensor(writer->epoch_indices[k], torch::kFloat) * 4;
    EXPECT_TRUE(torch::equal(writer->epoch_predictions[k], expected)) << k;
    EXPECT_TRUE(torch::equal(writer->epoch_predictions[k], returned[k]));
    seen.insert(seen.end(), writer->epoch_indices[k].begin(), writer->epoch_indices[k].end());
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (Indices{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_NE(writer->epoch_indices[0], (Indices{0, 1}));  // shuffled
}

TEST(BasePredictionWriter, BatchAndEpochWritesBoth) {
  auto writer = std::make_shared<RecordingWriter>(WriteInterval::BatchAndEpoch);
  predict(writer, rows(4));
  EXPECT_EQ(writer->batch_writes.size(), 2u);
  EXPECT_EQ(writer->epoch_writes, 1);
  EXPECT_EQ(writer->epoch_indices, (std::vector<Indices>{{0, 1}, {2, 3}}));
}

TEST(BasePredictionWriter, WithoutReturnPredictionsOnlyAnEpochWriterGetsThemAll) {
  auto batch_writer = std::make_shared<RecordingWriter>(WriteInterval::Batch);
  EXPECT_TRUE(predict(batch_writer, rows(5), /*return_predictions=*/false).empty());
  EXPECT_EQ(batch_writer->batch_writes.size(), 3u);
  auto epoch_writer = std::make_shared<RecordingWriter>(WriteInterval::Epoch);
  EXPECT_TRUE(predict(epoch_writer, rows(5), /*return_predictions=*/false).empty());
  EXPECT_EQ(epoch_writer->epoch_predictions.size(), 3u);
}

TEST(BasePredictionWriter, AWriteTheIntervalCallsMustBeOverridden) {
  auto writer = std::make_shared<BasePredictionWriter>(WriteInterval::Epoch);
  try {
    predict(writer, rows(2));
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "BasePredictionWriter writes at the epoch's end (WriteInterval::Epoch or "
                 "BatchAndEpoch) but does not override write_on_epoch_end");
  }
}

}  // namespace
}  // namespace fulgur::testing
