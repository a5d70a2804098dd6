// ddp-bench: training throughput of one process against two DDP processes (fulgur's launcher,
// Gloo over loopback) on the same global batch, how much of a step the gradient all-reduce
// would take on its own, and the effect of the bucket size. Every configuration runs as a
// fresh program (`--worker`), interleaved with the others in each of --runs rounds; prints a
// markdown table of medians.
//
//   ddp-bench [--runs N] [--steps K] [--global-batch B]
//   ddp-bench --worker --devices N [--threads T] --bucket-mb X --steps K --global-batch B
//             --out FILE
#include <fmt/format.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/strategies/ddp.h"
#include "fulgur/strategies/single_device_strategy.h"
#include "fulgur/trainer.h"
#include "series.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kWarmupSteps = 5;
constexpr int kAllReduceRepeats = 20;

struct Options {
  bool worker = false;
  int runs = 5;
  int64_t steps = 40;
  int64_t global_batch = 128;
  int devices = 1;
  int threads = 0;  // one process: its intra-op threads (0: all the cores)
  double bucket_mb = 25;
  std::string out;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--worker") {
      o.worker = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--runs") o.runs = std::stoi(value);
    else if (flag == "--steps") o.steps = std::stoll(value);
    else if (flag == "--global-batch") o.global_batch = std::stoll(value);
    else if (flag == "--devices") o.devices = std::stoi(value);
    else if (flag == "--threads") o.threads = std::stoi(value);
    else if (flag == "--bucket-mb") o.bucket_mb = std::stod(value);
    else if (flag == "--out") o.out = value;
    else throw std::invalid_argument("unknown flag " + flag);
  }
  return o;
}

// 784-1024-1024-10: 1.86M parameters, 7.5 MB of gradients per step to all-reduce.
class MLP : public fulgur::Module {
 public:
  MLP() : Module("MLP") {
    torch::manual_seed(0);
    net_ = register_module("net", torch::nn::Sequential(
                                      torch::nn::Linear(784, 1024), torch::nn::ReLU(),
                                      torch::nn::Linear(1024, 1024), torch::nn::ReLU(),
                                      torch::nn::Linear(1024, 10)));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    return torch::cross_entropy_loss(net_->forward(batch.data), batch.target);
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.01));
  }

 private:
  torch::nn::Sequential net_{nullptr};
};

// Times the steps after the warm-up and, at the end of training, an all-reduce of a tensor as
// large as all the gradients, alone.
class StepTimer : public fulgur::Callback {
 public:
  void on_train_batch_end(fulgur::Trainer& trainer, fulgur::Module&, const torch::Tensor&,
                          fulgur::Batch&, int64_t batch_idx) override {
    if (batch_idx + 1 == kWarmupSteps) start_ = Clock::now();
    end_ = Clock::now();
    (void)trainer;
  }
  void on_train_end(fulgur::Trainer& trainer, fulgur::Module& module) override {
    int64_t numel = 0;
    for (const auto& p : module.parameters()) numel += p.numel();
    auto flat = torch::ones({numel});
    trainer.strategy().barrier();
    const auto begin = Clock::now();
    for (int i = 0; i < kAllReduceRepeats; ++i) flat = trainer.strategy().reduce(flat, fulgur::ReduceOp::Sum);
    all_reduce_s_ = std::chrono::duration<double>(Clock::now() - begin).count() / kAllReduceRepeats;
  }
  double seconds() const { return std::chrono::duration<double>(end_ - start_).count(); }
  double all_reduce_s() const { return all_reduce_s_; }

 private:
  Clock::time_point start_, end_;
  double all_reduce_s_ = 0;
};

