#pragma once
// LearningRateFinder: Lightning's callback form of the tuner's learning-rate range test. At
// fit start it runs the search (see tuner/lr_find.h) on the fit's data, restores the weights,
// and with update_attr writes the suggestion into the Module's hparams and into the optimizer
// the fit already built, so training continues at the suggested rate.
#include <optional>

#include "fulgur/callbacks/callback.h"
#include "fulgur/tuner/lr_finder.h"

namespace fulgur {

class LearningRateFinder : public Callback {
 public:
  explicit LearningRateFinder(LRFinderOptions options = {});
  std::string name() const override { return "LearningRateFinder"; }
  void on_fit_start(Trainer& trainer, Module& module) override;
  const LRFinderOptions& options() const { return options_; }
  // The search's results; nullopt before fit or when it was skipped (fast_dev_run).
  const std::optional<LRFinder>& optimal_lr() const { return optimal_lr_; }

 private:
  LRFinderOptions options_;
  std::optional<LRFinder> optimal_lr_;
};

}  // namespace fulgur
