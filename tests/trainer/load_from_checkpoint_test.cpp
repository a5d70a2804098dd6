// load_from_checkpoint: the Module built (with the saved hyper_parameters when its constructor
// takes them), on_load_checkpoint, the weights, strictness and the errors for bad files; a
// checkpoint written by Python's torch.save loads too.
#include "fulgur/load_from_checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fulgur/loggers/hparams_yaml.h"
#include "fulgur/trainer.h"
#include "optim/python_reference.h"
#include "temp_dir.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

int64_t hidden_of(const HParams& hparams) { return std::get<int64_t>(hparams.at("hidden")); }

// Linear 4→hidden→1 whose width is a plain constructor argument, optionally with an extra head
// that the checkpoints of the tests do not have.
class PlainRegressor : public Module {
 public:
  PlainRegressor(int64_t hidden, bool with_head, std::string name = "PlainRegressor")
      : Module(std::move(name)) {
    torch::manual_seed(11);
    first = register_module("first", torch::nn::Linear(4, hidden));
    last = register_module("last", torch::nn::Linear(hidden, 1));
    if (with_head) head = register_module("head", torch::nn::Linear(1, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    return torch::mse_loss(last(torch::relu(first(batch.data))), batch.target);
  }
  OptimizerConfig configure_optimizers() override {
    return OptimizerConfig(std::make_shared<torch::optim::SGD>(parameters(), 0.05));
  }
  std::shared_ptr<DataLoader> train_dataloader() override { return make_loader(8); }

  torch::nn::Linear first{nullptr}, last{nullptr}, head{nullptr};
};

// The same whose width is a hyperparameter, as a Lightning module's __init__ argument; it
// records what on_load_checkpoint saw.
class Regressor : public PlainRegressor {
 public:
  explicit Regressor(const HParams& hparams)
      : PlainRegressor(hidden_of(hparams), false, "Regressor") {
    save_hyperparameters(hparams);
  }
  void on_load_checkpoint(const CheckpointDict& checkpoint) override {
    hook_saw_state = checkpoint.contains("state_dict");
    weight_at_hook = first->weight.detach().clone();
  }

  bool hook_saw_state = false;
  torch::Tensor weight_at_hook;
};

class LoadFromCheckpoint : public TempDirTest {
 protected:
  // A 2-epoch fit of a Regressor of width 5, saved to trained.ckpt.
  std::string trained(Regressor& module) {
    Trainer trainer(quiet({.max_epochs = 2}));
    trainer.fit(module);
    const std::string file = path("trained.ckpt");
    trainer.save_checkpoint(file);
    return file;
  }
};

TEST_F(LoadFromCheckpoint, BuildsTheModuleFromTheSavedHyperparametersAndLoadsItsWeights) {
  Regressor original(HParams{{"hidden", int64_t{5}}, {"lr", 0.05}});
  const std::string file = trained(original);
  auto loaded = load_from_checkpoint<Regressor>(file);
  EXPECT_EQ(hidden_of(loaded->hparams()), 5);
  EXPECT_EQ(std::get<double>(loaded->hparams().at("lr")), 0.05);
  ASSERT_EQ(loaded->parameters().size(), original.parameters().size());
  for (size_t i = 0; i < loaded->parameters().size(); ++i) {
    EXPECT_TRUE(torch::equal(loaded->parameters()[i], original.parameters()[i])) << i;
  }
  // on_load_checkpoint ran first, with the whole checkpoint, before the weights changed.
  EXPECT_TRUE(loaded->hook_saw_state);
  EXPECT_FALSE(torch::equal(loaded->weight_at_hook, loaded->first->weight));
  EXPECT_TRUE(loaded->is_training());  // as Lightning's: the mode is the caller's to set

  // options.hparams go over the saved ones (Lightning's kwargs): a width 7 no longer fits.
  try {
    load_from_checkpoint<Regressor>(file, {.hparams = {{"hidden", int64_t{7}}}});
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              file +
                  " does not fit the model: size mismatch for first.weight (checkpoint 5x4, "
                  "model 7x4), first.bias (checkpoint 5, model 7), last.weight (checkpoint "
                  "1x5, model 1x7)");
  }
}

TEST_F(LoadFromCheckpoint, PassesConstructorArgumentsAndHonoursStrict) {
  Regressor original(HParams{{"hidden", int64_t{5}}});
  const std::string file = trained(original);
  auto plain =
      load_from_checkpoint<PlainRegressor>(file, {.map_location = torch::kCPU}, int64_t{5}, false);
  EXPECT_TRUE(torch::equal(plain->last->weight, original.last->weight));

  try {
    load_from_checkpoint<PlainRegressor>(file, {}, int64_t{5}, true);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()),
              file +
                  " does not fit the model: missing keys: head.weight, head.bias; "
                  "set_strict_loading(false) on the Module loads what matches");
  }
  ::testing::internal::CaptureStderr();
  auto loose = load_from_checkpoint<PlainRegressor>(file, {.strict = false}, int64_t{5}, true);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "fulgur: warning: Found keys that are in the model state dict but not in the "
            "checkpoint: ['head.weight', 'head.bias']\n");
  EXPECT_TRUE(torch::equal(loose->first->weight, original.first->weight));

  // Without .strict the Module's strict_loading(false) decides.
  auto head = std::make_shared<PlainRegressor>(5, true);
  head->set_strict_loading(false);
  ::testing::internal::CaptureStderr();
  restore_from_checkpoint(*head, read_model_checkpoint(file), {}, file);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "fulgur: warning: Found keys that are in the model state dict but not in the "
            "checkpoint: ['head.weight', 'head.bias']\n");
  const std::string saved_from_head = path("head.ckpt");
  auto with_head = make_checkpoint_dict();
  with_head.insert("state_dict", CheckpointConnector::module_state_dict(*head));
  TorchCheckpointIO().save_checkpoint(with_head, saved_from_head);
  // The other way round: the checkpoint's keys the Module lacks.
  ::testing::internal::CaptureStderr();
  load_from_checkpoint<PlainRegressor>(saved_from_head, {.strict = false}, int64_t{5}, false);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "fulgur: warning: Found keys that are not in the model state dict but in the "
            "checkpoint: ['head.weight', 'head.bias']\n");

  // strict=true against a Module that set strict_loading false: Lightning's ValueError.
  EXPECT_THAT(
      [&] { restore_from_checkpoint(*head, read_model_checkpoint(file), {.strict = true}, file); },
      ::testing::ThrowsMessage<ConfigError>(
          "You set `load_from_checkpoint(..., strict=true)` which is in conflict with "
          "`PlainRegressor.strict_loading=false`. Please set the same value for both of "
          "them."));
}

