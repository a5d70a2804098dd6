#pragma once
// Lightning's gradient_clip_algorithm: "norm" (total 2-norm) or "value" (element-wise).
#include <string>

namespace fulgur {

enum class GradClipAlgorithm { Norm, Value };

// Parses "norm" / "value"; raises ConfigError otherwise.
GradClipAlgorithm parse_grad_clip_algorithm(const std::string& text);
std::string to_string(GradClipAlgorithm algorithm);

}  // namespace fulgur
