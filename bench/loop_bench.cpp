// loop-bench: one training measurement per process, for the side-by-side suite that
// bench/run_loop_bench.py runs (raw LibTorch loop vs fulgur's Trainer.fit vs Python).
//
//   loop-bench --impl raw|raw-heap|fulgur|fulgur-bare|loader
//              --workload tiny|medium|cnn|empty|deep [--device cpu|cuda] [--precision P]
//              [--copy-stream] [--cuda-graph]
//              [--steps N] [--warmup W] [--threads T] [--interop T] [--seed S]
//              [--log 0|1] [--phases] [--ops] [--root DIR] [--workers N] [--info]
//
// Workloads (random in-memory data shaped like Fashion-MNIST, uniform in [0, 1), one epoch of
// exactly N batches, generated from the seed before the model, so every implementation -- C++
// or Python -- trains the same numbers from the same initial weights):
//   tiny    MLP 784-32-10, batch 16 (overhead-bound)
//   medium  MLP 784-1024-10, batch 256 (GEMM-bound)
//   cnn     the example's Fashion-MNIST CNN (examples/fashion_mnist/cnn_module.h), batch 64
//   empty   one scalar parameter w, loss = w*w (a batch of 16 is still fetched): whatever a
//           step costs here is the loop's own overhead
//   deep    MLP 784-4096-4096-10, batch 2048: matrix-bound on a GPU (the precision comparison)
//
// --device cuda (bench/gpu/): the model on the GPU; the data stays in page-locked host memory
// and each batch is copied with non_blocking (fulgur: its pinned loader and batch_to_device).
// The clock waits for the GPU at the start and the end of the timed window. --precision (fulgur
// only; the raw loop is 32-true): any Trainer precision, e.g. bf16-mixed or 16-mixed.
// --copy-stream, --cuda-graph (fulgur on cuda only): CUDAAcceleratorOptions::copy_stream (each
// batch copied on a stream of its own) and ::cuda_graph (the step replayed as a CUDA graph).
// All use SGD (lr 0.01, momentum 0.9), cross-entropy, gradients set to none before backward
// (Lightning 2.x's and PyTorch 2.x's zero_grad), and read the loss to the host every 50 steps
// (fulgur: log("train_loss", prog_bar) with log_every_n_steps=50).
//
// Implementations:
//   raw          a hand-written LibTorch loop over whole-batch slices (narrow) of the tensors
//   raw-heap     the same loop after fulgur::keep_activations_in_heap(), the malloc thresholds
//                fulgur's CPU accelerator pins: the limit for fulgur's own overhead
//   fulgur       Trainer.fit with TrainerOptions defaults: progress bar, CSV logger,
//                checkpointing and model summary on (default_root_dir: --root, or a fresh
//                directory under $TMPDIR that is removed afterwards)
//   fulgur-bare  Trainer.fit with enable_progress_bar, logger, enable_checkpointing and
//                enable_model_summary off
//   loader       no training: the fulgur DataLoader alone (batch of the workload, shuffled as
//                the example's training loader, --workers threads), one epoch, batches/s
//
// --threads T calls at::set_num_threads(T) first thing (0: leave LibTorch's default);
// --interop T calls at::set_num_interop_threads(T). --info prints the thread settings the
// process ends up with and exits.
//
// Prints one line, "loop-bench key=value ...": steps_per_s and us_per_step over the steps after
// the warm-up (the clock is read after each optimizer step), run_s (the whole fit or loop:
// setup, every step, checkpoint), peak_rss_mb (VmHWM), loss (the last loss read, a check that
// the implementations did the same work). With --phases, also the mean µs per step spent
// between steps (loop bookkeeping, hooks, logging, the next fetch), in forward (with
// zero_grad), backward and the optimizer step, from clocks read between the phases. With --ops,
// also ops_per_step: the LibTorch operators dispatched per timed step (each one a kernel launch
// or more on a GPU, so fulgur's count beside the raw loop's shows what it adds; an
// aten::_local_scalar_dense is a host read that waits for the GPU), and on stderr each
// operator's count per step.
#include <dlfcn.h>
#include <fmt/format.h>
#include <omp.h>
#include <torch/torch.h>

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

#include "cnn_module.h"
#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/accelerators/host_allocator.h"
#include "fulgur/callbacks/callback.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

constexpr double kLr = 0.01;
constexpr double kMomentum = 0.9;
constexpr int64_t kReadLossEvery = 50;

