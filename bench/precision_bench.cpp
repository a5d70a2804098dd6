// precision-bench: training steps per second under "32-true", "bf16-mixed" and "bf16-true" on
// the CPU, for the Fashion-MNIST example's CNN (batch 64) and an MLP 784-1024-10 (batch 256),
// through Trainer.fit on in-memory random data. The precisions alternate within each of --runs
// rounds; prints a markdown table of medians and the ratios to 32-true.
//
//   precision-bench [--runs N] [--steps K]
#include <fmt/format.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cnn_module.h"
#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"
#include "series.h"

namespace {

using Clock = std::chrono::steady_clock;
using fulgur::bench::Series;

constexpr int64_t kWarmupSteps = 5;

class MLP : public fulgur::Module {
 public:
  MLP() : Module("MLP") {
    net_ = register_module("net", torch::nn::Sequential(torch::nn::Linear(784, 1024),
                                                        torch::nn::ReLU(),
                                                        torch::nn::Linear(1024, 10)));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    return torch::cross_entropy_loss(net_->forward(batch.data.flatten(1)), batch.target);
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.01));
  }

 private:
  torch::nn::Sequential net_{nullptr};
};

// Steps per second after the warm-up.
class StepTimer : public fulgur::Callback {
 public:
  void on_train_batch_end(fulgur::Trainer&, fulgur::Module&, const torch::Tensor&, fulgur::Batch&,
                          int64_t batch_idx) override {
    if (batch_idx + 1 == kWarmupSteps) start_ = Clock::now();
    end_ = Clock::now();
    steps_ = batch_idx + 1 - kWarmupSteps;
  }
  double steps_per_second() const {
    return static_cast<double>(steps_) / std::chrono::duration<double>(end_ - start_).count();
  }

 private:
  Clock::time_point start_, end_;
  int64_t steps_ = 0;
};

struct Workload {
  std::string name;
  int64_t batch;
  std::function<std::shared_ptr<fulgur::Module>()> make;
};

double steps_per_second(const Workload& w, const std::string& precision, int64_t steps) {
  torch::manual_seed(0);
  auto x = torch::randn({w.batch * steps, 1, 28, 28});
  auto y = torch::randint(0, 10, {w.batch * steps});
  auto loader = std::make_shared<fulgur::DataLoader>(std::make_shared<fulgur::TensorDataset>(x, y),
                                                     fulgur::DataLoaderOptions{.batch_size = w.batch});
  auto timer = std::make_shared<StepTimer>();
  auto model = w.make();
  fulgur::Trainer trainer({.accelerator = "cpu",
                           .precision = precision,
                           .logger = false,
                           .callbacks = {timer},
                           .max_epochs = 1,
                           .enable_checkpointing = false,
                           .enable_progress_bar = false,
                           .enable_model_summary = false});
  trainer.fit(*model, loader);
  return timer->steps_per_second();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int64_t steps = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::stoi(argv[i + 1]);
    else if (flag == "--steps") steps = std::stoll(argv[i + 1]);
    else {
      std::cerr << "usage: precision-bench [--runs N] [--steps K]\n";
      return 2;
    }
  }
  try {
    torch::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const std::vector<Workload> workloads{
        {"Fashion-MNIST CNN (example), batch 64", 64,
         [] { return std::make_shared<fashion_mnist::CNNModule>(); }},
        {"MLP 784-1024-10, batch 256", 256, [] { return std::make_shared<MLP>(); }}};
    const std::vector<std::string> precisions{"32-true", "bf16-mixed", "bf16-true"};
    std::map<std::string, std::map<std::string, Series>> speed, ratio;
    for (int run = 0; run < runs; ++run) {
      for (const auto& w : workloads) {
        double full = 0;
        for (const auto& p : precisions) {
          const double s = steps_per_second(w, p, steps);
          if (p == "32-true") full = s;
          speed[w.name][p].values.push_back(s);
          ratio[w.name][p].values.push_back(s / full);
        }
      }
    }
    std::cout << fmt::format(
        "Training steps through Trainer.fit on random in-memory data, {} steps timed after {} of "
        "warm-up, {} intra-op threads, LibTorch {}; {} runs, precisions alternating "
        "(median, min – max).\n\n",
        steps - kWarmupSteps, kWarmupSteps, torch::get_num_threads(), TORCH_VERSION, runs);
    std::cout << "| workload | precision | steps/s | ratio to 32-true |\n|---|---|---|---|\n";
    for (const auto& w : workloads) {
      for (const auto& p : precisions) {
        const auto& s = speed[w.name][p];
        const auto& r = ratio[w.name][p];
        std::cout << fmt::format("| {} | {} | {:.1f} ({:.1f} – {:.1f}) | {:.2f} ({:.2f} – {:.2f}) |\n",
                                 w.name, p, s.median(), s.min(), s.max(), r.median(), r.min(),
                                 r.max());
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "precision-bench: error: " << e.what() << '\n';
    return 1;
  }
}
