#include "fulgur/tuner/batch_size_scaling.h"

#include <iostream>

#include <fmt/format.h>

#include "fulgur/errors.h"
#include "fulgur/module.h"
#include "fulgur/rng_states.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/hparam_access.h"
#include "fulgur/warnings.h"

namespace fulgur {
void check_batch_size_finder_options(const BatchSizeFinderOptions& o) {
  if (o.mode != "power" && o.mode != "binsearch") {
    throw ConfigError(fmt::format(
        "mode=\"{}\" is not a batch size finder mode: use \"power\" or \"binsearch\"", o.mode));
  }
  if (o.steps_per_trial < 1 || o.init_val < 1 || o.max_trials < 1 || o.max_val < 1) {
    throw ConfigError(fmt::format(
        "the batch size finder needs steps_per_trial, init_val, max_trials and max_val >= 1, got "
        "{}, {}, {} and {}",
        o.steps_per_trial, o.init_val, o.max_trials, o.max_val));
  }
  if (!(o.margin >= 0.0 && o.margin < 1.0)) {
    throw ConfigError(
        fmt::format("the batch size finder's margin must be in [0, 1), got {}", o.margin));
  }
  if (o.init_val > o.max_val) {
    throw ConfigError(fmt::format("the batch size finder's init_val ({}) is above max_val ({})",
                                  o.init_val, o.max_val));
  }
}

namespace {

// Runs the trials; remembers the largest size that fitted and the training set's size.
class Search {
 public:
  Search(Trainer& trainer, Module& module, const TuningData& data,
         const BatchSizeFinderOptions& options, TrainerFn stage)
      : module_(module), data_(data), options_(options), stage_(stage) {
    // As Lightning's __scale_batch_reset_params: a fit trial validates only where the user's
    // fit would within its steps (an epoch shorter than them, an integer val_check_interval);
    // an evaluation trial runs steps_per_trial batches.
    trial_ = trial_options(trainer.options(), {});
    const BatchCount steps = options.steps_per_trial;
    switch (stage) {
      case TrainerFn::Fitting:
        trial_.max_steps = options.steps_per_trial;
        trial_.limit_train_batches = 1.0;
        trial_.limit_val_batches = steps;
        break;
      case TrainerFn::Validating: trial_.limit_val_batches = steps; break;
      case TrainerFn::Testing: trial_.limit_test_batches = steps; break;
      case TrainerFn::Predicting: trial_.limit_predict_batches = steps; break;
    }
  }

  // True when `size` ran its trial; false when it ran out of memory.
  bool fits(int64_t size) {
    set_hparam(module_, data_.datamodule, options_.batch_arg_name, size);
    try {
      samples_ = evaluation_trial(trial_, module_, data_, stage_);
    } catch (const std::exception& error) {
      if (!is_oom_error(error)) throw;
      return false;
    }
    if (!largest_fit_ || size > *largest_fit_) largest_fit_ = size;
    return true;
  }

  // Doubling, up to max_val; `size` itself once it covers the whole training set (Lightning's
  // _adjust_batch_size: a larger batch would run the same single batch).
  int64_t doubled(int64_t size) const {
    if (samples_ > 0 && size >= samples_) {
      std::cout << fmt::format(
          "The batch size {} is greater or equal than the length of your dataset: {}.\n", size,
          samples_);
      return size;
    }
    const int64_t next = size * 2;
    if (next >= options_.max_val && size < options_.max_val) return options_.max_val;
    if (next > options_.max_val) {
      std::cout << fmt::format(
          "Reached the maximum batch size limit of {}. Stopping search.\n", options_.max_val);
      return size;
    }
    return next;
  }

  std::optional<int64_t> largest_fit() const { return largest_fit_; }

  static void say(int64_t size, bool fitted, int64_t next) {
    std::cout << fmt::format("Batch size {} {}, trying batch size {}\n", size,
                             fitted ? "succeeded" : "failed", next);
  }

