// ddp-trainer-worker: a small fit through the Trainer with strategy "ddp", started once by
// ddp_launch_test.cpp; fulgur's launcher starts the other ranks. Each rank writes
// <dir>/rank<R>.txt ("name=value" lines): its pid as soon as it trains, what all_gather gave
// at the first step, then its final weights and metrics. A failure can be injected into one rank.
//
//   ddp-trainer-worker --dir D [--devices N] [--num-nodes N] [--batch B] [--steps K]
//                      [--accumulate A] [--step-ms MS] [--fail-rank R --fail-step S --fail-how throw|kill]
//                      [--batchnorm 0|1 (a SyncBatchNorm after the hidden layer)] [--sync-batchnorm 0|1]
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "fulgur/callbacks/model_checkpoint.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/nn/sync_batch_norm.h"
#include "fulgur/trainer.h"

namespace {

struct Args {
  std::string dir;
  int devices = 2;
  int num_nodes = 1;
  int64_t batch = 4;
  int64_t steps = 6;
  int64_t accumulate = 1;
  int step_ms = 0;
  int fail_rank = -1;
  int64_t fail_step = -1;
  std::string fail_how = "throw";
  bool batchnorm = false;
  bool sync_batchnorm = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--dir") a.dir = value;
    else if (key == "--devices") a.devices = std::stoi(value);
    else if (key == "--num-nodes") a.num_nodes = std::stoi(value);
    else if (key == "--batch") a.batch = std::stoll(value);
    else if (key == "--steps") a.steps = std::stoll(value);
    else if (key == "--accumulate") a.accumulate = std::stoll(value);
    else if (key == "--step-ms") a.step_ms = std::stoi(value);
    else if (key == "--fail-rank") a.fail_rank = std::stoi(value);
    else if (key == "--fail-step") a.fail_step = std::stoll(value);
    else if (key == "--fail-how") a.fail_how = value;
    else if (key == "--batchnorm") a.batchnorm = value == "1";
    else if (key == "--sync-batchnorm") a.sync_batchnorm = value == "1";
    else throw std::invalid_argument("unknown argument " + key);
  }
  if (a.dir.empty()) throw std::invalid_argument("--dir is required");
  return a;
}

std::string flat(const torch::Tensor& t) {
  auto v = t.flatten().to(torch::kFloat64).contiguous();
  std::string out;
  for (int64_t i = 0; i < v.numel(); ++i) out += fmt::format("{}{:.9g}", i ? "," : "", v[i].item<double>());
  return out;
}

