#pragma once
// LRFinder: the results of a learning-rate range test (Lightning's _LRFinder) — the rate tried
// at each optimizer step and the smoothed loss it gave — with Lightning's suggestion (the
// steepest descent of the loss) and a plot of loss against rate, written as SVG.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fulgur {

struct LRFinderOptions {
  double min_lr = 1e-8;
  double max_lr = 1.0;
  int64_t num_training = 100;  // optimizer steps, one rate each
  std::string mode = "exponential";  // or "linear": how the rate grows from step to step
  // Stop once the smoothed loss exceeds this multiple of the best so far; unset: never.
  std::optional<double> early_stop_threshold = 4.0;
  // Write the suggestion into the Module's hparams (attr_name, or "lr" / "learning_rate").
  bool update_attr = true;
  std::string attr_name;
};

class LRFinder {
 public:
  struct Results {
    std::vector<double> lr;
    std::vector<double> loss;  // smoothed; NaN where a step returned no loss
  };

  // Raises ConfigError for an unknown mode, rates that are not 0 < min_lr < max_lr, or
  // num_training < 1.
  explicit LRFinder(const LRFinderOptions& options);

  // The rate of optimizer step `step` (0-based), as Lightning's schedulers give it: min_lr at
  // step 0, then min_lr·(max_lr/min_lr)^((step+1)/num_training) (exponential) or
  // min_lr + (step+1)/num_training·(max_lr − min_lr) (linear).
  double lr_at(int64_t step) const;
  void record(double lr, double smoothed_loss);

  const Results& results() const { return results_; }
  const std::string& mode() const { return mode_; }

  // The rate where the loss falls fastest: over the losses without the first `skip_begin` and
  // the last `skip_end`, finite ones only, the argmin of their gradient with respect to the rate
  // (torch.gradient with the rates as spacing, in float32, as Lightning). nullopt (with a
  // warning) below two points.
  std::optional<double> suggestion(int64_t skip_begin = 10, int64_t skip_end = 1) const;
  // Index into results() of the suggestion; nullopt as above (without the warning).
  std::optional<size_t> optimal_index(int64_t skip_begin = 10, int64_t skip_end = 1) const;

  // Loss against rate (log-scaled rates in exponential mode), the suggestion marked when
  // `suggest`; written atomically as SVG. Raises Error when it cannot be written.
  void plot(const std::string& path, bool suggest = true) const;

 private:
  std::string mode_;
  double min_lr_;
  double max_lr_;
  int64_t num_training_;
  Results results_;
};

}  // namespace fulgur
