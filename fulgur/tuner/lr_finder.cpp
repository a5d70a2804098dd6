#include "fulgur/tuner/lr_finder.h"

#include <cmath>

#include <ATen/ops/gradient.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include "fulgur/errors.h"
#include "fulgur/plot/line_chart.h"
#include "fulgur/warnings.h"

namespace fulgur {

LRFinder::LRFinder(const LRFinderOptions& options)
    : mode_(options.mode),
      min_lr_(options.min_lr),
      max_lr_(options.max_lr),
      num_training_(options.num_training) {
  if (mode_ != "exponential" && mode_ != "linear") {
    throw ConfigError(fmt::format(
        "mode=\"{}\" is not a learning rate finder mode: use \"exponential\" or \"linear\"", mode_));
  }
  if (!(min_lr_ > 0.0 && min_lr_ < max_lr_ && std::isfinite(max_lr_))) {
    throw ConfigError(fmt::format(
        "the learning rate finder needs 0 < min_lr < max_lr, got min_lr={} max_lr={}", min_lr_,
        max_lr_));
  }
  if (num_training_ < 1) {
    throw ConfigError(
        fmt::format("num_training={} is not valid: the finder needs at least one step", num_training_));
  }
}

double LRFinder::lr_at(int64_t step) const {
  // Lightning's _ExponentialLR/_LinearLR: the first step keeps the base rate; from then on the
  // ratio counts one step ahead.
  if (step <= 0) return min_lr_;
  const double r = static_cast<double>(step + 1) / static_cast<double>(num_training_);
  return mode_ == "linear" ? min_lr_ + r * (max_lr_ - min_lr_)
                           : min_lr_ * std::pow(max_lr_ / min_lr_, r);
}

void LRFinder::record(double lr, double smoothed_loss) {
  results_.lr.push_back(lr);
  results_.loss.push_back(smoothed_loss);
}

std::optional<size_t> LRFinder::optimal_index(int64_t skip_begin, int64_t skip_end) const {
  const auto n = static_cast<int64_t>(results_.loss.size());
  const int64_t begin = std::max<int64_t>(skip_begin, 0);
  const int64_t end = n - std::max<int64_t>(skip_end, 0);
  std::vector<size_t> index;
  std::vector<double> loss, lr;
  for (int64_t i = begin; i < end; ++i) {
    if (std::isfinite(results_.loss[i])) {
      index.push_back(static_cast<size_t>(i));
      loss.push_back(results_.loss[i]);
      lr.push_back(results_.lr[i]);
    }
  }
  if (loss.size() < 2) return std::nullopt;
  // As Lightning: torch.gradient of the losses with respect to the rates (the rates are its
  // spacing), in float32 as its torch.tensor(list) makes them; the first minimum wins.
  const auto as_float = [](const std::vector<double>& v) {
    return torch::tensor(v, torch::kDouble).to(torch::kFloat);
  };
  const torch::Tensor rates = as_float(lr);
  const int64_t dim = 0;
  const auto gradient = at::gradient(as_float(loss), at::TensorList(rates), at::IntArrayRef(dim))[0];
  return index[static_cast<size_t>(gradient.argmin().item<int64_t>())];
}

std::optional<double> LRFinder::suggestion(int64_t skip_begin, int64_t skip_end) const {
  const auto index = optimal_index(skip_begin, skip_end);
  if (!index) {
    warn("Failed to compute suggestion for learning rate because there are not enough points. "
         "Increase the loop iteration limits or the size of your dataset/dataloader.");
    return std::nullopt;
  }
  return results_.lr[*index];
}

void LRFinder::plot(const std::string& path, bool suggest) const {
  LineChart chart({.title = "Learning rate finder",
                   .x_label = "Learning rate",
                   .y_label = "Loss",
                   .log_x = mode_ == "exponential"});
  chart.add_series("loss", results_.lr, results_.loss);
  if (suggest) {
    if (const auto index = optimal_index()) {
      const double lr = results_.lr[*index];
      chart.set_marker(lr, fmt::format("suggested lr {:.3g}", lr));
    }
  }
  chart.save(path);
}

}  // namespace fulgur
