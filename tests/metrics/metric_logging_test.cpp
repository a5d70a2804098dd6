// Metric objects in the Trainer: forward's batch value, and Module::log of a metric as
// Lightning logs torchmetrics (step value = this batch, epoch value = compute() over the
// epoch, reset between epochs and after the sanity check).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/classwise_wrapper.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/max_metric.h"
#include "fulgur/metrics/metric_collection.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/min_max_metric.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::metrics {
namespace {

using ::testing::HasSubstr;

ClassificationOptions three_classes() { return {.task = "multiclass", .num_classes = 3}; }

TEST(MetricForward, ReturnsTheBatchValueAndKeepsTheWhole) {
  Accuracy accuracy(three_classes());
  const auto a = accuracy.forward(torch::tensor({0, 1, 2, 0}), torch::tensor({0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(a.item<double>(), 0.5);
  const auto b = accuracy.forward(torch::tensor({2, 2}), torch::tensor({2, 2}));
  EXPECT_DOUBLE_EQ(b.item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(accuracy.forward_value().item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(accuracy.compute().item<double>(), 4.0 / 6.0);
  EXPECT_EQ(accuracy.update_count(), 2);
  accuracy.update(torch::tensor({0}), torch::tensor({1}));
  EXPECT_FALSE(accuracy.forward_value().defined());  // update() has no batch value

  MaxMetric max;  // a Max state
  EXPECT_DOUBLE_EQ(max.forward(torch::tensor({3.0})).item<double>(), 3.0);
  EXPECT_DOUBLE_EQ(max.forward(torch::tensor({1.0})).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(max.compute().item<double>(), 3.0);

  AUROC auroc({.task = "binary"});  // Cat states
  auroc.forward(torch::tensor({0.9, 0.1}), torch::tensor({1, 0}));
  EXPECT_DOUBLE_EQ(auroc.forward(torch::tensor({0.2, 0.8}), torch::tensor({1, 0})).item<double>(),
                   0.0);
  EXPECT_DOUBLE_EQ(auroc.compute().item<double>(), 0.75);  // 3 of 4 (positive, negative) pairs
}

TEST(MetricForward, ABadBatchLeavesTheStateAsItWas) {
  Accuracy accuracy(three_classes());
  accuracy.forward(torch::tensor({0, 1}), torch::tensor({0, 0}));
  EXPECT_THROW(accuracy.forward(torch::tensor({0, 7}), torch::tensor({0, 0})), MetricError);
  EXPECT_EQ(accuracy.update_count(), 1);
  EXPECT_DOUBLE_EQ(accuracy.compute().item<double>(), 0.5);
}

// Classifies 4 features into 3 classes; logs an Accuracy per step and per epoch in training
// and one per epoch in validation.
class Classifier : public Module {
 public:
  Classifier() : Module("Classifier") {
    torch::manual_seed(5);
    layer_ = register_module("layer", torch::nn::Linear(4, 3));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    auto logits = layer_->forward(batch.data);
    train_acc->forward(logits, batch.target);
    batch_values.push_back(train_acc->forward_value().item<double>());
    log("train_acc", train_acc, {.on_step = true, .on_epoch = true});
    return torch::cross_entropy_loss(logits, batch.target);
  }
  void validation_step(Batch& batch, int64_t) override {
    auto logits = layer_->forward(batch.data);
    val_acc->update(logits, batch.target);
    val_predictions.push_back(logits.argmax(1));
    val_targets.push_back(batch.target);
    log("val_acc", val_acc);
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }
  std::shared_ptr<Accuracy> train_acc = std::make_shared<Accuracy>(three_classes());
  std::shared_ptr<Accuracy> val_acc = std::make_shared<Accuracy>(three_classes());
  std::vector<double> batch_values;
  std::vector<torch::Tensor> val_predictions, val_targets;

 protected:
  torch::Tensor layer(const torch::Tensor& x) { return layer_->forward(x); }

 private:
  torch::nn::Linear layer_{nullptr};
};

std::shared_ptr<DataLoader> loader(int64_t n, uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  auto x = at::randn({n, 4}, generator);
  auto y = (x.narrow(1, 0, 3)).argmax(1);
  return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, y),
                                      DataLoaderOptions{.batch_size = 8});
}

TEST(MetricLogging, StepValuesAreBatchValuesEpochValuesAreComputeAndEachEpochStartsAfresh) {
  Classifier module;
  auto memory = std::make_shared<testing::MemoryLogger>();
  Trainer trainer({.logger = memory,
                   .max_epochs = 2,
                   .num_sanity_val_steps = 2,  // its updates must not count
                   .log_every_n_steps = 1,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module, loader(32, 1), loader(24, 2));

  // Step values: each batch's accuracy, as forward gave it.
  std::vector<double> logged_steps;
  std::vector<double> epoch_values;
  for (const auto& [step, metrics] : memory->rows) {
    if (metrics.contains("train_acc_step")) logged_steps.push_back(metrics.at("train_acc_step"));
    if (metrics.contains("train_acc_epoch")) epoch_values.push_back(metrics.at("train_acc_epoch"));
  }
  ASSERT_EQ(logged_steps.size(), 8u);  // 4 batches × 2 epochs
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(logged_steps[i], module.batch_values[i], 1e-6);
  // Epoch values: compute() over that epoch's 4 batches of 8 (equal sizes: the mean of them).
  ASSERT_EQ(epoch_values.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    double sum = 0;
    for (size_t i = 0; i < 4; ++i) sum += module.batch_values[4 * e + i];
    EXPECT_NEAR(epoch_values[e], sum / 4, 1e-6) << "epoch " << e;
  }
  // Validation: the last run's accuracy over all 24 samples; the sanity check's 2 batches
  // and the first epoch's run were reset away.
  const auto preds = torch::cat(
      std::vector<torch::Tensor>(module.val_predictions.end() - 3, module.val_predictions.end()));
  const auto targets = torch::cat(
      std::vector<torch::Tensor>(module.val_targets.end() - 3, module.val_targets.end()));
  ASSERT_EQ(module.val_predictions.size(), 2u + 3u + 3u);
  const double expected = preds.eq(targets).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(trainer.callback_metrics().at("val_acc"), expected, 1e-6);
  EXPECT_EQ(module.val_acc->update_count(), 3);
}

// Logs MetricCollections with log_dict, as Lightning's self.log_dict(collection): forward in
// training (step and epoch values), update in validation (epoch values).
class CollectionClassifier : public Classifier {
 public:
  torch::Tensor training_step(Batch& batch, int64_t) override {
    auto logits = layer(batch.data);
    const auto values = train->forward(logits, batch.target);
    batch_f1.push_back(values.at("train_f1").item<double>());
    log_dict(train, {.on_step = true, .on_epoch = true});
    return torch::cross_entropy_loss(logits, batch.target);
  }
  void validation_step(Batch& batch, int64_t) override {
    auto logits = layer(batch.data);
    val->update(logits, batch.target);
    val_predictions.push_back(logits.argmax(1));
    val_targets.push_back(batch.target);
    log_dict(val);
  }
  static std::shared_ptr<MetricCollection> collection(const std::string& prefix) {
    auto macro = three_classes();
    macro.average = "macro";
    return std::make_shared<MetricCollection>(
        std::vector<MetricCollection::Entry>{{"acc", std::make_shared<Accuracy>(three_classes())},
                                             {"f1", std::make_shared<F1Score>(macro)}},
        MetricCollectionOptions{.prefix = prefix});
  }
  std::shared_ptr<MetricCollection> train = collection("train_"), val = collection("val_");
  std::vector<double> batch_f1;
};

TEST(MetricLogging, LogDictOfAMetricCollectionLogsEachMetricObject) {
  CollectionClassifier module;
  auto memory = std::make_shared<testing::MemoryLogger>();
  Trainer trainer({.logger = memory,
                   .max_epochs = 2,
                   .num_sanity_val_steps = 1,
                   .log_every_n_steps = 1,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module, loader(32, 1), loader(24, 2));
  std::vector<double> f1_steps;
  for (const auto& [step, metrics] : memory->rows) {
    if (metrics.contains("train_f1_step")) f1_steps.push_back(metrics.at("train_f1_step"));
  }
  ASSERT_EQ(f1_steps.size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(f1_steps[i], module.batch_f1[i], 1e-6);
  // The validation epoch values: each metric's compute() over the last run's 24 samples.
  const auto preds = torch::cat(
      std::vector<torch::Tensor>(module.val_predictions.end() - 3, module.val_predictions.end()));
  const auto targets = torch::cat(
      std::vector<torch::Tensor>(module.val_targets.end() - 3, module.val_targets.end()));
  auto macro = three_classes();
  macro.average = "macro";
  F1Score f1(macro);
  f1.update(preds, targets);
  const auto& logged = trainer.callback_metrics();
  EXPECT_NEAR(logged.at("val_f1"), f1.compute().item<double>(), 1e-6);
  EXPECT_NEAR(logged.at("val_acc"), preds.eq(targets).to(torch::kDouble).mean().item<double>(),
              1e-6);
  EXPECT_TRUE(logged.contains("train_acc_epoch"));
  EXPECT_EQ(module.val->at("acc").update_count(), 3);  // reset after the sanity check and epoch 1
}

// The wrappers whose compute() is a dict, logged at the validation epoch's end with log_dict
// as in Lightning: the per-class accuracy of each run, and the best run's accuracy so far (the
// wrapped metric reset each epoch, the bounds kept).
class WrapperClassifier : public Classifier {
 public:
  void validation_step(Batch& batch, int64_t) override {
    auto logits = layer(batch.data);
    per_class.update(logits, batch.target);
    best.update(logits, batch.target);
    val_predictions.push_back(logits.argmax(1));
    val_targets.push_back(batch.target);
  }
  void on_validation_epoch_end() override {
    log_dict(per_class.compute());
    per_class.reset();
    std::map<std::string, torch::Tensor> values;
    for (const auto& [key, value] : best.compute()) values["val_acc_" + key] = value;
    run_values.push_back(values.at("val_acc_raw").item<double>());
    log_dict(values);
    best.metric().reset();
  }
  ClasswiseWrapper per_class{std::make_shared<Accuracy>(ClassificationOptions{
                                 .task = "multiclass", .num_classes = 3, .average = "none"}),
                             {.labels = {"a", "b", "c"}, .prefix = "val_acc_"}};
  MinMaxMetric best{std::make_shared<Accuracy>(three_classes())};
  std::vector<double> run_values;
};

TEST(MetricLogging, WrappersLogTheirDictsThroughLogDict) {
  WrapperClassifier module;
  auto memory = std::make_shared<testing::MemoryLogger>();
  Trainer trainer({.logger = memory,
                   .max_epochs = 3,
                   .num_sanity_val_steps = 0,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module, loader(32, 1), loader(24, 2));
  ASSERT_EQ(module.run_values.size(), 3u);
  const auto& logged = trainer.callback_metrics();
  EXPECT_DOUBLE_EQ(logged.at("val_acc_raw"), module.run_values.back());
  EXPECT_DOUBLE_EQ(logged.at("val_acc_max"),
                   *std::max_element(module.run_values.begin(), module.run_values.end()));
  EXPECT_DOUBLE_EQ(logged.at("val_acc_min"),
                   *std::min_element(module.run_values.begin(), module.run_values.end()));
  EXPECT_LT(logged.at("val_acc_min"), logged.at("val_acc_max"));  // the runs differ
  // The last run's per-class accuracy (each class' recall) over its 24 samples.
  const auto preds = torch::cat(
      std::vector<torch::Tensor>(module.val_predictions.end() - 3, module.val_predictions.end()));
  const auto targets = torch::cat(
      std::vector<torch::Tensor>(module.val_targets.end() - 3, module.val_targets.end()));
  for (int64_t c = 0; c < 3; ++c) {
    const auto of_class = targets.eq(c);
    const double recall = preds.eq(targets).logical_and(of_class).sum().item<double>() /
                          of_class.sum().item<double>();
    EXPECT_NEAR(logged.at(std::string("val_acc_") + "abc"[c]), recall, 1e-6) << c;
  }
}

class UpdateOnly : public Classifier {
 public:
  torch::Tensor training_step(Batch& batch, int64_t) override {
    train_acc->update(torch::tensor({0, 1}), torch::tensor({0, 1}));  // no batch value
    log("acc", train_acc);  // on_step by default in training_step
    return batch.data.sum();
  }
};

TEST(MetricLogging, MisuseIsAClearError) {
  UpdateOnly module;
  Trainer trainer(testing::quiet({.max_epochs = 1}));
  EXPECT_THAT(
      [&] { trainer.fit(module, loader(8, 1)); },
      ::testing::ThrowsMessage<MisconfigurationError>(HasSubstr(
          "log(\"acc\") of metric Accuracy with on_step=true needs its value on this batch")));

  class LogsAMatrix : public Classifier {
   public:
    void validation_step(Batch& batch, int64_t) override {
      matrix->update(torch::tensor({0}), torch::tensor({0}));
      log("cm", matrix);
      (void)batch;
    }
    std::shared_ptr<ConfusionMatrix> matrix = std::make_shared<ConfusionMatrix>(
        ConfusionMatrixOptions{.task = "multiclass", .num_classes = 3});
  } matrix_module;
  Trainer validator(testing::quiet({}));
  EXPECT_THAT([&] { validator.validate(matrix_module, loader(8, 1)); },
              ::testing::ThrowsMessage<MisconfigurationError>(HasSubstr("is not a single number")));
}

}  // namespace
}  // namespace fulgur::metrics
