// progress-bar-bench: what the terminal progress bar costs. A tiny MLP (32-16-4, batch 16)
// trains through Trainer.fit at well over 1,000 steps/s; the ProgressBar, drawing as on a
// terminal (into /dev/null), is wrapped in a callback that times every call into it. Prints the
// steps/s, the bar's time per step and its share of the fit's time (target: under 0.5%), and,
// fits with and without the bar interleaved, their steps/s ratio.
//
//   progress-bar-bench [--runs N] [--steps K]
#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "fulgur/callbacks/progress_bar.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/trainer.h"
#include "series.h"

namespace {

using Clock = std::chrono::steady_clock;
using fulgur::bench::Series;

class TinyMLP : public fulgur::Module {
 public:
  TinyMLP() : Module("TinyMLP") {
    net_ = register_module("net", torch::nn::Sequential(torch::nn::Linear(32, 16),
                                                        torch::nn::ReLU(),
                                                        torch::nn::Linear(16, 4)));
  }
  torch::Tensor training_step(fulgur::Batch& batch, int64_t) override {
    auto loss = torch::cross_entropy_loss(net_->forward(batch.data), batch.target);
    log("train_loss", loss, {.prog_bar = true});
    return loss;
  }
  fulgur::OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.01));
  }

 private:
  torch::nn::Sequential net_{nullptr};
};

// Forwards the bar's training hooks to it and adds up the time spent inside them.
class TimedBar : public fulgur::Callback {
 public:
  explicit TimedBar(std::FILE* sink) : bar_(sink, /*interactive=*/1) {}
  void on_train_epoch_start(fulgur::Trainer& t, fulgur::Module& m) override {
    timed([&] { bar_.on_train_epoch_start(t, m); });
  }
  void on_train_batch_end(fulgur::Trainer& t, fulgur::Module& m, const torch::Tensor& loss,
                          fulgur::Batch& batch, int64_t batch_idx) override {
    timed([&] { bar_.on_train_batch_end(t, m, loss, batch, batch_idx); });
  }
  void on_train_epoch_end(fulgur::Trainer& t, fulgur::Module& m) override {
    timed([&] { bar_.on_train_epoch_end(t, m); });
  }
  double seconds = 0;

 private:
  template <typename F>
  void timed(F&& call) {
    const auto start = Clock::now();
    call();
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  fulgur::ProgressBar bar_;
};

struct Fit {
  double seconds;
  double bar_seconds;
};

Fit fit(int64_t steps, bool with_bar, std::FILE* sink) {
  torch::manual_seed(0);
  TinyMLP module;
  auto x = torch::randn({steps * 16, 32});
  auto y = torch::randint(0, 4, {steps * 16});
  auto loader = std::make_shared<fulgur::DataLoader>(
      std::make_shared<fulgur::TensorDataset>(x, y), fulgur::DataLoaderOptions{.batch_size = 16});
  auto bar = std::make_shared<TimedBar>(sink);
  fulgur::TrainerOptions o{.logger = false, .max_epochs = 1};
  if (with_bar) o.callbacks = {bar};
  o.enable_checkpointing = false;
  o.enable_progress_bar = false;  // the timed bar, when there is one, is the only bar
  o.enable_model_summary = false;
  fulgur::Trainer trainer(o);
  const auto start = Clock::now();
  trainer.fit(module, loader);
  return {std::chrono::duration<double>(Clock::now() - start).count(), bar->seconds};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int64_t steps = 5000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::stoi(argv[i + 1]);
    if (flag == "--steps") steps = std::stoll(argv[i + 1]);
  }
  torch::set_num_threads(1);
  std::FILE* sink = std::fopen("/dev/null", "w");
  if (!sink) return 1;
  fit(200, true, sink);  // warm-up
  Series with_rate, without_rate, bar_us, share, ratio;
  for (int r = 0; r < runs; ++r) {
    const Fit bar = fit(steps, true, sink);
    const Fit plain = fit(steps, false, sink);
    with_rate.values.push_back(steps / bar.seconds);
    without_rate.values.push_back(steps / plain.seconds);
    bar_us.values.push_back(1e6 * bar.bar_seconds / steps);
    share.values.push_back(100 * bar.bar_seconds / bar.seconds);
    ratio.values.push_back((steps / bar.seconds) / (steps / plain.seconds));
  }
  std::fclose(sink);
  fmt::print(
      "Tiny MLP 32-16-4, batch 16, {} steps per fit through Trainer.fit, 1 intra-op thread, the "
      "bar drawing as on a terminal (into /dev/null) with one prog_bar metric; {} runs, fits "
      "with and without the bar alternating (median, min – max).\n\n",
      steps, runs);
  fmt::print("| measure | median | min – max |\n|---|---|---|\n");
  auto row = [](const char* name, const Series& s, const char* format) {
    fmt::print("| {} | {} | {} – {} |\n", name, fmt::format(fmt::runtime(format), s.median()),
               fmt::format(fmt::runtime(format), s.min()), fmt::format(fmt::runtime(format), s.max()));
  };
  row("steps/s with the bar", with_rate, "{:.0f}");
  row("steps/s without a bar", without_rate, "{:.0f}");
  row("time inside the bar per step (µs)", bar_us, "{:.2f}");
  row("bar's share of the fit's time (%)", share, "{:.3f}");
  row("ratio: steps/s with / without the bar", ratio, "{:.3f}");
  return 0;
}
