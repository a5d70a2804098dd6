// The hyperparameters a fit logs and checkpoints: the Module's and the DataModule's, as
// Lightning; and the DataModule's checkpoint state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/trainer.h"
#include "temp_dir.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

class LoaderDataModule : public DataModule {
 public:
  explicit LoaderDataModule(HParams hparams) { save_hyperparameters(std::move(hparams)); }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(4); }
};

class HParamsTest : public TempDirTest {
 protected:
  // One epoch, no bar, summary or checkpoint callback; logs under the test's directory.
  TrainerOptions one_epoch() const {
    return {.max_epochs = 1,
            .enable_checkpointing = false,
            .enable_progress_bar = false,
            .enable_model_summary = false,
            .default_root_dir = dir_.string()};
  }
};

TEST_F(HParamsTest, ModuleAndDataModuleHparamsAreLoggedTogether) {
  Calls calls;
  RecordingModule module(calls, 4, 0);
  module.save_hyperparameters({{"lr", 0.1}, {"hidden", int64_t{8}}});
  LoaderDataModule datamodule({{"batch_size", int64_t{2}}, {"hidden", int64_t{8}}});
  Trainer trainer(one_epoch());
  trainer.fit(module, datamodule);
  std::ifstream in(dir_ / "lightning_logs" / "version_0" / "hparams.yaml");
  std::stringstream yaml;
  yaml << in.rdbuf();
  EXPECT_EQ(yaml.str(), "batch_size: 2\nhidden: 8\nlr: 0.1\n");
}

TEST_F(HParamsTest, TheCheckpointHoldsEachUnderLightningsKey) {
  Calls calls;
  RecordingModule module(calls, 4, 0);
  module.save_hyperparameters({{"lr", 0.1}});
  LoaderDataModule datamodule({{"batch_size", int64_t{2}}, {"name", std::string("fmnist")}});
  Trainer trainer(one_epoch());
  trainer.fit(module, datamodule);
  const std::string path = (dir_ / "hp.ckpt").string();
  trainer.save_checkpoint(path);
  const auto checkpoint = TorchCheckpointIO().load_checkpoint(path);
  const auto own = checkpoint.at("hyper_parameters").toGenericDict();
  EXPECT_EQ(own.size(), 1u);
  EXPECT_EQ(own.at("lr").toDouble(), 0.1);
  // The name Lightning gives hyperparameters saved from named values.
  EXPECT_EQ(checkpoint.at("hparams_name").toStringRef(), "kwargs");
  EXPECT_EQ(checkpoint.at("datamodule_hparams_name").toStringRef(), "kwargs");
  const auto data = checkpoint.at("datamodule_hyper_parameters").toGenericDict();
  EXPECT_EQ(data.size(), 2u);
  EXPECT_EQ(data.at("batch_size").toInt(), 2);
  EXPECT_EQ(data.at("name").toStringRef(), "fmnist");

  // A DataModule without hyperparameters adds no key, as in Lightning.
  LoaderDataModule bare({});
  Trainer second(one_epoch());
  second.fit(module, bare);
  second.save_checkpoint(path);
  const auto without = TorchCheckpointIO().load_checkpoint(path);
  EXPECT_FALSE(without.contains("datamodule_hyper_parameters"));
  EXPECT_FALSE(without.contains("datamodule_hparams_name"));
}

// A DataModule with state, as Lightning's state_dict/load_state_dict: how many batches it served.
class CountingDataModule : public DataModule {
 public:
  std::string name() const override { return "CountingDataModule"; }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(4); }
  c10::IValue state_dict() override {
    auto d = make_checkpoint_dict();
    d.insert("loaders_made", loaders_made);
    return d;
  }
  void load_state_dict(const c10::IValue& state) override {
    loaders_made = state.toGenericDict().at("loaders_made").toInt();
  }
  int64_t loaders_made = 7;
};

TEST_F(HParamsTest, TheDataModulesStateIsSavedUnderItsNameAndRestored) {
  Calls calls;
  RecordingModule module(calls, 4, 0);
  CountingDataModule datamodule;
  Trainer trainer(one_epoch());
  trainer.fit(module, datamodule);
  const std::string full = (dir_ / "full.ckpt").string();
  const std::string weights = (dir_ / "weights.ckpt").string();
  trainer.save_checkpoint(full);
  trainer.save_checkpoint(weights, /*weights_only=*/true);
  for (const auto& path : {full, weights}) {
    const auto checkpoint = TorchCheckpointIO().load_checkpoint(path);
    ASSERT_TRUE(checkpoint.contains("CountingDataModule")) << path;
    EXPECT_EQ(checkpoint.at("CountingDataModule").toGenericDict().at("loaders_made").toInt(), 7);
  }

  CountingDataModule resumed;
  resumed.loaders_made = 0;
  Trainer again(one_epoch());
  again.fit(module, resumed, full);  // at max_epochs already: restores, stops
  EXPECT_EQ(resumed.loaders_made, 7);
}

TEST_F(HParamsTest, AKeyWithTwoValuesIsAnError) {
  Calls calls;
  RecordingModule module(calls, 4, 0);
  module.save_hyperparameters({{"hidden", int64_t{8}}});
  LoaderDataModule datamodule({{"hidden", int64_t{16}}});
  Trainer trainer(one_epoch());
  EXPECT_THAT([&] { trainer.fit(module, datamodule); },
              ::testing::ThrowsMessage<MisconfigurationError>(::testing::HasSubstr(
                  "the keys hidden are present in both the Module's and the DataModule's hparams")));
}

}  // namespace
}  // namespace fulgur::testing