// 4 → 3 (→ batch norm) → 1, mean squared error.
class TinyRegression : public fulgur::Module {
 public:
  explicit TinyRegression(const Args& args) : Module("TinyRegression"), args_(args) {
    torch::manual_seed(0);
    hidden_ = register_module("hidden", torch::nn::Linear(4, 3));
    out_ = register_module("out", torch::nn::Linear(3, 1));
    if (args.batchnorm) norm_ = register_module("norm", fulgur::nn::SyncBatchNorm(3));
  }
  void on_fit_start() override {
    rank_ = trainer()->global_rank();
    write("pid", std::to_string(::getpid()), /*append=*/false);
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t batch_idx) override {
    if (rank_ == args_.fail_rank && batch_idx == args_.fail_step) {
      if (args_.fail_how == "kill") ::raise(SIGKILL);
      throw std::runtime_error(fmt::format("injected failure in rank {} at step {}", rank_,
                                           batch_idx));
    }
    if (batch_idx == 0) record_all_gather();
    if (args_.step_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(args_.step_ms));
    auto loss = torch::mse_loss(forward(batch.data), batch.target);
    // The mean over ranks of rank + 1: (1 + … + world) / world.
    log("rank_plus_one", static_cast<double>(rank_ + 1), {.on_step = false, .on_epoch = true,
                                                          .sync_dist = true});
    log("train_loss", loss, {.sync_dist = true});
    return loss;
  }
  void validation_step(fulgur::Batch& batch, int64_t) override {
    // Every validation sample counted once across the ranks.
    log("val_samples", static_cast<double>(batch.data.size(0)),
        {.reduce_fx = fulgur::ReduceFx::Sum, .sync_dist = true});
    log("val_loss", torch::mse_loss(forward(batch.data), batch.target), {.sync_dist = true});
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto h = hidden_->forward(x);
    if (norm_) h = norm_->forward(h);
    return out_->forward(torch::tanh(h));
  }
  // Each rank's [10 × rank, 10 × rank + 1] gathered; then a sync_grads gather of [rank + 1] × 2
  // that rank j weighs by (j + 1) × [1, 2, 3, ...]: the gradient reaching rank r is the sum over
  // the ranks of what each gave to r's slice.
  void record_all_gather() {
    const auto gathered = all_gather(torch::tensor({10.0 * rank_, 10.0 * rank_ + 1}));
    write("gathered_shape", fmt::format("{}", fmt::join(gathered.sizes(), ",")));
    write("gathered", flat(gathered));
    auto x = torch::full({2}, static_cast<double>(rank_ + 1), torch::requires_grad());
    const auto stacked = all_gather(x, /*sync_grads=*/true);
    const auto weights = torch::arange(1.0, stacked.numel() + 1.0).view(stacked.sizes());
    (stacked * weights * static_cast<double>(rank_ + 1)).sum().backward();
    write("sync_grad", flat(x.grad()));
  }
  void write(const std::string& name, const std::string& value, bool append = true) const {
    std::ofstream out(fmt::format("{}/rank{}.txt", args_.dir, rank_),
                      append ? std::ios::app : std::ios::trunc);
    out << name << '=' << value << '\n';
  }

 private:
  const Args& args_;
  int rank_ = 0;
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
  fulgur::nn::SyncBatchNorm norm_{nullptr};
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    // The same data in every process; the Trainer gives each rank its shard.
    torch::manual_seed(7);
    const int64_t global_batch = args.batch * args.devices * args.num_nodes;
    auto x = torch::randn({global_batch * args.steps, 4});
    auto y = torch::randn({global_batch * args.steps, 1});
    auto train = std::make_shared<fulgur::DataLoader>(
        std::make_shared<fulgur::TensorDataset>(x, y),
        fulgur::DataLoaderOptions{.batch_size = args.batch});
    auto val = std::make_shared<fulgur::DataLoader>(
        std::make_shared<fulgur::TensorDataset>(x.slice(0, 0, 9), y.slice(0, 0, 9)),
        fulgur::DataLoaderOptions{.batch_size = 2});

    TinyRegression model(args);
    fulgur::Trainer trainer({.accelerator = "cpu",
                             .strategy = "ddp",
                             .devices = args.devices,
                             .num_nodes = args.num_nodes,
                             .sync_batchnorm = args.sync_batchnorm,
                             .max_epochs = 1,
                             .enable_progress_bar = false,
                             .enable_model_summary = false,
                             .accumulate_grad_batches = args.accumulate,
                             .default_root_dir = args.dir});
    trainer.fit(model, train, val);

    std::vector<torch::Tensor> parts;
    for (const auto& p : model.parameters()) parts.push_back(p.detach().flatten());
    model.write("world_size", std::to_string(trainer.world_size()));
    model.write("weights", flat(torch::cat(parts)));
    std::vector<torch::Tensor> buffers;
    for (const auto& b : model.buffers()) buffers.push_back(b.detach().flatten());
    if (!buffers.empty()) model.write("buffers", flat(torch::cat(buffers).to(torch::kDouble)));
    for (const auto& [key, value] : trainer.callback_metrics()) {
      model.write(key, fmt::format("{:.9g}", value));
    }
    model.write("log_dir", trainer.log_dir());
    if (auto* checkpoint = trainer.checkpoint_callback()) {
      model.write("best_model_path", checkpoint->best_model_path());
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ddp-trainer-worker: error: " << e.what() << '\n';
    return 1;
  }
}
