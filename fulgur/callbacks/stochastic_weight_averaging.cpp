#include "fulgur/callbacks/stochastic_weight_averaging.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <type_traits>

#include "fulgur/callbacks/batch_norm_options.h"
#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/loops/fit_loop.h"
#include "fulgur/module.h"
#include "fulgur/optim/optimizer.h"
#include "fulgur/optim/optimizer_config.h"
#include "fulgur/optim/swa_lr.h"
#include "fulgur/trainer.h"
#include "fulgur/warnings.h"

namespace fulgur {
namespace {

[[noreturn]] void state_error(const std::string& what) {
  throw CheckpointError(fmt::format("the state of StochasticWeightAveraging {}", what));
}

}  // namespace

StochasticWeightAveraging::StochasticWeightAveraging(StochasticWeightAveragingOptions options)
    : options_(std::move(options)) {
  const bool start_ok = std::visit(
      [](auto start) {
        if constexpr (std::is_same_v<decltype(start), double>)
          return start >= 0.0 && start <= 1.0;
        else
          return start >= 1;
      },
      options_.swa_epoch_start);
  if (!start_ok) {
    throw MisconfigurationError(
        "swa_epoch_start should be a >0 integer or a float between 0 and 1.");
  }
  bool lrs_ok = !options_.swa_lrs.empty();
  for (double lr : options_.swa_lrs) lrs_ok = lrs_ok && lr > 0.0;
  if (!lrs_ok) {
    throw MisconfigurationError(
        "The `swa_lrs` should be a positive float, or a list of positive floats");
  }
  if (options_.annealing_strategy != "cos" && options_.annealing_strategy != "linear") {
    throw MisconfigurationError(
        fmt::format("annealing_strategy must be one of 'cos' or 'linear', got '{}'",
                    options_.annealing_strategy));
  }
  if (options_.annealing_epochs < 0) {
    throw MisconfigurationError(fmt::format(
        "annealing_epochs must be equal or greater than 0, got {}", options_.annealing_epochs));
  }
  if (!options_.avg_fn) options_.avg_fn = swa_avg_fn();
}

StochasticWeightAveraging::~StochasticWeightAveraging() = default;

int64_t StochasticWeightAveraging::swa_start() const {
  return std::max<int64_t>(std::get<int64_t>(options_.swa_epoch_start) - 1, 0);
}

int64_t StochasticWeightAveraging::n_averaged() const {
  return n_averaged_.defined() ? n_averaged_.item<int64_t>() : init_n_averaged_;
}

void StochasticWeightAveraging::setup(Trainer&, Module& module, const std::string& stage) {
  if (stage != "fit") return;
  // Lightning's deepcopy(pl_module): the parameters first (they are averaged), then the buffers.
  torch::NoGradGuard no_grad;
  average_.clear();
  for (const auto& p : module.named_parameters(/*recurse=*/true)) {
    average_.emplace_back(p.key(), p.value().detach().clone());
  }
  parameter_count_ = average_.size();
  for (const auto& b : module.named_buffers(/*recurse=*/true)) {
    average_.emplace_back(b.key(), b.value().detach().clone());
  }
}

void StochasticWeightAveraging::on_fit_start(Trainer& trainer, Module& module) {
  if (trainer.optimizers().size() != 1) {
    throw MisconfigurationError("SWA currently works with 1 `optimizer`.");
  }
  if (trainer.lr_scheduler_configs().size() > 1) {
    throw MisconfigurationError("SWA currently not supported for more than 1 `lr_scheduler`.");
  }
  const auto max_epochs = trainer.max_epochs();
  if (!max_epochs || *max_epochs == -1) {
    throw MisconfigurationError(
        "StochasticWeightAveraging averages up to the last epoch: set Trainer(max_epochs=...)");
  }
  if (const double* fraction = std::get_if<double>(&options_.swa_epoch_start)) {
    options_.swa_epoch_start = static_cast<int64_t>(static_cast<double>(*max_epochs) * *fraction);
  }
  contains_batch_norm_ = false;
  for (const auto& m : module.modules(/*include_self=*/false)) {
    contains_batch_norm_ = contains_batch_norm_ || batch_norm_options(*m) != nullptr;
  }
  max_epochs_ = *max_epochs;
  if (contains_batch_norm_) trainer.set_max_epochs(max_epochs_ + 1);

  if (average_state_) {
    torch::NoGradGuard no_grad;
    const c10::impl::GenericDict saved = std::move(*average_state_);
    average_state_.reset();
    for (auto& [key, tensor] : average_) {
      if (!saved.contains(key) || !saved.at(key).isTensor() ||
          saved.at(key).toTensor().sizes() != tensor.sizes()) {
        state_error(fmt::format(
            "has no tensor \"{}\" of the Module's shape in \"average_model_state\"", key));
      }
      tensor.copy_(saved.at(key).toTensor());
    }
  }
}

void StochasticWeightAveraging::on_train_epoch_start(Trainer& trainer, Module& module) {
  const int64_t epoch = trainer.current_epoch();
  if (!initialized_ && swa_start() <= epoch && epoch <= swa_end()) {
    initialized_ = true;
    const torch::Device device = options_.device.value_or(module.device());
    for (auto& entry : average_) entry.second = entry.second.to(device);
    torch::optim::Optimizer& optimizer = trainer.optimizers().front()->optimizer();
    std::vector<double> swa_lrs = options_.swa_lrs;
    if (swa_lrs.size() == 1) swa_lrs.resize(optimizer.param_groups().size(), swa_lrs.front());
    scheduler_ = std::make_shared<SWALR>(optimizer, swa_lrs, options_.annealing_epochs,
                                         options_.annealing_strategy);
    if (scheduler_state_) {
      scheduler_->load_state_dict(*scheduler_state_, "the state of StochasticWeightAveraging");
    } else if (epoch != swa_start()) {
      warn(
          "SWA is initializing after swa_start without any checkpoint data. This may be caused "
          "by loading a checkpoint from an older version of PyTorch Lightning.");
    }
    auto& configs = trainer.lr_scheduler_configs();
    SchedulerConfig swa_config{.scheduler = scheduler_};
    if (!configs.empty()) {
      const SchedulerConfig& current = configs.front();
      if (current.interval != "epoch" || current.frequency != 1) {
        warn(
            fmt::format("SWA is currently only supported every epoch. Found {} with interval "
                        "\"{}\" and frequency {}",
                        current.scheduler->name(), current.interval, current.frequency));
      }
      if (trainer.is_global_zero()) {
        std::cout << fmt::format("Swapping scheduler `{}` for `{}`\n", current.scheduler->name(),
                                 scheduler_->name());
      }
      replaced_ = std::make_shared<SchedulerConfig>(current);
      configs.front() = swa_config;
    } else {
      configs.push_back(swa_config);
    }
    if (!n_averaged_.defined()) {
      n_averaged_ =
          torch::tensor(init_n_averaged_, torch::dtype(torch::kLong).device(module.device()));
    }
  }
  if (swa_start() <= epoch && epoch <= swa_end() && epoch > latest_update_epoch_) {
    update_parameters(module);
    latest_update_epoch_ = epoch;
  }
  if (epoch == swa_end() + 1) {  // only reached with batch norms: the epoch added for them
    transfer_weights(module);
    reset_batch_norm_and_save_state(module);
    trainer.fit_loop().skip_backward = true;
  }
}

void StochasticWeightAveraging::on_train_epoch_end(Trainer& trainer, Module&) {
  trainer.fit_loop().skip_backward = false;
}

void StochasticWeightAveraging::on_train_end(Trainer& trainer, Module& module) {
  // current_epoch counts the epoch that just ended.
  if (contains_batch_norm_ && trainer.current_epoch() - 1 == swa_end() + 1) {
    trainer.set_max_epochs(max_epochs_);
    reset_momenta();
  } else if (trainer.current_epoch() - 1 == swa_end()) {
    transfer_weights(module);
  }
}

void StochasticWeightAveraging::update_parameters(Module& module) {
  torch::NoGradGuard no_grad;
  const auto params = module.parameters();
  if (params.size() != parameter_count_) {
    throw MisconfigurationError(
        fmt::format("StochasticWeightAveraging: the Module has {} parameters and had {} at setup",
                    params.size(), parameter_count_));
  }
  const bool first = n_averaged_.item<int64_t>() == 0;
  for (size_t i = 0; i < params.size(); ++i) {
    torch::Tensor& averaged = average_[i].second;
    const torch::Tensor current = params[i].detach().to(averaged.device());
    averaged.copy_(first ? current
                         : options_.avg_fn(averaged, current, n_averaged_.to(averaged.device())));
  }
  n_averaged_ += 1;
}

void StochasticWeightAveraging::transfer_weights(Module& module) const {
  torch::NoGradGuard no_grad;
  const auto params = module.parameters();
  for (size_t i = 0; i < params.size() && i < parameter_count_; ++i) {
    params[i].detach().copy_(average_[i].second.to(params[i].device()));
  }
}

void StochasticWeightAveraging::reset_batch_norm_and_save_state(Module& module) {
  torch::NoGradGuard no_grad;
  momenta_.clear();
  for (const auto& m : module.modules(/*include_self=*/false)) {
    torch::nn::BatchNormOptions* options = batch_norm_options(*m);
    if (options == nullptr) continue;
    for (auto& buffer : m->named_buffers(/*recurse=*/false)) {
      if (buffer.key() == "running_mean" || buffer.key() == "num_batches_tracked") {
        buffer.value().zero_();
      } else if (buffer.key() == "running_var") {
        buffer.value().fill_(1);
      }
    }
    momenta_.push_back({m, options->momentum()});
    options->momentum(c10::nullopt);  // a cumulative average over the epoch
  }
}

void StochasticWeightAveraging::reset_momenta() {
  for (const SavedMomentum& saved : momenta_) {
    if (torch::nn::BatchNormOptions* options = batch_norm_options(*saved.module)) {
      options->momentum(saved.momentum);
    }
  }
  momenta_.clear();
}

c10::IValue StochasticWeightAveraging::state_dict() {
  auto state = make_checkpoint_dict();
  state.insert("n_averaged", n_averaged());
  state.insert("latest_update_epoch", latest_update_epoch_);
  if (scheduler_) {
    state.insert("scheduler_state", scheduler_->state_dict());
  } else if (scheduler_state_) {
    state.insert("scheduler_state", *scheduler_state_);
  } else {
    state.insert("scheduler_state", c10::IValue());
  }
  if (average_.empty()) {
    state.insert("average_model_state", c10::IValue());
  } else {
    auto average = make_checkpoint_dict();
    for (const auto& [key, tensor] : average_) average.insert(key, tensor);
    state.insert("average_model_state", average);
  }
  return state;
}

void StochasticWeightAveraging::load_state_dict(const c10::IValue& state) {
  if (!state.isGenericDict()) state_error("is not a dict");
  const auto dict = state.toGenericDict();
  auto integer = [&](const char* key) {
    if (!dict.contains(key) || !dict.at(key).isInt())
      state_error(fmt::format("has no int \"{}\"", key));
    return dict.at(key).toInt();
  };
  auto optional_dict = [&](const char* key) -> std::optional<c10::impl::GenericDict> {
    if (!dict.contains(key)) state_error(fmt::format("has no \"{}\"", key));
    const c10::IValue value = dict.at(key);
    if (value.isNone()) return std::nullopt;
    if (!value.isGenericDict())
      state_error(fmt::format("has a {} in \"{}\", not a dict", value.tagKind(), key));
    return value.toGenericDict();
  };
  const int64_t n = integer("n_averaged");
  const int64_t latest = integer("latest_update_epoch");
  auto scheduler_state = optional_dict("scheduler_state");
  auto average_state = optional_dict("average_model_state");
  init_n_averaged_ = n;
  latest_update_epoch_ = latest;
  scheduler_state_ = std::move(scheduler_state);
  average_state_ = std::move(average_state);
}

void StochasticWeightAveraging::on_save_checkpoint(Trainer& trainer, Module&,
                                                   CheckpointDict& checkpoint) {
  if (!scheduler_) return;
  // The configured schedulers' states, so that a resumed fit's checks of them pass; the SWALR's
  // is in scheduler_state.
  c10::impl::GenericList schedulers(c10::AnyType::get());
  for (const auto& config : trainer.lr_scheduler_configs()) {
    if (config.scheduler != scheduler_) {
      schedulers.push_back(config.scheduler->state_dict());
    } else if (replaced_) {
      schedulers.push_back(replaced_->scheduler->state_dict());
    }
  }
  checkpoint.insert_or_assign("lr_schedulers", schedulers);
}

}  // namespace fulgur
