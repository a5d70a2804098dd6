#include "fulgur/metrics/tweedie_deviance_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "fulgur/errors.h"

namespace fulgur::metrics {

TweedieDevianceScore::TweedieDevianceScore(TweedieDevianceScoreOptions options)
    : ElementwiseMean("TweedieDevianceScore", "sum_deviance_score"), options_(options) {
  if (options_.power > 0 && options_.power < 1) {
    throw ConfigError(fmt::format(
        "TweedieDevianceScore(power={}) is not valid: no Tweedie deviance has a power in (0, 1)",
        options_.power));
  }
}

void TweedieDevianceScore::check_domain(const at::Tensor& preds, const at::Tensor& target) const {
  const double p = options_.power;
  if (p == 0 || preds.numel() == 0) return;
  const bool preds_positive = preds.min().item<double>() > 0;
  if (p < 0) {
    if (!preds_positive) fail(fmt::format("for power={} preds must be strictly positive", p));
  } else if (p < 2) {
    if (!preds_positive || target.min().item<double>() < 0) {
      fail(fmt::format(
          "for power={} preds must be strictly positive and target must not be negative", p));
    }
  } else if (!preds_positive || target.min().item<double>() <= 0) {
    fail(fmt::format("for power={} preds and target must be strictly positive", p));
  }
}

at::Tensor TweedieDevianceScore::error(const at::Tensor& preds, const at::Tensor& target) const {
  check_domain(preds, target);
  const double p = options_.power;
  if (p == 0) return (target - preds).square();
  if (p == 1) return 2 * (at::xlogy(target, target / preds) - target + preds);
  if (p == 2) return 2 * ((preds / target).log() + target / preds - 1);
  // The general form; max(target, 0) because p < 0 admits negative targets.
  const auto first = target.clamp_min(0).pow(2 - p) / ((1 - p) * (2 - p));
  const auto second = target * preds.pow(1 - p) / (1 - p);
  const auto third = preds.pow(2 - p) / (2 - p);
  return 2 * (first - second + third);
}

}  // namespace fulgur::metrics