 private:
  Module& module_;
  const TuningData& data_;
  const BatchSizeFinderOptions& options_;
  TrainerFn stage_;
  TrainerOptions trial_;
  std::optional<int64_t> largest_fit_;
  int64_t samples_ = 0;  // the training set's size, from the last trial that ran
};

void run_power(Search& search, const BatchSizeFinderOptions& o) {
  int64_t size = o.init_val;
  for (int64_t trial = 0; trial < o.max_trials; ++trial) {
    if (search.fits(size)) {
      const int64_t next = search.doubled(size);
      if (next == size || trial + 1 == o.max_trials) return;
      Search::say(size, true, next);
      size = next;
    } else {
      const int64_t next = size / 2;
      if (next >= 1) Search::say(size, false, next);
      if (search.largest_fit() || next < 1) return;  // halving back to a size that fitted
      size = next;
    }
  }
}

void run_binsearch(Search& search, const BatchSizeFinderOptions& o) {
  int64_t size = o.init_val;
  std::optional<int64_t> failed;  // the smallest size that ran out of memory
  // As Lightning: only trials that fit count towards max_trials (the bisection ends anyway).
  for (int64_t fitted_trials = 0;;) {
    const bool fitted = search.fits(size);
    if (fitted) ++fitted_trials;
    if (!fitted) failed = size;
    const int64_t low = search.largest_fit().value_or(0);
    const int64_t next = failed ? (low + *failed) / 2 : search.doubled(size);
    // Done when nothing is left untried between the bounds (or doubling is capped).
    const bool done = failed ? next <= low || next < 1 : next == size;
    const bool last = fitted_trials == o.max_trials;
    // As Lightning, a failure is reported before the search knows whether it is done.
    if (next >= 1 && (!fitted || (!done && !last))) Search::say(size, fitted, next);
    if (done || last) return;
    size = next;
  }
}

}  // namespace

std::optional<int64_t> scale_batch_size(Trainer& trainer, Module& module, const TuningData& data,
                                        const BatchSizeFinderOptions& options, TrainerFn stage) {
  if (trainer.options().fast_dev_run.batches > 0) {
    warn("Skipping batch size scaler since `fast_dev_run` is enabled.");
    return std::nullopt;
  }
  check_tunable(trainer, "The batch size finder");
  check_batch_size_finder_options(options);
  if (data.train_dataloader || data.val_dataloader) {
    throw MisconfigurationError(
        "The batch size finder cannot be used with dataloaders passed directly to fit(): "
        "return them from the Module's or the DataModule's dataloader hooks, built with the "
        "batch_size hyperparameter");
  }
  const auto original = get_hparam(module, data.datamodule, options.batch_arg_name);
  if (!original) {
    throw MisconfigurationError(fmt::format(
        "Field {0} not found in the hparams of the Module or the DataModule: "
        "save_hyperparameters({{{{\"{0}\", 32}}}}) and build the loaders with it",
        options.batch_arg_name));
  }

  Search search(trainer, module, data, options, stage);
  {
    ModuleSnapshot snapshot(module);
    RngIsolation isolated_rng;
    try {
      options.mode == "power" ? run_power(search, options) : run_binsearch(search, options);
    } catch (...) {
      snapshot.restore();
      set_hparam(module, data.datamodule, options.batch_arg_name, *original);
      throw;
    }
    snapshot.restore();
  }
  auto found = search.largest_fit();
  if (found && options.mode == "binsearch" && options.margin > 0) {
    const auto reduced =
        std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(*found) * (1 - options.margin)));
    if (reduced != *found) {
      std::cout << fmt::format("Applying margin of {:.1f}%, reducing batch size from {} to {}\n",
                               options.margin * 100, *found, reduced);
      found = reduced;
    }
  }
  if (!found) {
    set_hparam(module, data.datamodule, options.batch_arg_name, *original);
    throw Error(fmt::format(
        "The batch size finder found no batch size that fits in memory: {} and every smaller "
        "size tried ran out of memory",
        options.init_val));
  }
  set_hparam(module, data.datamodule, options.batch_arg_name, *found);
  std::cout << fmt::format(
      "Finished batch size finder, will continue with full run using batch size {}\n", *found);
  return found;
}

}  // namespace fulgur
