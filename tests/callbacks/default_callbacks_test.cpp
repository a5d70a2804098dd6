// The callbacks the Trainer adds by default: ModelSummary, ProgressBar, Timer.
#include <gtest/gtest.h>

#include <cstdio>

#include "fulgur/callbacks/model_summary.h"
#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/callbacks/timer.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

class TwoLayers : public RecordingModule {
 public:
  explicit TwoLayers(Calls& calls) : RecordingModule(calls) {
    frozen_ = register_module("frozen", torch::nn::Linear(3, 2));
    for (auto& p : frozen_->parameters()) p.set_requires_grad(false);
  }

 private:
  torch::nn::Linear frozen_{nullptr};
};

TEST(ModelSummary, TableOfLayersAndParameterCounts) {
  Calls calls;
  TwoLayers module(calls);
  module.named_modules("", /*include_self=*/false)["frozen"]->eval();
  const auto table = ModelSummary().summarize(module);
  EXPECT_NE(table.find("  | Name   | Type   | Params | Mode\n"), std::string::npos) << table;
  EXPECT_NE(table.find("0 | layer  | Linear | 5      | train\n"), std::string::npos) << table;
  EXPECT_NE(table.find("1 | frozen | Linear | 8      | eval\n"), std::string::npos) << table;
  EXPECT_NE(table.find("1         Modules in train mode\n1         Modules in eval mode\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("5         Trainable params"), std::string::npos) << table;
  EXPECT_NE(table.find("8         Non-trainable params"), std::string::npos) << table;
  EXPECT_NE(table.find("13        Total params"), std::string::npos) << table;
  EXPECT_NE(table.find("0.000     Total estimated model params size (MB)"), std::string::npos)
      << table;
}

TEST(Timer, ParsesLightningsDurationFormat) {
  EXPECT_DOUBLE_EQ(Timer::parse("01:02:03:04").count(), 93784.0);
  EXPECT_DOUBLE_EQ(Timer::parse("00:00:00:30").count(), 30.0);
  EXPECT_THROW(Timer::parse("1:2:3"), ConfigError);
  EXPECT_THROW(Timer::parse("00:00:00:xx"), ConfigError);
}

TEST(Timer, MaxTimeZeroStopsBeforeTheFirstBatch) {
  Calls calls;
  RecordingModule module(calls, 20, 0);
  module.with_scheduler = false;
  Trainer t(quiet({.max_epochs = 5, .max_time = "00:00:00:00"}));
  t.fit(module);
  EXPECT_EQ(t.global_step(), 0) << "Lightning's Timer checks at on_fit_start too";
}

TEST(ProgressBar, PlainLinesWhenNotATerminal) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  class Logs : public RecordingModule {
   public:
    using RecordingModule::RecordingModule;
    torch::Tensor training_step(Batch& b, int64_t i) override {
      auto loss = RecordingModule::training_step(b, i);
      log("train_loss", loss, {.prog_bar = true});
      return loss;
    }
  };
  Calls calls;
  Logs module(calls, 4, 4);
  module.with_scheduler = false;
  TrainerOptions o = quiet({.callbacks = {std::make_shared<ProgressBar>(out, 0)},
                            .max_epochs = 1, .num_sanity_val_steps = 0});
  o.enable_progress_bar = true;
  Trainer t(o);
  t.fit(module);
  std::rewind(out);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, out)) text += buf;
  std::fclose(out);
  EXPECT_NE(text.find("Validation: 2/2 batches in"), std::string::npos) << text;
  EXPECT_NE(text.find("Epoch 0: 2/2 batches in"), std::string::npos) << text;
  EXPECT_NE(text.find("train_loss="), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no carriage returns off a terminal";
}

}  // namespace
}  // namespace fulgur::testing
