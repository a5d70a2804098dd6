// LambdaCallback: each function is called where the Callback hook of its name would be, with
// its arguments, in the same order as a Callback subclass's hooks.
#include <gtest/gtest.h>

#include <stdexcept>

#include "fulgur/callbacks/lambda_callback.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "callbacks/checkpointing.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// Every hook records "Callback.<hook>", as RecordingCallback does.
LambdaCallbackOptions recording(Calls& calls) {
  auto rec = [&calls](const char* hook) {
    return [&calls, hook](auto&&...) { calls.push_back(std::string("Callback.") + hook); };
  };
  auto stage = [&calls](const char* hook) {
    return [&calls, hook](Trainer&, Module&, const std::string& stage) {
      calls.push_back(std::string("Callback.") + hook + "(" + stage + ")");
    };
  };
  LambdaCallbackOptions o;
  o.setup = stage("setup");
  o.teardown = stage("teardown");
#define FULGUR_SET(hook) o.hook = rec(#hook);
  FULGUR_SET(on_fit_start) FULGUR_SET(on_fit_end) FULGUR_SET(on_sanity_check_start)
  FULGUR_SET(on_sanity_check_end) FULGUR_SET(on_train_start) FULGUR_SET(on_train_end)
  FULGUR_SET(on_validation_start) FULGUR_SET(on_validation_end) FULGUR_SET(on_test_start)
  FULGUR_SET(on_test_end) FULGUR_SET(on_predict_start) FULGUR_SET(on_predict_end)
  FULGUR_SET(on_train_epoch_start) FULGUR_SET(on_train_epoch_end)
  FULGUR_SET(on_validation_epoch_start) FULGUR_SET(on_validation_epoch_end)
  FULGUR_SET(on_test_epoch_start) FULGUR_SET(on_test_epoch_end)
  FULGUR_SET(on_predict_epoch_start) FULGUR_SET(on_predict_epoch_end)
  FULGUR_SET(on_train_batch_start) FULGUR_SET(on_train_batch_end)
  FULGUR_SET(on_validation_batch_start) FULGUR_SET(on_validation_batch_end)
  FULGUR_SET(on_test_batch_start) FULGUR_SET(on_test_batch_end)
  FULGUR_SET(on_predict_batch_start) FULGUR_SET(on_predict_batch_end)
  FULGUR_SET(on_before_zero_grad) FULGUR_SET(on_before_backward) FULGUR_SET(on_after_backward)
  FULGUR_SET(on_before_optimizer_step)
#undef FULGUR_SET
  return o;
}

// fit (2 epochs, a sanity check), validate, test and predict, with `callback` recording.
Calls run_all_stages(const std::function<std::shared_ptr<Callback>(Calls&)>& make_callback) {
  Calls calls;
  RecordingModule module(calls);
  Trainer t(quiet({.callbacks = {make_callback(calls)}, .max_epochs = 2}));
  t.fit(module);
  t.validate(module, nullptr, std::nullopt, false);
  t.test(module, nullptr, std::nullopt, false);
  t.predict(module);
  return calls;
}

TEST(LambdaCallback, EveryHookRunsWhereACallbackSubclassesWould) {
  const Calls subclass = run_all_stages(
      [](Calls& calls) { return std::make_shared<RecordingCallback>(calls); });
  const Calls lambdas = run_all_stages(
      [](Calls& calls) { return std::make_shared<LambdaCallback>(recording(calls)); });
  EXPECT_EQ(lambdas, subclass);
  // Each of the 34 hooks set above was heard at least once.
  std::set<std::string> heard;
  for (const auto& call : lambdas) {
    if (call.starts_with("Callback.")) heard.insert(call.substr(0, call.find('(')));
  }
  EXPECT_EQ(heard.size(), 34u);
}

TEST(LambdaCallback, HooksLeftEmptyDoNothingAndArgumentsArriveIntact) {
  Calls calls;
  RecordingModule module(calls, 6);
  std::vector<int64_t> batch_indices;
  std::vector<double> losses;
  auto callback = std::make_shared<LambdaCallback>(LambdaCallbackOptions{
      .on_train_batch_end = [&](Trainer&, Module&, const torch::Tensor& loss, Batch&,
                                int64_t batch_idx) {
        batch_indices.push_back(batch_idx);
        losses.push_back(loss.item<double>());
      }});
  EXPECT_EQ(callback->name(), "LambdaCallback");
  Trainer t(quiet({.callbacks = {callback}, .max_epochs = 1}));
  t.fit(module);
  EXPECT_EQ(batch_indices, (std::vector<int64_t>{0, 1, 2}));
  ASSERT_EQ(losses.size(), 3u);
  for (double loss : losses) EXPECT_GT(loss, 0.0);
}

TEST(LambdaCallback, CheckpointAndExceptionHooks) {
  const auto dir = fresh_dir("lambda_callback");
  Calls calls;
  RecordingModule module(calls);
  int64_t loaded = -1;
  std::string error;
  auto callback = std::make_shared<LambdaCallback>(LambdaCallbackOptions{
      .on_train_batch_start =
          [](Trainer& t, Module&, Batch&, int64_t) {
            if (t.current_epoch() == 1) throw std::runtime_error("stop here");
          },
      .on_exception = [&](Trainer&, Module&, const std::exception& e) { error = e.what(); },
      .on_save_checkpoint = [](Trainer&, Module&,
                               CheckpointDict& checkpoint) { checkpoint.insert("extra", 7); },
      .on_load_checkpoint =
          [&](Trainer&, Module&, const CheckpointDict& checkpoint) {
            loaded = checkpoint.at("extra").toInt();
          }});
  Trainer t(quiet({.callbacks = {callback}, .max_epochs = 2}));
  EXPECT_THROW(t.fit(module), std::runtime_error);
  EXPECT_EQ(error, "stop here");
  t.save_checkpoint(dir + "/a.ckpt");
  Trainer later(quiet({.callbacks = {callback}}));
  later.validate(module, nullptr, dir + "/a.ckpt", false);
  EXPECT_EQ(loaded, 7);
}

}  // namespace
}  // namespace fulgur::testing
