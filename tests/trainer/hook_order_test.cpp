// Hook order for fit, validate, test and predict, against Lightning 2.x's order
// (../shared/LIGHTNING_REFERENCE.md): callbacks before the Module for the same hook.
#include <gtest/gtest.h>

#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

void append(Calls& out, std::initializer_list<const char*> names) {
  for (const char* n : names) out.emplace_back(n);
}

void both(Calls& out, const std::string& hook) {
  out.push_back("Callback." + hook);
  out.push_back("Module." + hook);
}

void transfer(Calls& out) {
  append(out, {"Module.on_before_batch_transfer", "Module.transfer_batch_to_device",
               "Module.on_after_batch_transfer"});
}

void eval_run(Calls& out, const std::string& stage, const std::string& step, int batches,
              bool model_train = true) {
  out.push_back("Module.on_" + stage + "_model_eval");
  both(out, "on_" + stage + "_start");
  both(out, "on_" + stage + "_epoch_start");
  for (int i = 0; i < batches; ++i) {
    transfer(out);
    both(out, "on_" + stage + "_batch_start");
    out.push_back("Module." + step);
    both(out, "on_" + stage + "_batch_end");
  }
  both(out, "on_" + stage + "_epoch_end");
  both(out, "on_" + stage + "_end");
  if (model_train) out.push_back("Module.on_" + stage + "_model_train");
}

void train_batch(Calls& out, bool last) {
  transfer(out);
  both(out, "on_train_batch_start");
  out.push_back("Module.training_step");
  both(out, "on_before_zero_grad");
  out.push_back("Module.optimizer_zero_grad");
  both(out, "on_before_backward");
  out.push_back("Module.backward");
  both(out, "on_after_backward");
  both(out, "on_before_optimizer_step");
  append(out, {"Module.configure_gradient_clipping", "Module.optimizer_step"});
  if (last) out.push_back("Module.lr_scheduler_step");  // the epoch-interval StepLR
  both(out, "on_train_batch_end");
}

// Equality with a readable report: the first position where the orders part.
void expect_same(const Calls& calls, const Calls& expected) {
  size_t i = 0;
  while (i < calls.size() && i < expected.size() && calls[i] == expected[i]) ++i;
  if (i == calls.size() && i == expected.size()) return;
  ADD_FAILURE() << "hook orders differ at position " << i << ": got "
                << (i < calls.size() ? calls[i] : "<end>") << ", expected "
                << (i < expected.size() ? expected[i] : "<end>") << " (after "
                << (i > 0 ? expected[i - 1] : "<start>") << ")";
}

TEST(HookOrder, FitOneEpochTwoTrainTwoValBatches) {
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(quiet({.callbacks = {std::make_shared<RecordingCallback>(calls)},
                         .max_epochs = 1,
                         .limit_train_batches = 2,
                         .limit_val_batches = 2}));
  trainer.fit(module);

  Calls expected;
  append(expected, {"Module.configure_callbacks", "Module.prepare_data", "Callback.setup(fit)",
                    "Module.setup(fit)", "Module.configure_model", "Module.configure_optimizers"});
  both(expected, "on_fit_start");
  expected.push_back("Callback.on_sanity_check_start");
  expected.push_back("Module.val_dataloader");
  eval_run(expected, "validation", "validation_step", 2);
  expected.push_back("Callback.on_sanity_check_end");
  expected.push_back("Module.train_dataloader");
  both(expected, "on_train_start");
  both(expected, "on_train_epoch_start");
  train_batch(expected, false);
  train_batch(expected, true);
  expected.push_back("Module.on_validation_model_zero_grad");
  eval_run(expected, "validation", "validation_step", 2);
  both(expected, "on_train_epoch_end");
  both(expected, "on_train_end");
  both(expected, "on_fit_end");
  append(expected, {"Callback.teardown(fit)", "Module.teardown(fit)"});
  expect_same(calls, expected);
}

TEST(HookOrder, Validate) {
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(quiet({.callbacks = {std::make_shared<RecordingCallback>(calls)},
                         .limit_val_batches = 2}));
  trainer.validate(module, nullptr, std::nullopt, /*verbose=*/false);
  Calls expected;
  append(expected, {"Module.configure_callbacks", "Module.prepare_data",
                    "Callback.setup(validate)", "Module.setup(validate)",
                    "Module.configure_model", "Module.val_dataloader"});
  eval_run(expected, "validation", "validation_step", 2);
  append(expected, {"Callback.teardown(validate)", "Module.teardown(validate)"});
  expect_same(calls, expected);
}

TEST(HookOrder, Test) {
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(quiet({.callbacks = {std::make_shared<RecordingCallback>(calls)}}));
  trainer.test(module, nullptr, std::nullopt, /*verbose=*/false);
  Calls expected;
  append(expected, {"Module.configure_callbacks", "Module.prepare_data", "Callback.setup(test)",
                    "Module.setup(test)", "Module.configure_model", "Module.test_dataloader"});
  eval_run(expected, "test", "test_step", 2);
  append(expected, {"Callback.teardown(test)", "Module.teardown(test)"});
  expect_same(calls, expected);
}

TEST(HookOrder, Predict) {
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(quiet({.callbacks = {std::make_shared<RecordingCallback>(calls)}}));
  auto predictions = trainer.predict(module);
  ASSERT_EQ(predictions.size(), 2u);
  EXPECT_EQ(predictions[0].sizes(), (std::vector<int64_t>{2, 1}));
  Calls expected;
  append(expected, {"Module.configure_callbacks", "Module.prepare_data",
                    "Callback.setup(predict)", "Module.setup(predict)", "Module.configure_model",
                    "Module.predict_dataloader"});
  eval_run(expected, "predict", "predict_step", 2, /*model_train=*/false);
  append(expected, {"Callback.teardown(predict)", "Module.teardown(predict)"});
  expect_same(calls, expected);
}

TEST(HookOrder, AccumulationZeroesGradOnlyAtWindowStartAndStepsAtWindowEnd) {
  Calls calls;
  RecordingModule module(calls, /*train_samples=*/8, /*val_samples=*/0);
  module.with_scheduler = false;
  Trainer trainer(quiet({.max_epochs = 1, .accumulate_grad_batches = 2}));
  trainer.fit(module);
  auto count = [&](const std::string& name) { return std::count(calls.begin(), calls.end(), name); };
  EXPECT_EQ(count("Module.training_step"), 4);
  EXPECT_EQ(count("Module.optimizer_zero_grad"), 2);
  EXPECT_EQ(count("Module.optimizer_step"), 2);
  EXPECT_EQ(count("Module.backward"), 4);
  EXPECT_EQ(trainer.global_step(), 2);
}

}  // namespace
}  // namespace fulgur::testing