int worker(const Options& o) {
  const int64_t per_rank = o.global_batch / o.devices;
  torch::manual_seed(1);
  auto x = torch::randn({o.global_batch * o.steps, 784});
  auto y = torch::randint(0, 10, {o.global_batch * o.steps});
  auto loader = std::make_shared<fulgur::DataLoader>(
      std::make_shared<fulgur::TensorDataset>(x, y),
      fulgur::DataLoaderOptions{.batch_size = per_rank});
  std::shared_ptr<fulgur::Strategy> strategy;
  if (o.devices == 1) {
    // By default the whole machine, as the DDP processes share it between them.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    torch::set_num_threads(o.threads > 0 ? o.threads : cores);
    strategy = std::make_shared<fulgur::SingleDeviceStrategy>();
  } else {
    strategy = std::make_shared<fulgur::DDPStrategy>(fulgur::DDPOptions{.bucket_cap_mb = o.bucket_mb});
  }
  auto timer = std::make_shared<StepTimer>();
  MLP model;
  fulgur::Trainer trainer({.accelerator = "cpu",
                           .strategy = strategy,
                           .devices = o.devices,
                           .logger = false,
                           .callbacks = {timer},
                           .max_epochs = 1,
                           .enable_checkpointing = false,
                           .enable_progress_bar = false,
                           .enable_model_summary = false});
  trainer.fit(model, loader);
  if (trainer.is_global_zero()) {
    std::ofstream out(o.out);
    out << fmt::format("steps_per_s={}\nall_reduce_s={}\nthreads={}\n",
                       (o.steps - kWarmupSteps) / timer->seconds(), timer->all_reduce_s(),
                       torch::get_num_threads());
  }
  return 0;
}

struct Config {
  std::string name;
  int devices;
  double bucket_mb;
  int threads = 0;
};

std::map<std::string, double> run_worker(const Options& o, const Config& c, const fs::path& out) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args{self, "--worker", "--devices", std::to_string(c.devices),
                                "--threads", std::to_string(c.threads),
                                "--bucket-mb", fmt::format("{}", c.bucket_mb), "--steps",
                                std::to_string(o.steps), "--global-batch",
                                std::to_string(o.global_batch), "--out", out.string()};
  std::string command;
  for (const auto& a : args) command += "'" + a + "' ";
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("the worker failed: " + command);
  }
  std::map<std::string, double> values;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) values[line.substr(0, eq)] = std::stod(line.substr(eq + 1));
  }
  return values;
}

using fulgur::bench::Series;

int driver(const Options& o) {
  const std::vector<Config> configs{{"1 process", 1, 25},
                                    {"1 process, 1 thread", 1, 25, 1},
                                    {"2 DDP processes, 25 MB buckets (default)", 2, 25},
                                    {"2 DDP processes, 1 MB buckets", 2, 1},
                                    {"2 DDP processes, 100 MB buckets (one bucket)", 2, 100}};
  const fs::path out = fs::temp_directory_path() / fmt::format("ddp-bench-{}.txt", ::getpid());
  std::map<std::string, Series> speed, share, ratio;
  std::map<std::string, int> threads;
  for (int run = 0; run < o.runs; ++run) {
    double single = 0;
    for (const auto& c : configs) {
      const auto v = run_worker(o, c, out);
      const double steps_per_s = v.at("steps_per_s");
      if (&c == &configs.front()) single = steps_per_s;
      speed[c.name].values.push_back(steps_per_s);
      ratio[c.name].values.push_back(steps_per_s / single);
      share[c.name].values.push_back(v.at("all_reduce_s") * steps_per_s);
      threads[c.name] = static_cast<int>(v.at("threads"));
    }
  }
  fs::remove(out);
  std::cout << fmt::format(
      "MLP 784-1024-1024-10 (1.86M parameters, 7.5 MB of gradients), SGD, global batch {} "
      "(per rank: {} / processes), {} steps timed after {} of warm-up, on CPU with Gloo over "
      "loopback; {} runs, configurations interleaved (median, min – max). \"all-reduce share\" "
      "is one all-reduce of all gradients, alone, per step time: an upper bound on the "
      "communication, which the Reducer overlaps with backward.\n\n",
      o.global_batch, o.global_batch, o.steps - kWarmupSteps, kWarmupSteps, o.runs);
  std::cout << "| configuration | threads per process | steps/s | ratio to 1 process (all cores) | "
               "all-reduce share of a step |\n|---|---|---|---|---|\n";
  for (const auto& c : configs) {
    const auto& s = speed[c.name];
    std::cout << fmt::format("| {} | {} | {:.1f} ({:.1f} – {:.1f}) | {:.2f} | {} |\n", c.name,
                             threads[c.name], s.median(), s.min(), s.max(), ratio[c.name].median(),
                             c.devices == 1 ? std::string("–")
                                            : fmt::format("{:.0f}%", 100 * share[c.name].median()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    return o.worker ? worker(o) : driver(o);
  } catch (const std::exception& e) {
    std::cerr << "ddp-bench: error: " << e.what() << '\n';
    return 1;
  }
}
