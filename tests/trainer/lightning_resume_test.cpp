// fit(ckpt_path) resuming a run that Python Lightning began: write_lightning_checkpoints.py
// (/usr/bin/python3, Debian's python3-torch) trains as Lightning 2.6.5's loops do and torch.saves
// the checkpoints its ModelCheckpoints write: no loader state (a plain DataLoader), the progress
// counters as they stand inside a batch's or an epoch's end hooks, Python's Adam and StepLR
// states. fulgur continues the run and must end where Python's uninterrupted run ended.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>

#include "callbacks/checkpointing.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/module.h"
#include "fulgur/optim/step_lr.h"
#include "fulgur/trainer.h"
#include "project_paths.h"
#include "python.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kNotResumable =
    "You're resuming from a checkpoint that ended before the epoch ended and your dataloader is "
    "not resumable.";

// The script's Net, Adam(lr=0.05) and StepLR(step_size=1, gamma=0.5) stepped every epoch.
class Net : public Module {
 public:
  Net() : Module("Net") {
    fc1_ = register_module("fc1", torch::nn::Linear(4, 8));
    fc2_ = register_module("fc2", torch::nn::Linear(8, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
    auto loss = torch::mse_loss(fc2_->forward(torch::relu(fc1_->forward(batch.data))),
                                batch.target);
    losses.push_back(loss.item<double>());
    log("train_loss", loss);
    batches.emplace_back(trainer()->current_epoch(), batch_idx);
    return loss;
  }
  OptimizerConfig configure_optimizers() override {
    auto adam = std::make_shared<torch::optim::Adam>(parameters(), torch::optim::AdamOptions(0.05));
    adam_ = adam.get();
    return OptimizerConfig({adam}, {SchedulerConfig{.scheduler = std::make_shared<StepLR>(*adam, 1, 0.5)}});
  }
  void on_train_end() override { lr = adam_->param_groups()[0].options().get_lr(); }

  double lr = 0;  // after the fit
  std::vector<double> losses;
  std::vector<std::pair<int64_t, int64_t>> batches;  // (epoch, batch_idx) of each step run

 private:
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
  torch::optim::Adam* adam_ = nullptr;
};

class LightningResume : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_dir("lightning_resume");
    const std::string command = python() + " " + source_dir() +
                                "/tests/trainer/write_lightning_checkpoints.py " + dir_ + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[512];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) script_output_ += buffer;
    script_status_ = ::pclose(pipe);
  }
  void SetUp() override {
    ASSERT_EQ(script_status_, 0) << script_output_;
    expected_ = TorchCheckpointIO().load_checkpoint(dir_ + "/expected.pt");
  }

  // Resumes from `file`, written after `first_step` steps, until step 12 as the script's run,
  // and expects the first batch run to be `first` (epoch, batch_idx), then Python's losses,
  // weights and learning rate, logged at Lightning's steps. Returns what reached stderr.
  std::string resume(const std::string& file, std::pair<int64_t, int64_t> first,
                     int64_t first_step) {
    Net net;
    const auto x = expected_.at("x").toTensor(), y = expected_.at("y").toTensor();
    auto loader = std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, y),
                                               DataLoaderOptions{.batch_size = 4});
    auto logger = std::make_shared<MemoryLogger>();
    auto options = quiet({.max_steps = 12, .log_every_n_steps = 1});
    options.logger = logger;
    Trainer trainer(options);
    ::testing::internal::CaptureStderr();
    trainer.fit(net, loader, nullptr, dir_ + "/" + file);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(trainer.global_step(), 12);
    EXPECT_FALSE(net.batches.empty());
    if (!net.batches.empty()) {
      EXPECT_EQ(net.batches.front(), first);
    }

    const auto losses = expected_.at("losses").toTensor();
    EXPECT_EQ(static_cast<int64_t>(net.losses.size()), 12 - first_step);
    for (size_t i = 0; i < net.losses.size() && first_step + static_cast<int64_t>(i) < 12; ++i) {
      const int64_t step = first_step + static_cast<int64_t>(i);
      EXPECT_NEAR(net.losses[i], losses[step].item<double>(), 1e-5) << "step " << step + 1;
    }
    const auto params = expected_.at("params").toGenericDict();
    for (const auto& p : net.named_parameters()) {
      EXPECT_TRUE(torch::allclose(p.value(), params.at(p.key()).toTensor(), 1e-4, 1e-5)) << p.key();
    }
    EXPECT_DOUBLE_EQ(net.lr, expected_.at("lr").toDouble());
    // Logged at Lightning's steps: the batch of global step s at s - 1.
    std::vector<int64_t> logged, steps(12 - first_step);
    for (const auto& row : logger->rows) {
      if (row.second.count("train_loss") != 0) logged.push_back(row.first);
    }
    std::iota(steps.begin(), steps.end(), first_step);
    EXPECT_EQ(logged, steps);
    return err;
  }

  static std::string dir_;
  static std::string script_output_;
  static int script_status_;
  CheckpointDict expected_ = make_checkpoint_dict();
};

std::string LightningResume::dir_;
std::string LightningResume::script_output_;
int LightningResume::script_status_ = -1;

// The counters say two batches of epoch 1 ran: the unshuffled loader continues at the third.
TEST_F(LightningResume, MidEpochContinuesWithTheNextBatchAndWarnsAsLightning) {
  const std::string err = resume("step=6.ckpt", {1, 2}, 6);
  EXPECT_THAT(err, HasSubstr(kNotResumable));
  // Both ModelCheckpoints' states were read; neither is configured here.
  EXPECT_THAT(err, HasSubstr("Please add the following callbacks: [ModelCheckpoint{'monitor': "
                             "None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 1, "
                             "'train_time_interval': None}, ModelCheckpoint{'monitor': None, "
                             "'mode': 'min', 'every_n_train_steps': 2, 'every_n_epochs': 0, "
                             "'train_time_interval': None}]"));
}

TEST_F(LightningResume, EarlyInTheFirstEpoch) {
  EXPECT_THAT(resume("step=2.ckpt", {0, 2}, 2), HasSubstr(kNotResumable));
}

TEST_F(LightningResume, AfterTheLastBatchOfAnEpochTheNextEpochFollows) {
  EXPECT_THAT(resume("step=4.ckpt", {1, 0}, 4), Not(HasSubstr(kNotResumable)));
}

TEST_F(LightningResume, FromAnEpochEndCheckpoint) {
  EXPECT_THAT(resume("epoch=0.ckpt", {1, 0}, 4), Not(HasSubstr(kNotResumable)));
}

}  // namespace
}  // namespace fulgur::testing