TEST_F(LoadFromCheckpoint, MissingOrNonModelFilesAreCheckpointErrors) {
  auto error_of = [](const std::string& file) {
    try {
      load_from_checkpoint<PlainRegressor>(file, {}, int64_t{5}, false);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(path("absent.ckpt")), "checkpoint not found: " + path("absent.ckpt"));
  auto not_a_model = make_checkpoint_dict();
  not_a_model.insert("epoch", int64_t{3});
  TorchCheckpointIO().save_checkpoint(not_a_model, path("epoch.ckpt"));
  EXPECT_EQ(error_of(path("epoch.ckpt")),
            path("epoch.ckpt") + " is not a model checkpoint: it has no \"state_dict\"");
}

TEST_F(LoadFromCheckpoint, ReadsACheckpointPythonSaved) {
  const std::string file = path("python.ckpt");
  run_python(
      "import torch\n"
      "torch.manual_seed(0)\n"
      "sd = {'first.weight': torch.full((3, 4), 0.25), 'first.bias': torch.arange(3.),\n"
      "      'last.weight': torch.ones(1, 3), 'last.bias': torch.tensor([-1.0])}\n"
      "torch.save({'state_dict': sd, 'hyper_parameters': {'hidden': 3, 'lr': 0.5,\n"
      "            'name': 'mlp', 'bias': True}}, '" +
      file +
      "')\n"
      "torch.save({'state_dict': sd, 'hyper_parameters': {'hidden': 3, 'sizes': [3]}},\n"
      "           '" +
      path("list.ckpt") + "')\n");
  auto loaded = load_from_checkpoint<Regressor>(file);
  EXPECT_EQ(hidden_of(loaded->hparams()), 3);
  EXPECT_EQ(std::get<double>(loaded->hparams().at("lr")), 0.5);
  EXPECT_EQ(std::get<std::string>(loaded->hparams().at("name")), "mlp");
  EXPECT_EQ(std::get<bool>(loaded->hparams().at("bias")), true);
  EXPECT_TRUE(torch::equal(loaded->first->weight, torch::full({3, 4}, 0.25)));
  EXPECT_TRUE(torch::equal(loaded->first->bias, torch::arange(3.0)));
  EXPECT_EQ(loaded->last->bias.item<float>(), -1.0f);

  try {
    load_from_checkpoint<Regressor>(path("list.ckpt"));
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()), path("list.ckpt") +
                                         ": hyper_parameters[\"sizes\"] is a GenericList, not a "
                                         "bool, int, float or str");
  }
}

