// Trainer::estimated_stepping_batches, Lightning's: asked in configure_optimizers (before the
// training loader is set up) for OneCycleLR's total_steps, it equals the optimizer steps the
// fit then takes; the train_dataloader() hook is still called once.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "fulgur/errors.h"
#include "fulgur/optim/one_cycle_lr.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// SGD with a OneCycleLR of estimated_stepping_batches steps (stepping past them is an error);
// batches of 2, no validation.
class OneCycleModule : public RecordingModule {
 public:
  OneCycleModule(Calls& calls, int64_t train_samples)
      : RecordingModule(calls, train_samples, /*val_samples=*/0) {}
  OptimizerConfig configure_optimizers() override {
    estimate = trainer()->estimated_stepping_batches();
    auto sgd = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    if (estimate == std::numeric_limits<int64_t>::max()) return sgd;
    return OptimizerConfig(
        {sgd}, {{.scheduler = std::make_shared<OneCycleLR>(*sgd, 0.1, estimate), .interval = "step"}});
  }
  void on_fit_start() override {
    if (stop_at_fit_start) trainer()->set_should_stop(true);
  }
  int64_t estimate = -1;
  bool stop_at_fit_start = false;
};

struct Case {
  TrainerOptions options;
  int64_t expected;
};

TEST(EstimatedSteppingBatches, MatchesTheStepsTheFitTakes) {
  // 10 samples: 5 batches an epoch.
  const std::vector<Case> cases = {
      {{.max_epochs = 3}, 15},
      {{.max_epochs = 3, .accumulate_grad_batches = 2}, 9},  // ceil(5 / 2) a epoch
      {{.max_epochs = 3, .max_steps = 7}, 7},
      {{.max_epochs = 2, .limit_train_batches = int64_t{4}}, 8},
      {{.max_epochs = 2, .limit_train_batches = 0.5}, 4},
      {{.max_epochs = -1, .max_steps = 4}, 4},
      {{.max_steps = 6}, 6},  // max_epochs unset with max_steps: -1, as Lightning
  };
  for (const auto& c : cases) {
    Calls calls;
    OneCycleModule module(calls, 10);
    Trainer trainer(quiet(c.options));
    trainer.fit(module);
    EXPECT_EQ(module.estimate, c.expected);
    EXPECT_EQ(trainer.global_step(), c.expected);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "Module.train_dataloader"), 1);
  }
}

TEST(EstimatedSteppingBatches, InfiniteTrainingIsTheLargestCount) {
  Calls calls;
  OneCycleModule module(calls, 10);
  module.stop_at_fit_start = true;
  Trainer trainer(quiet({.max_epochs = -1}));
  trainer.fit(module);
  EXPECT_EQ(module.estimate, std::numeric_limits<int64_t>::max());
}

TEST(EstimatedSteppingBatches, OutsideFitIsAMisconfiguration) {
  Trainer trainer(quiet({}));
  try {
    trainer.estimated_stepping_batches();
    FAIL() << "expected MisconfigurationError";
  } catch (const MisconfigurationError& e) {
    EXPECT_STREQ(e.what(),
                 "estimated_stepping_batches is known during fit() only (from "
                 "configure_optimizers on)");
  }
}

}  // namespace
}  // namespace fulgur::testing
