#include "fulgur/metrics/f1_score.h"

namespace fulgur::metrics {

F1Score::F1Score(ClassificationOptions options) : FBetaScore("F1Score", 1.0, std::move(options)) {}

}  // namespace fulgur::metrics
