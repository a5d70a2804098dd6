#include "fulgur/optim/grad_clip.h"

#include "fulgur/errors.h"

namespace fulgur {

GradClipAlgorithm parse_grad_clip_algorithm(const std::string& text) {
  if (text == "norm") return GradClipAlgorithm::Norm;
  if (text == "value") return GradClipAlgorithm::Value;
  throw ConfigError("gradient_clip_algorithm=\"" + text +
                    "\" is not a known algorithm; choose one of \"norm\", \"value\"");
}

std::string to_string(GradClipAlgorithm algorithm) {
  return algorithm == GradClipAlgorithm::Norm ? "norm" : "value";
}

}  // namespace fulgur
