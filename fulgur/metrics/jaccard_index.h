#pragma once
// JaccardIndex (torchmetrics'): the intersection over union tp / (tp + fp + fn). Its options
// are ClassificationOptions' without top_k, and multiclass averages "macro" by default, as
// torchmetrics (the mean IoU of segmentation). Averaging, zero denominators and the classes
// macro leaves out as in StatScores.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/stat_scores.h"

namespace fulgur::metrics {

struct JaccardIndexOptions {
  std::string task;                     // required: "binary", "multiclass" or "multilabel"
  double threshold = 0.5;               // binary, multilabel: a probability above it is a 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> num_labels;    // required for multilabel
  std::string average = "macro";        // multiclass, multilabel: "micro", "macro",
                                        // "weighted" or "none"
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  bool validate_args = true;            // value checks (one host read per update)
};

class JaccardIndex : public StatScores {
 public:
  // Raises ConfigError for bad options.
  explicit JaccardIndex(JaccardIndexOptions options);

 protected:
  at::Tensor score(const at::Tensor& tp, const at::Tensor& fp, const at::Tensor& tn,
                   const at::Tensor& fn) const override;
};

}  // namespace fulgur::metrics
