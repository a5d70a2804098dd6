// The training step as a graph (CUDAAcceleratorOptions::cuda_graph), driven through a stand-in
// graph on the CPU: eager warm-up, one capture (the step's host code and hooks run once), then
// replays that copy each batch into the captured inputs, count the optimizer step and take the
// recorded log() calls again with the values the replay wrote. A batch of other shapes trains
// eagerly; a changed learning rate is taken eagerly, then captured afresh; what a graph cannot
// replay is refused with the reason. tests/cuda runs the same with real CUDA graphs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/accelerators/cpu_accelerator.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/module.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Stands in for a CUDA graph: capture runs the step once (its host code, as a real capture
// does; here its arithmetic too), and each replay redoes the arithmetic the module hands it in
// `kernels` at the capture (here: the logged sum of the captured input).
class StandInGraph : public StepGraph {
 public:
  StandInGraph(std::vector<std::string>& events, int64_t warmup, bool fail_capture)
      : events_(events), warmup_(warmup), fail_capture_(fail_capture) {}
  int64_t warmup_steps() const override { return warmup_; }
  void warm_up(const std::function<void()>& step) override {
    events_.push_back("warm_up");
    step();
  }
  void capture(const std::function<void()>& step) override {
    events_.push_back("capture");
    TORCH_CHECK(!fail_capture_, "operation not permitted when stream is capturing");
    step();
  }
  void replay() override {
    events_.push_back("replay");
    if (kernels) kernels();
  }
  std::function<void()> kernels;

 private:
  std::vector<std::string>& events_;
  int64_t warmup_;
  bool fail_capture_;
};

class GraphingAccelerator : public CPUAccelerator {
 public:
  GraphingAccelerator(int64_t warmup, bool fail_capture = false)
      : warmup_(warmup), fail_capture_(fail_capture) {}
  std::unique_ptr<StepGraph> make_step_graph(const c10::Device&) override {
    auto graph = std::make_unique<StandInGraph>(events, warmup_, fail_capture_);
    last = graph.get();
    return graph;
  }
  std::vector<std::string> events;
  StandInGraph* last = nullptr;

 private:
  int64_t warmup_;
  bool fail_capture_;
};

// Logs the sum of each batch it trains on; tells the stand-in graph how to redo that sum.
class SummingModule : public Module {
 public:
  explicit SummingModule(GraphingAccelerator& accelerator)
      : Module("SummingModule"), accelerator_(accelerator) {
    w = register_parameter("w", torch::ones({1}));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    ++steps_run;
    if (use_metric) {
      mse->forward(batch.data.view(-1), batch.target.view(-1));
      log("mse", mse, {.on_step = true});
    }
    auto seen = batch.data.sum();
    log("seen", seen, {.on_step = false, .on_epoch = true});
    if (accelerator_.last != nullptr) {
      accelerator_.last->kernels = [input = batch.data, seen]() mutable {
        seen.copy_(input.sum());
      };
    }
    return (w * batch.data).mean();
  }
  void on_before_backward(const torch::Tensor&) override { ++before_backward; }
  OptimizerConfig configure_optimizers() override {
    auto sgd = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    if (!step_lr_every_epoch) return sgd;
    return OptimizerConfig({sgd}, {{.scheduler = std::make_shared<StepLR>(*sgd, 1, 0.5)}});
  }

  torch::Tensor w;
  int steps_run = 0;
  int before_backward = 0;
  bool step_lr_every_epoch = false;
  bool use_metric = false;
  std::shared_ptr<metrics::MeanSquaredError> mse = std::make_shared<metrics::MeanSquaredError>();

 private:
  GraphingAccelerator& accelerator_;
};

std::shared_ptr<DataLoader> numbers(int64_t samples, int64_t batch_size) {
  auto x = torch::arange(samples, torch::kFloat32).reshape({samples, 1});
  return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, x),
                                      DataLoaderOptions{.batch_size = batch_size});
}

TrainerOptions graphed(std::shared_ptr<GraphingAccelerator> accelerator, int64_t epochs = 1) {
  return {.accelerator = std::move(accelerator),
          .logger = false,
          .max_epochs = epochs,
          .enable_checkpointing = false,
          .enable_progress_bar = false,
          .enable_model_summary = false};
}

TEST(GraphedTrainingStep, WarmsUpCapturesOnceThenReplaysEachBatch) {
  auto accelerator = std::make_shared<GraphingAccelerator>(/*warmup=*/2);
  SummingModule module(*accelerator);
  Trainer trainer(graphed(accelerator));
  trainer.fit(module, numbers(12, 2));  // six batches of two

  EXPECT_THAT(accelerator->events,
              ElementsAre("warm_up", "warm_up", "capture", "replay", "replay", "replay", "replay"));
  EXPECT_EQ(module.steps_run, 3) << "the step's host code runs at warm-up and capture only";
  EXPECT_EQ(module.before_backward, 3) << "so do its hooks";
  EXPECT_EQ(trainer.global_step(), 6) << "every replay is an optimizer step";
  // Batch sums 1, 5, 9, 13, 17, 21: each replay saw its own batch, and its value was logged.
  EXPECT_DOUBLE_EQ(trainer.callback_metrics().at("seen"), 11.0);
}

