// extending-example — fulgur's four extension points in one short fit on the CPU:
//
//   accelerator  TracedCPUAccelerator  registered as "traced_cpu"           (by name)
//   strategy     TimedStrategy         registered as "timed_single_device"  (by name)
//   precision    StaticScalePrecision  loss scale 1024                      (an instance)
//   callback     BatchCounter                                               (an instance)
//
// It trains a two-layer classifier on synthetic data for 2 epochs of 8 batches, prints lines
// tagged [accelerator], [strategy], [precision], [callback] and [checkpoint] as each part acts,
// saves a checkpoint and reads the parts' states back from it, then trains the same model with
// the stock parts ("cpu", "auto", "32-true") and prints how far the weights of the two runs
// lie apart (0: a power-of-two loss scale is exact).
//
//   extending-example [DIR]     (writes DIR/extending.ckpt; DIR defaults to ".")
//
// A failure is one line on stderr, `extending-example: error: <message>`, and exit code 1.
#include <fmt/format.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "batch_counter.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/seed.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"
#include "register_extensions.h"
#include "static_scale_precision.h"
#include "timed_strategy.h"

namespace {

constexpr uint64_t kSeed = 42;

// 8 features; the class is which side of a fixed hyperplane a point lies on.
struct SyntheticData {
  std::shared_ptr<fulgur::TensorDataset> train, val;

  SyntheticData() {
    torch::manual_seed(7);  // the data; seed_everything(kSeed) later fixes the weights
    auto points = torch::randn({320, 8});
    auto labels = (points.matmul(torch::linspace(-1.0, 1.0, 8)) > 0).to(torch::kLong);
    train =
        std::make_shared<fulgur::TensorDataset>(points.slice(0, 0, 256), labels.slice(0, 0, 256));
    val = std::make_shared<fulgur::TensorDataset>(points.slice(0, 256), labels.slice(0, 256));
  }
  std::shared_ptr<fulgur::DataLoader> train_loader() const {
    return std::make_shared<fulgur::DataLoader>(
        train, fulgur::DataLoaderOptions{.batch_size = 32, .shuffle = true, .seed = kSeed});
  }
  std::shared_ptr<fulgur::DataLoader> val_loader() const {
    return std::make_shared<fulgur::DataLoader>(val, fulgur::DataLoaderOptions{.batch_size = 32});
  }
};

class TinyClassifier : public fulgur::Module {
 public:
  TinyClassifier() : Module("TinyClassifier") {
    hidden_ = register_module("hidden", torch::nn::Linear(8, 16));
    out_ = register_module("out", torch::nn::Linear(16, 2));
    save_hyperparameters({{"lr", 0.5}});
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return out_->forward(torch::relu(hidden_->forward(x)));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    auto loss = torch::cross_entropy_loss(forward(batch.data), batch.target);
    log("train_loss", loss, {.on_step = false, .on_epoch = true});
    return loss;
  }
  void validation_step(fulgur::Batch& batch, int64_t) override {
    const auto logits = forward(batch.data);
    log("val_acc", logits.argmax(1).eq(batch.target).to(torch::kFloat).mean());
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    const double lr = std::get<double>(hparams().at("lr"));
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(lr));
  }

 private:
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
};

// What both runs share: two epochs, no logger, no checkpoint callback, no progress bar.
fulgur::TrainerOptions quiet(fulgur::TrainerOptions options) {
  options.logger = false;
  options.max_epochs = 2;
  options.enable_checkpointing = false;
  options.enable_progress_bar = false;
  options.enable_model_summary = false;
  return options;
}

double max_difference(TinyClassifier& a, TinyClassifier& b) {
  double diff = 0;
  const auto pa = a.parameters(), pb = b.parameters();
  for (size_t i = 0; i < pa.size(); ++i) {
    diff = std::max(diff, (pa[i] - pb[i]).abs().max().item<double>());
  }
  return diff;
}

int run(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  extending::register_extensions();
  const SyntheticData data;

  // ---- the run with the four extensions ----
  auto precision = std::make_shared<extending::StaticScalePrecision>(1024.0);
  auto counter = std::make_shared<extending::BatchCounter>();
  fulgur::seed_everything(kSeed);
  TinyClassifier model;
  fulgur::Trainer trainer(quiet({.accelerator = "traced_cpu",
                                 .strategy = "timed_single_device",
                                 .precision = precision,
                                 .callbacks = {counter}}));
  trainer.fit(model, data.train_loader(), data.val_loader());

  // The Trainer's accessors are forwarders to the Strategy's parts: the same objects.
  fmt::print("[precision] {}: {} losses scaled by {}, {} gradient unscales, {} optimizer steps\n",
             trainer.precision_plugin().name(), precision->scaled_losses(), precision->scale(),
             precision->unscales(), precision->optimizer_steps());
  const auto stats = trainer.accelerator().device_stats(trainer.strategy().root_device());
  fmt::print("[accelerator] {}: device_stats traced_cpu_setups={}\n", trainer.accelerator().name(),
             stats.at("traced_cpu_setups"));
  fmt::print("[callback] {}: {} batches, {} optimizer steps with finite gradients\n",
             counter->name(), counter->total_batches(), counter->optimizer_steps_seen());

  // ---- the parts' states in a checkpoint, read back through the Strategy ----
  const std::string path = (dir / "extending.ckpt").string();
  trainer.save_checkpoint(path);
  const auto checkpoint = trainer.strategy().load_checkpoint(path);
  const auto callback_state =
      checkpoint.at("callbacks").toGenericDict().at(counter->state_key()).toGenericDict();
  const auto precision_state = checkpoint.at(precision->state_key()).toGenericDict();
  fmt::print(
      "[checkpoint] {}: global_step={} callbacks.{}.batches={} {}.scale={} {}.optimizer_steps={}\n",
      std::filesystem::path(path).filename().string(), checkpoint.at("global_step").toInt(),
      counter->state_key(), callback_state.at("batches").toInt(), precision->state_key(),
      precision_state.at("scale").toDouble(), precision->state_key(),
      precision_state.at("optimizer_steps").toInt());

  // ---- the same fit with the stock parts ----
  fulgur::seed_everything(kSeed);
  TinyClassifier reference;
  fulgur::Trainer stock(quiet({.accelerator = "cpu", .precision = "32-true"}));
  stock.fit(reference, data.train_loader(), data.val_loader());
  fmt::print("[reference] {}/{}/{}: max |weight difference| = {:.3g}\n", stock.accelerator().name(),
             stock.strategy().name(), stock.precision_plugin().name(),
             max_difference(model, reference));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const c10::Error& e) {
    std::cerr << "extending-example: error: " << e.what_without_backtrace() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "extending-example: error: " << e.what() << std::endl;
  }
  return 1;
}
