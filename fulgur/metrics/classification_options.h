#pragma once
// The options torchmetrics' StatScores family (Accuracy, Precision, Recall, Specificity,
// F1Score, FBetaScore) shares, with its names and defaults.
#include <cstdint>
#include <optional>
#include <string>

namespace fulgur::metrics {

struct ClassificationOptions {
  std::string task;                     // required: "binary", "multiclass" or "multilabel"
  double threshold = 0.5;               // binary, multilabel: a probability above it is a 1
  std::optional<int64_t> num_classes;   // required for multiclass
  std::optional<int64_t> num_labels;    // required for multilabel
  std::string average = "micro";        // multiclass, multilabel: "micro", "macro",
                                        // "weighted" or "none"
  int64_t top_k = 1;                    // multiclass with [N, C] scores: a hit in the top k counts
  std::optional<int64_t> ignore_index;  // samples whose target is this value are left out
  // Check input values (labels in range, no NaN). This reads one number back from the device
  // per update; turn it off on an accelerator once the pipeline is known to be right.
  bool validate_args = true;
};

}  // namespace fulgur::metrics
