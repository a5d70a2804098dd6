#pragma once
// NominalAssociation: what torchmetrics' nominal metrics share (CramersV, TschuprowsT,
// PearsonsContingencyCoefficient, TheilsU): how strongly two categorical variables go together,
// read from their [num_classes, num_classes] contingency table (a sum state: constant memory,
// summed across ranks). update(preds, target) takes 1-D labels in [0, num_classes) (integers, or
// floats holding whole numbers and NaN for a missing value) or [N, C] scores (their argmax).
// compute() leaves out the classes neither variable ever took, as torchmetrics.
#include <cstdint>
#include <optional>
#include <string>

#include "fulgur/metrics/metric.h"

namespace fulgur::metrics {

struct NominalOptions {
  int64_t num_classes = 0;  // required: the labels lie in [0, num_classes)
  // A NaN label (float inputs): "replace" it by nan_replace_value, or "drop" the sample.
  std::string nan_strategy = "replace";
  double nan_replace_value = 0.0;
  // Check that the labels are whole numbers in range (one read from the device per update).
  bool validate_args = true;
};

// CramersV's and TschuprowsT's, which may correct their estimate's bias.
struct BiasCorrectedNominalOptions {
  int64_t num_classes = 0;
  // Bergsma's bias correction (with Yates' continuity correction of a 2x2 table).
  bool bias_correction = true;
  std::string nan_strategy = "replace";
  double nan_replace_value = 0.0;
  bool validate_args = true;
};

class NominalAssociation : public Metric {
 public:
  std::optional<bool> higher_is_better() const override { return true; }

 protected:
  // Raises ConfigError for num_classes < 1 or an unknown nan_strategy.
  NominalAssociation(std::string name, const NominalOptions& options);
  void update_state(const at::Tensor& preds, const at::Tensor& target) override;
  at::Tensor compute_value() override;
  // The association of a float64 contingency table [target's classes, preds' classes] without
  // empty rows or columns.
  virtual double association(const at::Tensor& table) const = 0;

 private:
  NominalOptions options_;
  StateId table_;
};

// The options a BiasCorrectedNominalOptions shares with every nominal metric.
NominalOptions nominal_options(const BiasCorrectedNominalOptions& options);

// phi^2 = chi^2 / n of a table and its sizes. chi^2 is Pearson's statistic against
// independence. With bias_correction: Yates' correction of a 2x2 table (each cell moved by up
// to 0.5 towards its expectation, as scipy), then Bergsma's corrected phi^2 and sizes (Cramer's
// V and Tschuprow's T); nullopt, with a warning naming `metric`, where that leaves no table to
// measure (a single class on one side).
struct PhiSquared {
  double value;
  double rows;
  double columns;
};
std::optional<PhiSquared> phi_squared(const std::string& metric, const at::Tensor& table,
                                      bool bias_correction);

}  // namespace fulgur::metrics