struct Args {
  std::string impl = "raw";
  std::string workload = "tiny";
  int64_t steps = 0;   // 0: the workload's default
  int64_t warmup = -1;  // -1: steps / 10, at least 1
  int threads = 0;
  int interop = 0;
  uint64_t seed = 0;
  bool log = true;
  bool phases = false;
  bool ops = false;
  bool info = false;
  int workers = 1;
  std::string root;
  std::string device = "cpu";
  std::string precision = "32-true";
  bool copy_stream = false;
  bool cuda_graph = false;
};

struct WorkloadSpec {
  int64_t batch;
  int64_t hidden;  // MLP width; 0 for the others
  int64_t default_steps;
  int64_t hidden_layers = 1;  // MLPs: layers of `hidden` units between input and output
};

WorkloadSpec spec_of(const std::string& workload) {
  if (workload == "tiny") return {16, 32, 3000};
  if (workload == "medium") return {256, 1024, 150};
  if (workload == "cnn") return {64, 0, 60};
  if (workload == "empty") return {16, 0, 5000};
  if (workload == "deep") return {2048, 4096, 100, 2};
  throw std::invalid_argument("unknown --workload " + workload +
                              " (tiny, medium, cnn, empty, deep)");
}

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

int openblas_threads() {
  using Fn = int (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return fn ? fn() : -1;
}

// ---------------------------------------------------------------- the hand-written models

// 784 -> hidden (-> hidden ...) -> 10, ReLU between, registered as fc1, fc2, ... in that order.
std::vector<torch::nn::Linear> mlp_layers(const WorkloadSpec& s) {
  std::vector<torch::nn::Linear> layers{torch::nn::Linear(784, s.hidden)};
  for (int64_t i = 1; i < s.hidden_layers; ++i) layers.emplace_back(s.hidden, s.hidden);
  layers.emplace_back(s.hidden, 10);
  return layers;
}

torch::Tensor mlp_forward(std::vector<torch::nn::Linear>& layers, const torch::Tensor& x) {
  auto h = x.flatten(1);
  for (size_t i = 0; i + 1 < layers.size(); ++i) h = torch::relu(layers[i]->forward(h));
  return layers.back()->forward(h);
}

struct RawMLPImpl : torch::nn::Module {
  explicit RawMLPImpl(const WorkloadSpec& s) : layers(mlp_layers(s)) {
    for (size_t i = 0; i < layers.size(); ++i) {
      register_module("fc" + std::to_string(i + 1), layers[i]);
    }
  }
  torch::Tensor forward(const torch::Tensor& x) { return mlp_forward(layers, x); }
  std::vector<torch::nn::Linear> layers;
};
TORCH_MODULE(RawMLP);

// The example's CNN, layer for layer and in the same registration (= initialisation) order.
struct RawCNNImpl : torch::nn::Module {
  RawCNNImpl() {
    namespace nn = torch::nn;
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)));
    fc1 = register_module("fc1", nn::Linear(64 * 7 * 7, 128));
    dropout = register_module("dropout", nn::Dropout(0.25));
    fc2 = register_module("fc2", nn::Linear(128, 10));
  }
  torch::Tensor forward(const torch::Tensor& images) {
    namespace F = torch::nn::functional;
    auto x = F::max_pool2d(torch::relu(conv1(images)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(torch::relu(conv2(x)), F::MaxPool2dFuncOptions(2));
    x = dropout(torch::relu(fc1(x.flatten(1))));
    return fc2(x);
  }
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc1{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::nn::Linear fc2{nullptr};
};
TORCH_MODULE(RawCNN);

struct RawEmptyImpl : torch::nn::Module {
  RawEmptyImpl() { w = register_parameter("w", torch::ones({})); }
  torch::Tensor forward() { return w * w; }
  torch::Tensor w;
};
TORCH_MODULE(RawEmpty);

// ---------------------------------------------------------------- the fulgur modules

std::shared_ptr<torch::optim::Optimizer> make_sgd(std::vector<torch::Tensor> params) {
  return std::make_shared<torch::optim::SGD>(std::move(params),
                                             torch::optim::SGDOptions(kLr).momentum(kMomentum));
}

class MLPModule : public fulgur::Module {
 public:
  MLPModule(const WorkloadSpec& s, bool log)
      : Module("MLPModule"), log_(log), layers_(mlp_layers(s)) {
    for (size_t i = 0; i < layers_.size(); ++i) {
      register_module("fc" + std::to_string(i + 1), layers_[i]);
    }
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    auto loss = torch::cross_entropy_loss(mlp_forward(layers_, batch.data), batch.target);
    if (log_) log("train_loss", loss, {.prog_bar = true});
    return loss;
  }
  fulgur::OptimizerConfig configure_optimizers() override { return make_sgd(parameters()); }

 private:
  bool log_;
  std::vector<torch::nn::Linear> layers_;
};

// The example's CNNModule (it logs train_loss to the bar), with the suite's optimizer.
class SgdCNNModule : public fashion_mnist::CNNModule {
 public:
  fulgur::OptimizerConfig configure_optimizers() override { return make_sgd(parameters()); }
};

class EmptyModule : public fulgur::Module {
 public:
  explicit EmptyModule(bool log) : Module("EmptyModule"), log_(log) {
    w_ = register_parameter("w", torch::ones({}));
  }
  torch::Tensor training_step(fulgur::Batch&, int64_t) override {
    auto loss = w_ * w_;
    if (log_) log("train_loss", loss, {.prog_bar = true});
    return loss;
  }
  fulgur::OptimizerConfig configure_optimizers() override { return make_sgd(parameters()); }

 private:
  bool log_;
  torch::Tensor w_;
};

// ---------------------------------------------------------------- operator counts

// Every operator dispatched in the timed window, by name, in every thread (on a GPU, autograd
// runs backward in a thread of its own).
struct OpCounter {
  std::atomic<bool> on{false};
  std::mutex mutex;
  std::map<std::string, int64_t> counts;

  void install() {
    at::addGlobalCallback(
        at::RecordFunctionCallback(
            [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
              auto& self = instance();
              if (self.on.load(std::memory_order_relaxed)) {
                std::lock_guard<std::mutex> lock(self.mutex);
                ++self.counts[fn.name()];
              }
              return nullptr;
            })
            .scopes({at::RecordScope::FUNCTION}));
  }
  int64_t total() const {
    int64_t n = 0;
    for (const auto& [_, c] : counts) n += c;
    return n;
  }
  static OpCounter& instance() {
    static OpCounter counter;
    return counter;
  }
};

// ---------------------------------------------------------------- clocks

// Clock readings of the timed window and, optionally, of the phases of every timed step.
struct StepClock {
  int64_t warmup = 1;
  int64_t steps = 0;
  bool phases = false;
  bool cuda = false;  // wait for the GPU before reading the clock at the window's edges
  Clock::time_point window_start, window_end;
  int64_t timed_steps = 0;
  // Phase totals over the timed window (seconds): "between" runs from the end of one step to
  // the start of the next (loop bookkeeping, logging, the next fetch), "forward" includes
  // zero_grad, "optimizer" ends when the step is done.
  double between = 0, forward = 0, backward = 0, optimizer = 0;
  Clock::time_point t_prev_end, t_start, t_forward_end, t_backward_end;

  bool in_window(int64_t index) const { return index >= warmup; }
  // Called after the optimizer step of step `index` (0-based).
  void step_done(int64_t index) {
    if (cuda && (index + 1 == warmup || index + 1 == steps)) torch::cuda::synchronize();
    const auto now = Clock::now();
    if (phases && in_window(index)) {
      between += seconds_between(t_prev_end, t_start);
      forward += seconds_between(t_start, t_forward_end);
      backward += seconds_between(t_forward_end, t_backward_end);
      optimizer += seconds_between(t_backward_end, now);
    }
    t_prev_end = now;
    if (index + 1 == warmup) OpCounter::instance().on = true;
    if (index + 1 == steps) OpCounter::instance().on = false;
    if (index + 1 == warmup) window_start = now;
    if (index + 1 > warmup) {
      timed_steps = index + 1 - warmup;
      window_end = now;
    }
  }
};

// fulgur's clock: on_train_batch_start follows the fetch and batch_to_device;
// on_before_backward follows training_step and zero_grad; on_before_optimizer_step follows
// backward; on_train_batch_end follows the optimizer step. Registered before the default
// callbacks, so the progress bar's and checkpoint's batch-end hooks count in "between".
class ClockCallback : public fulgur::Callback {
 public:
  explicit ClockCallback(StepClock& clock) : c_(clock) {}
  std::string name() const override { return "ClockCallback"; }
  void on_train_batch_start(fulgur::Trainer&, fulgur::Module&, fulgur::Batch&,
                            int64_t) override {
    if (c_.phases) c_.t_start = Clock::now();
  }
  void on_before_backward(fulgur::Trainer&, fulgur::Module&, const torch::Tensor&) override {
    if (c_.phases) c_.t_forward_end = Clock::now();
  }
  void on_before_optimizer_step(fulgur::Trainer&, fulgur::Module&, fulgur::Optimizer&) override {
    if (c_.phases) c_.t_backward_end = Clock::now();
  }
  void on_train_batch_end(fulgur::Trainer&, fulgur::Module&, const torch::Tensor&, fulgur::Batch&,
                          int64_t idx) override {
    c_.step_done(idx);
  }

 private:
  StepClock& c_;
};

// ---------------------------------------------------------------- data

struct Data {
  torch::Tensor x, y;
};

Data make_data(int64_t batch, int64_t steps) {
  const int64_t n = batch * steps;
  return {torch::rand({n, 1, 28, 28}), torch::randint(0, 10, {n})};
}

// ---------------------------------------------------------------- the raw loop

template <typename Model, typename Forward>
double raw_loop(Model& model, Forward&& forward, const Data& d, int64_t batch, int64_t steps,
                StepClock& clock, const torch::Device& device) {
  model->to(device);
  model->train();
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(kLr).momentum(kMomentum));
  auto params = model->parameters();
  double last_loss = 0;
  clock.t_prev_end = Clock::now();
  for (int64_t i = 0; i < steps; ++i) {
    auto x = d.x.narrow(0, i * batch, batch);
    auto y = d.y.narrow(0, i * batch, batch);
    if (device.is_cuda()) {  // on the CPU even a no-op to() costs dispatcher time
      x = x.to(device, /*non_blocking=*/true);
      y = y.to(device, /*non_blocking=*/true);
    }
    if (clock.phases) clock.t_start = Clock::now();
    auto loss = forward(x, y);
    for (auto& p : params) p.mutable_grad().reset();  // zero_grad(set_to_none=True)
    if (clock.phases) clock.t_forward_end = Clock::now();
    loss.backward();
    if (clock.phases) clock.t_backward_end = Clock::now();
    optimizer.step();
    clock.step_done(i);
    if ((i + 1) % kReadLossEvery == 0 || i + 1 == steps) last_loss = loss.template item<double>();
  }
  return last_loss;
}

double run_raw(const Args& a, const WorkloadSpec& s, const Data& d, StepClock& clock) {
  if (a.precision != "32-true") {
    throw std::invalid_argument("the raw loop trains in 32-true only; --precision is for fulgur");
  }
  const torch::Device device(a.device);
  if (s.hidden > 0) {
    RawMLP model(s);
    return raw_loop(
        model,
        [&](const torch::Tensor& x, const torch::Tensor& y) {
          return torch::cross_entropy_loss(model->forward(x), y);
        },
        d, s.batch, a.steps, clock, device);
  }
  if (a.workload == "cnn") {
    RawCNN model;
    return raw_loop(
        model,
        [&](const torch::Tensor& x, const torch::Tensor& y) {
          return torch::cross_entropy_loss(model->forward(x), y);
        },
        d, s.batch, a.steps, clock, device);
  }
  RawEmpty model;
  return raw_loop(
      model, [&](const torch::Tensor&, const torch::Tensor&) { return model->forward(); }, d,
      s.batch, a.steps, clock, device);
}

// ---------------------------------------------------------------- fulgur

// The last logged loss, read back the way a user would: from the trainer's metrics.
class LastLoss : public fulgur::Callback {
 public:
  std::string name() const override { return "LastLoss"; }
  void on_train_batch_end(fulgur::Trainer&, fulgur::Module&, const torch::Tensor& loss,
                          fulgur::Batch&, int64_t idx) override {
    if ((idx + 1) % kReadLossEvery == 0 || idx + 1 == steps) value = loss.item<double>();
  }
  int64_t steps = 0;
  double value = 0;
};

double run_fulgur(const Args& a, const WorkloadSpec& s, const Data& d, StepClock& clock,
                  bool defaults) {
  std::shared_ptr<fulgur::Module> module;
  if (s.hidden > 0) {
    module = std::make_shared<MLPModule>(s, a.log);
  } else if (a.workload == "cnn") {
    module = std::make_shared<SgdCNNModule>();
  } else {
    module = std::make_shared<EmptyModule>(a.log);
  }
  auto loader = std::make_shared<fulgur::DataLoader>(
      std::make_shared<fulgur::TensorDataset>(d.x, d.y),
      fulgur::DataLoaderOptions{.batch_size = s.batch});
  auto last_loss = std::make_shared<LastLoss>();
  last_loss->steps = a.steps;
  fulgur::TrainerOptions o;
  o.accelerator = a.device;
  if (a.copy_stream || a.cuda_graph) {
    o.accelerator = std::make_shared<fulgur::CUDAAccelerator>(
        fulgur::CUDAAcceleratorOptions{.copy_stream = a.copy_stream, .cuda_graph = a.cuda_graph});
  }
  o.precision = a.precision;
  o.max_epochs = 1;
  o.callbacks = {std::make_shared<ClockCallback>(clock), last_loss};
  std::filesystem::path root;
  bool remove_root = false;
  if (defaults) {
    if (!a.root.empty()) {
      root = a.root;
    } else {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern =
          (std::filesystem::path(tmp ? tmp : "/tmp") / "loop-bench-XXXXXX").string();
      if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
      root = pattern;
      remove_root = true;
    }
    o.default_root_dir = root.string();
  } else {
    o.logger = false;
    o.enable_checkpointing = false;
    o.enable_progress_bar = false;
    o.enable_model_summary = false;
  }
  {
    fulgur::Trainer trainer(o);
    trainer.fit(*module, loader);
  }
  if (remove_root) std::filesystem::remove_all(root);
  return last_loss->value;
}

// ---------------------------------------------------------------- the loader alone

// One shuffled epoch of the workload's batches through fulgur's DataLoader, as the example's
// training loader builds them (shuffle, --workers threads); returns batches/s.
double run_loader(const Args& a, const WorkloadSpec& s, const Data& d, int64_t& batches) {
  fulgur::DataLoader loader(std::make_shared<fulgur::TensorDataset>(d.x, d.y),
                            fulgur::DataLoaderOptions{.batch_size = s.batch,
                                                      .shuffle = true,
                                                      .seed = 42,
                                                      .num_workers = a.workers});
  double checksum = 0;
  batches = 0;
  const auto start = Clock::now();
  for (auto& batch : loader) {
    // Touch the batch as a step would (its first element), without computing on it.
    checksum += static_cast<double>(batch.target.data_ptr<int64_t>()[0]);
    ++batches;
  }
  const double secs = seconds_between(start, Clock::now());
  if (checksum < 0) std::cerr << "";
  return static_cast<double>(batches) / secs;
}

// ---------------------------------------------------------------- main

void print_info() {
  fmt::print("loop-bench info at_threads={} interop_threads={} omp_max_threads={} "
             "openblas_threads={} hardware_concurrency={} OMP_NUM_THREADS={} "
             "OPENBLAS_NUM_THREADS={}\n",
             at::get_num_threads(), at::get_num_interop_threads(), omp_get_max_threads(),
             openblas_threads(), std::thread::hardware_concurrency(),
             std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "unset",
             std::getenv("OPENBLAS_NUM_THREADS") ? std::getenv("OPENBLAS_NUM_THREADS") : "unset");
  std::cout << at::get_parallel_info() << std::flush;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--impl") a.impl = value();
    else if (flag == "--workload") a.workload = value();
    else if (flag == "--steps") a.steps = std::stoll(value());
    else if (flag == "--warmup") a.warmup = std::stoll(value());
    else if (flag == "--threads") a.threads = std::stoi(value());
    else if (flag == "--interop") a.interop = std::stoi(value());
    else if (flag == "--seed") a.seed = std::stoull(value());
    else if (flag == "--log") a.log = value() != "0";
    else if (flag == "--root") a.root = value();
    else if (flag == "--workers") a.workers = std::stoi(value());
    else if (flag == "--phases") a.phases = true;
    else if (flag == "--ops") a.ops = true;
    else if (flag == "--info") a.info = true;
    else if (flag == "--device") a.device = value();
    else if (flag == "--precision") a.precision = value();
    else if (flag == "--copy-stream") a.copy_stream = true;
    else if (flag == "--cuda-graph") a.cuda_graph = true;
    else throw std::invalid_argument("unknown flag " + flag);
  }
  if (a.impl != "raw" && a.impl != "raw-heap" && a.impl != "fulgur" && a.impl != "fulgur-bare" &&
      a.impl != "loader") {
    throw std::invalid_argument("unknown --impl " + a.impl +
                                " (raw, raw-heap, fulgur, fulgur-bare, loader)");
  }
  if (a.device != "cpu" && a.device != "cuda") {
    throw std::invalid_argument("unknown --device " + a.device + " (cpu, cuda)");
  }
  if ((a.copy_stream || a.cuda_graph) && (a.device != "cuda" || a.impl.rfind("fulgur", 0) != 0)) {
    throw std::invalid_argument(
        "--copy-stream and --cuda-graph are for --impl fulgur or fulgur-bare on --device cuda");
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args a = parse(argc, argv);
    if (a.interop > 0) at::set_num_interop_threads(a.interop);
    if (a.threads > 0) at::set_num_threads(a.threads);
    if (a.info) {
      print_info();
      return 0;
    }
    const WorkloadSpec s = spec_of(a.workload);
    if (a.steps <= 0) a.steps = s.default_steps;
    if (a.warmup < 0) a.warmup = std::max<int64_t>(1, a.steps / 10);
    if (a.warmup >= a.steps) throw std::invalid_argument("--warmup must be below --steps");

    torch::manual_seed(a.seed);
    Data d = make_data(s.batch, a.steps);
    if (a.device == "cuda") {
      if (!torch::cuda::is_available()) throw std::invalid_argument("--device cuda: no CUDA device");
      d = {d.x.pin_memory(), d.y.pin_memory()};
    }
    torch::manual_seed(a.seed + 1);  // the model's initialisation, then dropout

    StepClock clock;
    clock.warmup = a.warmup;
    clock.steps = a.steps;
    clock.phases = a.phases;
    clock.cuda = a.device == "cuda";
    double loss = 0;
    if (a.ops) OpCounter::instance().install();
    const auto start = Clock::now();
    if (a.impl == "loader") {
      int64_t batches = 0;
      const double rate = run_loader(a, s, d, batches);
      fmt::print("loop-bench impl=loader workload={} batch={} batches={} workers={} threads={} "
                 "batches_per_s={:.1f} us_per_batch={:.2f} peak_rss_mb={:.1f}\n",
                 a.workload, s.batch, batches, a.workers, at::get_num_threads(), rate, 1e6 / rate,
                 peak_rss_mb());
      return 0;
    }
    if (a.impl == "raw" || a.impl == "raw-heap") {
      if (a.impl == "raw-heap") fulgur::keep_activations_in_heap();
      loss = run_raw(a, s, d, clock);
    } else {
      loss = run_fulgur(a, s, d, clock, a.impl == "fulgur");
    }
    const double run_s = seconds_between(start, Clock::now());
    const double window = seconds_between(clock.window_start, clock.window_end);
    const double n = static_cast<double>(clock.timed_steps);
    std::string phases;
    if (a.phases && n > 0) {
      phases = fmt::format(" between_us={:.2f} forward_us={:.2f} backward_us={:.2f} "
                           "optimizer_us={:.2f}",
                           1e6 * clock.between / n, 1e6 * clock.forward / n,
                           1e6 * clock.backward / n, 1e6 * clock.optimizer / n);
    }
    if (a.ops && n > 0) {
      auto& ops = OpCounter::instance();
      phases += fmt::format(" ops_per_step={:.2f}", static_cast<double>(ops.total()) / n);
      for (const auto& [name, count] : ops.counts) {
        fmt::print(stderr, "ops {:8.2f} {}\n", static_cast<double>(count) / n, name);
      }
    }
    // The progress bar and model summary write to stdout; the result is one line on its own.
    std::fflush(stdout);
    std::cout << std::flush;
    fmt::print("\nloop-bench impl={} workload={} device={} precision={} batch={} steps={} "
               "warmup={} threads={} "
               "interop_threads={} steps_per_s={:.2f} us_per_step={:.2f} run_s={:.4f} "
               "peak_rss_mb={:.1f} loss={:.6f}{}\n",
               a.impl, a.workload, a.device, a.precision, s.batch, a.steps, a.warmup,
               at::get_num_threads(),
               at::get_num_interop_threads(), n / window, 1e6 * window / n, run_s, peak_rss_mb(),
               loss, phases);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "loop-bench: error: " << e.what() << '\n';
    return 1;
  }
}
