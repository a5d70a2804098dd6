// soak-fit: a long 2-rank DDP fit through the Trainer (fulgur's launcher starts rank 1) with
// asynchronous checkpointing every few steps, for scripts/soak. Each rank samples its own
// resident memory, open file descriptors and threads about once a second into
// <dir>/rank<R>.csv ("seconds,rss_kb,fds,threads"); scripts/soak reads the curves.
//
//   soak-fit --dir D --seconds S [--every N]
#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "fulgur/callbacks/callback.h"
#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/io/async_checkpoint_io.h"
#include "fulgur/io/directory_listing.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace {

struct Args {
  std::string dir;
  int64_t seconds = 300;
  int64_t every = 25;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--dir") a.dir = value;
    else if (key == "--seconds") a.seconds = std::stoll(value);
    else if (key == "--every") a.every = std::stoll(value);
    else throw std::invalid_argument("unknown argument " + key);
  }
  if (a.dir.empty()) throw std::invalid_argument("--dir is required");
  return a;
}

// The value of a "Key:   value kB" line of /proc/self/status.
int64_t proc_status(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return -1;
}

int64_t open_fds() {
  // Listed as fulgur lists directories (fulgur/io/directory_listing.h), less the listing's own
  // descriptor.
  return static_cast<int64_t>(fulgur::list_directory("/proc/self/fd").size()) - 1;
}

// Appends one sample a second, from the training thread (where the loop's allocations happen).
class ResourceSampler : public fulgur::Callback {
 public:
  explicit ResourceSampler(std::string dir) : dir_(std::move(dir)) {}
  std::string name() const override { return "ResourceSampler"; }
  void on_fit_start(fulgur::Trainer& trainer, fulgur::Module&) override {
    out_.open(fmt::format("{}/rank{}.csv", dir_, trainer.global_rank()), std::ios::trunc);
    out_ << "seconds,rss_kb,fds,threads\n";
    start_ = Clock::now();
    sample();
  }
  void on_train_batch_end(fulgur::Trainer&, fulgur::Module&, const torch::Tensor&, fulgur::Batch&,
                          int64_t) override {
    if (Clock::now() - last_ >= std::chrono::seconds(1)) sample();
  }

 private:
  using Clock = std::chrono::steady_clock;
  void sample() {
    last_ = Clock::now();
    const double seconds = std::chrono::duration<double>(last_ - start_).count();
    out_ << fmt::format("{:.2f},{},{},{}\n", seconds, proc_status("VmRSS"), open_fds(),
                        proc_status("Threads"))
         << std::flush;
  }
  std::string dir_;
  std::ofstream out_;
  Clock::time_point start_, last_;
};

// 64 → 256 → 10, cross-entropy: a checkpoint of about 70k parameters with Adam's state.
class SoakModel : public fulgur::Module {
 public:
  SoakModel() : Module("SoakModel") {
    torch::manual_seed(0);
    hidden_ = register_module("hidden", torch::nn::Linear(64, 256));
    out_ = register_module("out", torch::nn::Linear(256, 10));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    auto loss = torch::cross_entropy_loss(forward(batch.data), batch.target);
    log("train_loss", loss, {.prog_bar = true, .sync_dist = true});
    return loss;
  }
  void validation_step(fulgur::Batch& batch, int64_t) override {
    log("val_loss", torch::cross_entropy_loss(forward(batch.data), batch.target),
        {.sync_dist = true});
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::Adam>(parameters(), torch::optim::AdamOptions(1e-3));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return out_->forward(torch::relu(hidden_->forward(x)));
  }

 private:
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    torch::manual_seed(7);
    auto x = torch::randn({4096, 64});
    auto y = torch::randint(0, 10, {4096});
    auto train = std::make_shared<fulgur::DataLoader>(
        std::make_shared<fulgur::TensorDataset>(x, y),
        fulgur::DataLoaderOptions{.batch_size = 32, .shuffle = true, .num_workers = 1});
    auto val = std::make_shared<fulgur::DataLoader>(
        std::make_shared<fulgur::TensorDataset>(x.slice(0, 0, 256), y.slice(0, 0, 256)),
        fulgur::DataLoaderOptions{.batch_size = 64});

    auto checkpoint = std::make_shared<fulgur::ModelCheckpoint>(fulgur::ModelCheckpointOptions{
        .monitor = "train_loss", .save_last = true, .save_top_k = 2,
        .every_n_train_steps = args.every});
    SoakModel model;
    fulgur::Trainer trainer({.accelerator = "cpu",
                             .strategy = "ddp",
                             .devices = 2,
                             .plugins = {std::make_shared<fulgur::AsyncCheckpointIO>()},
                             .callbacks = {checkpoint,
                                           std::make_shared<ResourceSampler>(args.dir)},
                             .max_epochs = 1000000,
                             .max_time = fmt::format("00:{:02}:{:02}:{:02}", args.seconds / 3600,
                                                     args.seconds / 60 % 60, args.seconds % 60),
                             .enable_progress_bar = false,
                             .enable_model_summary = false,
                             .default_root_dir = args.dir});
    trainer.fit(model, train, val);
    std::cout << fmt::format("soak-fit: rank {} done: {} steps, best {}\n", trainer.global_rank(),
                             trainer.global_step(), checkpoint->best_model_path());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "soak-fit: error: " << e.what() << '\n';
    return 1;
  }
}