TEST_F(LoadFromCheckpoint, HparamsFileGoesOverTheSavedOnesAndTheOptionsOverBoth) {
  Regressor original(HParams{{"hidden", int64_t{5}}, {"lr", 0.05}});
  const std::string file = trained(original);
  write_hparams_yaml(path("hparams.yaml"), {{"hidden", int64_t{7}}, {"lr", 0.5}}, "test");
  // The file's width 7 no longer fits the checkpoint...
  EXPECT_THROW(load_from_checkpoint<Regressor>(file, {.hparams_file = path("hparams.yaml")}),
               CheckpointError);
  // ...and the options' 5 goes over it; the file's lr stays.
  auto loaded = load_from_checkpoint<Regressor>(
      file, {.hparams_file = path("hparams.yaml"), .hparams = {{"hidden", int64_t{5}}}});
  EXPECT_EQ(hidden_of(loaded->hparams()), 5);
  EXPECT_EQ(std::get<double>(loaded->hparams().at("lr")), 0.5);

  auto config_error = [&](const std::string& hparams_file) {
    try {
      load_from_checkpoint<Regressor>(file, {.hparams_file = hparams_file});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(config_error(path("hparams.json")),
            "a .yml or .yaml file is required for `hparams_file`, got " + path("hparams.json"));
  EXPECT_EQ(config_error(path("absent.yaml")), "hparams file not found: " + path("absent.yaml"));
  std::ofstream(path("nested.yaml")) << "hidden: 5\nsizes: [3, 4]\n";
  EXPECT_EQ(config_error(path("nested.yaml")),
            "hparams file " + path("nested.yaml") + ": \"sizes\" is not a bool, int, float or str");
}

// hparams.yaml as PyYAML writes it reads back with PyYAML's types, and fulgur's own round-trips.
TEST_F(LoadFromCheckpoint, HparamsYamlReadsBackWithPyYamlsTypes) {
  run_python(
      "import yaml\n"
      "with open('" +
      path("py.yaml") +
      "', 'w') as f:\n"
      "    yaml.safe_dump({'hidden': 6, 'lr': 1e-05, 'name': 'true', 'flag': True,\n"
      "                    'big': float('inf'), 'text': '1e3', 'word': 'mlp',\n"
      "                    'empty': '', 'neg': -3}, f)\n");
  const HParams expected{{"hidden", int64_t{6}},
                         {"lr", 1e-05},
                         {"name", std::string("true")},
                         {"flag", true},
                         {"big", std::numeric_limits<double>::infinity()},
                         {"text", std::string("1e3")},
                         {"word", std::string("mlp")},
                         {"empty", std::string("")},
                         {"neg", int64_t{-3}}};
  EXPECT_EQ(read_hparams_yaml(path("py.yaml")), expected);
  write_hparams_yaml(path("own.yaml"), expected, "test");
  EXPECT_EQ(read_hparams_yaml(path("own.yaml")), expected);
}

}  // namespace
}  // namespace fulgur::testing