TEST(GraphedTrainingStep, ABatchOfOtherShapesTrainsEagerly) {
  auto accelerator = std::make_shared<GraphingAccelerator>(/*warmup=*/1);
  SummingModule module(*accelerator);
  Trainer trainer(graphed(accelerator));
  trainer.fit(module, numbers(7, 2));  // three batches of two, then one of one

  EXPECT_THAT(accelerator->events, ElementsAre("warm_up", "capture", "replay", "replay"));
  EXPECT_EQ(module.steps_run, 3) << "warm-up, capture, and the last batch eagerly";
  EXPECT_EQ(trainer.global_step(), 4);
  // Sums 1, 5, 9 and 6, weighted by batch size: (2 + 10 + 18 + 6) / 7.
  EXPECT_NEAR(trainer.callback_metrics().at("seen"), 36.0 / 7, 1e-6);
}

TEST(GraphedTrainingStep, TheCaptureTakesTheFirstBatchsShapesNotAShortLastBatchs) {
  auto accelerator = std::make_shared<GraphingAccelerator>(/*warmup=*/3);
  SummingModule module(*accelerator);
  Trainer trainer(graphed(accelerator, /*epochs=*/2));
  trainer.fit(module, numbers(7, 2));  // three batches of two, then one of one, twice

  EXPECT_THAT(accelerator->events,
              ElementsAre("warm_up", "warm_up", "warm_up",            // epoch 0
                          "capture", "replay", "replay", "replay"));  // epoch 1
  EXPECT_EQ(module.steps_run, 6) << "3 warm-up, 2 short batches eagerly, 1 capture";
  EXPECT_EQ(trainer.global_step(), 8);
}

TEST(GraphedTrainingStep, AChangedLearningRateIsTakenEagerlyThenCapturedAfresh) {
  auto accelerator = std::make_shared<GraphingAccelerator>(/*warmup=*/1);
  SummingModule module(*accelerator);
  module.step_lr_every_epoch = true;
  Trainer trainer(graphed(accelerator, /*epochs=*/2));
  trainer.fit(module, numbers(8, 2));  // four batches an epoch

  EXPECT_THAT(accelerator->events,
              ElementsAre("warm_up", "capture", "replay", "replay", "replay",  // epoch 0
                          "capture", "replay", "replay", "replay"));           // epoch 1
  EXPECT_EQ(module.steps_run, 4) << "warm-up, capture, the first step at the new rate, capture";
  EXPECT_EQ(trainer.global_step(), 8);
}

TEST(GraphedTrainingStep, WithoutAGraphEveryStepRunsItsHostCode) {
  auto accelerator = std::make_shared<GraphingAccelerator>(1);
  SummingModule module(*accelerator);
  Trainer trainer({.accelerator = "cpu",
                   .logger = false,
                   .max_epochs = 1,
                   .enable_checkpointing = false,
                   .enable_progress_bar = false,
                   .enable_model_summary = false});
  trainer.fit(module, numbers(12, 2));
  EXPECT_EQ(module.steps_run, 6);
  EXPECT_TRUE(accelerator->events.empty());
}

class AdamModule : public SummingModule {
 public:
  using SummingModule::SummingModule;
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::Adam>(parameters(), 0.1);
  }
};

class ManualModule : public SummingModule {
 public:
  explicit ManualModule(GraphingAccelerator& a) : SummingModule(a) {
    set_automatic_optimization(false);
  }
};

template <typename Error, typename M = SummingModule>
std::string refusal(TrainerOptions options, std::shared_ptr<GraphingAccelerator> accelerator) {
  M module(*accelerator);
  Trainer trainer(std::move(options));
  try {
    trainer.fit(module, numbers(8, 2));
  } catch (const Error& e) {
    return e.what();
  }
  return "fit succeeded";
}

TEST(GraphedTrainingStep, RefusesWhatAGraphCannotReplay) {
  auto accelerator = std::make_shared<GraphingAccelerator>(1);
  EXPECT_THAT((refusal<ConfigError, AdamModule>(graphed(accelerator), accelerator)),
              HasSubstr("replays torch::optim::SGD steps only"));
  EXPECT_THAT((refusal<MisconfigurationError, ManualModule>(graphed(accelerator), accelerator)),
              HasSubstr("with manual optimization"));

  auto options = graphed(accelerator);
  options.accumulate_grad_batches = 2;
  EXPECT_THAT(refusal<ConfigError>(options, accelerator),
              HasSubstr("accumulate_grad_batches=2 steps every 2 batches"));
  options = graphed(accelerator);
  options.gradient_clip_val = 1.0;
  EXPECT_THAT(refusal<ConfigError>(options, accelerator),
              HasSubstr("cannot replay gradient clipping"));
}

TEST(GraphedTrainingStep, AStepThatCannotBeCapturedIsRefusedWithTheReason) {
  auto failing = std::make_shared<GraphingAccelerator>(1, /*fail_capture=*/true);
  EXPECT_THAT(
      refusal<MisconfigurationError>(graphed(failing), failing),
      AllOf(HasSubstr("could not be captured as a CUDA graph"),
            HasSubstr("operation not permitted when stream is capturing"), HasSubstr("item()")));

  auto accelerator = std::make_shared<GraphingAccelerator>(1);
  SummingModule module(*accelerator);
  module.use_metric = true;
  Trainer trainer(graphed(accelerator));
  try {
    trainer.fit(module, numbers(8, 2));
    ADD_FAILURE() << "a metric logged in a captured step must be refused";
  } catch (const MisconfigurationError& e) {
    EXPECT_THAT(e.what(), HasSubstr("keeps state on the host, which a replay of the graph"));
  }
}

}  // namespace
}  // namespace fulgur
