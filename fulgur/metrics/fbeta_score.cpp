#include "fulgur/metrics/fbeta_score.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cmath>

#include "fulgur/errors.h"

namespace fulgur::metrics {

FBetaScore::FBetaScore(double beta, ClassificationOptions options)
    : FBetaScore("FBetaScore", beta, std::move(options)) {}

FBetaScore::FBetaScore(std::string name, double beta, ClassificationOptions options)
    : StatScores(std::move(name), std::move(options)), beta_(beta) {
  if (!(beta_ > 0) || !std::isfinite(beta_)) {
    throw ConfigError(fmt::format("{}(beta={}) must be a finite number > 0", this->name(), beta_));
  }
}

at::Tensor FBetaScore::score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                             const at::Tensor& fn) const {
  (void)tn;
  const double b2 = beta_ * beta_;
  return safe_divide((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp);
}

}  // namespace fulgur::metrics
