// Evaluation and prediction put every submodule back in the mode it had (Lightning's
// _ModuleMode): a submodule frozen in eval mode stays frozen; an overridden *_model_train hook
// decides instead.
#include <gtest/gtest.h>

#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// A RecordingModule with a second layer, frozen in eval mode (say, batch norm statistics kept).
class PartlyFrozen : public RecordingModule {
 public:
  explicit PartlyFrozen(Calls& calls) : RecordingModule(calls, 4, 4) {
    frozen_ = register_module("frozen", torch::nn::Linear(4, 4));
    frozen_->eval();
    with_scheduler = false;
  }
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    modes_in_training.push_back({is_training(), frozen_->is_training()});
    return RecordingModule::training_step(batch, idx);
  }
  void validation_step(Batch& batch, int64_t idx) override {
    modes_in_evaluation.push_back({is_training(), frozen_->is_training()});
    RecordingModule::validation_step(batch, idx);
  }
  torch::nn::Linear frozen_{nullptr};
  std::vector<std::pair<bool, bool>> modes_in_training, modes_in_evaluation;
};

TEST(ModuleMode, ValidationPutsEverySubmoduleBackInItsMode) {
  Calls calls;
  PartlyFrozen module(calls);
  Trainer t(quiet({.max_epochs = 2, .num_sanity_val_steps = 2}));
  t.fit(module);
  using Modes = std::vector<std::pair<bool, bool>>;
  // 2 epochs of 2 batches, after the sanity check and each validation: the frozen layer stays
  // in eval mode.
  EXPECT_EQ(module.modes_in_training, (Modes(4, {true, false})));
  EXPECT_EQ(module.modes_in_evaluation, (Modes(6, {false, false})));
  EXPECT_TRUE(module.is_training());
  EXPECT_FALSE(module.frozen_->is_training());
}

TEST(ModuleMode, TestAndPredictLeaveTheModesAsTheyFoundThem) {
  Calls calls;
  PartlyFrozen module(calls);
  Trainer t(quiet({}));
  t.test(module, make_loader(4), std::nullopt, /*verbose=*/false);
  EXPECT_TRUE(module.is_training());
  EXPECT_FALSE(module.frozen_->is_training());
  t.predict(module, make_loader(4));
  EXPECT_TRUE(module.is_training()) << "Lightning restores the modes after predict too";
  EXPECT_FALSE(module.frozen_->is_training());
}

class TrainsEverythingAfterValidation : public PartlyFrozen {
 public:
  using PartlyFrozen::PartlyFrozen;
  void on_validation_model_train() override { train(); }
};

TEST(ModuleMode, AnOverriddenModelTrainHookDecides) {
  Calls calls;
  TrainsEverythingAfterValidation module(calls);
  Trainer t(quiet({.max_epochs = 1, .num_sanity_val_steps = 0}));
  t.fit(module);
  EXPECT_TRUE(module.frozen_->is_training());
}

}  // namespace
}  // namespace fulgur::testing
