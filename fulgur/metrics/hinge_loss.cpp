#include "fulgur/metrics/hinge_loss.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <limits>

#include "fulgur/errors.h"

namespace fulgur::metrics {

HingeLoss::HingeLoss(HingeLossOptions options)
    : Metric("HingeLoss"),
      options_(std::move(options)),
      task_(parse_binary_or_multiclass_task(name(), options_.task, options_.num_classes)) {
  const auto& mode = options_.multiclass_mode;
  if (mode != "crammer-singer" && mode != "one-vs-all") {
    throw ConfigError(
        fmt::format("HingeLoss(multiclass_mode=\"{}\") is not valid; choose \"crammer-singer\" or "
                    "\"one-vs-all\"",
                    mode));
  }
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  losses_ = add_state("measures", at::zeros({one_vs_all() ? *options_.num_classes : 1}, f64),
                      Reduction::Sum);
  samples_ = add_state("total", at::zeros({}, f64), Reduction::Sum);
}

bool HingeLoss::one_vs_all() const {
  return task_ == Task::Multiclass && options_.multiclass_mode == "one-vs-all";
}

void HingeLoss::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (preds.defined() && !preds.is_floating_point()) {
    fail(fmt::format("preds must be scores (probabilities or logits), got {} values",
                     c10::toString(preds.scalar_type())));
  }
  at::Tensor losses, valid;
  if (task_ == Task::Binary) {
    const auto batch = format_binary(name(), preds, target, 0.5, o.ignore_index, o.validate_args);
    const auto score = binary_probabilities(preds.reshape({-1})).to(at::kDouble);
    losses = (1 - at::where(batch.target.to(at::kBool), score, -score)).clamp_min(0).unsqueeze(1);
    valid = batch.valid;
  } else {
    const auto batch =
        format_multiclass(name(), preds, target, *o.num_classes, o.ignore_index, o.validate_args);
    const auto scores = multiclass_probabilities(batch.preds).to(at::kDouble);
    const auto truth = at::one_hot(batch.target, *o.num_classes).to(at::kBool);
    if (one_vs_all()) {
      losses = (1 - at::where(truth, scores, -scores)).clamp_min(0);
    } else {
      const auto true_score = scores.gather(1, batch.target.unsqueeze(1));
      const auto best_other =
          std::get<0>(scores.masked_fill(truth, -std::numeric_limits<double>::infinity())
                          .max(1, /*keepdim=*/true));
      losses = (1 - (true_score - best_other)).clamp_min(0);
    }
    valid = batch.valid;
  }
  if (o.squared) losses = losses.square();
  const auto weight = valid.to(at::kDouble);
  state(losses_).add_((losses * weight.unsqueeze(1)).sum(0));
  state(samples_).add_(weight.sum());
}

at::Tensor HingeLoss::compute_value() {
  const auto& samples = state(samples_);
  if (samples.item<double>() == 0) {
    fail("every sample seen so far was ignored (ignore_index); there is nothing to score");
  }
  const auto mean = state(losses_) / samples;
  return one_vs_all() ? mean : mean.squeeze(0);
}

}  // namespace fulgur::metrics
