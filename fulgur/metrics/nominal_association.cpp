#include "fulgur/metrics/nominal_association.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "fulgur/errors.h"
#include "fulgur/warnings.h"

namespace fulgur::metrics {

NominalAssociation::NominalAssociation(std::string name, const NominalOptions& options)
    : Metric(std::move(name)), options_(options) {
  if (options_.num_classes < 1) {
    throw ConfigError(fmt::format("{}(num_classes={}) must be a positive integer", this->name(),
                                  options_.num_classes));
  }
  if (options_.nan_strategy != "replace" && options_.nan_strategy != "drop") {
    throw ConfigError(
        fmt::format("{}(nan_strategy=\"{}\") is not valid; choose \"replace\" or "
                    "\"drop\"",
                    this->name(), options_.nan_strategy));
  }
  const int64_t c = options_.num_classes;
  table_ =
      add_state("confmat", at::zeros({c, c}, at::TensorOptions().dtype(at::kLong)), Reduction::Sum);
}

void NominalAssociation::update_state(const at::Tensor& preds, const at::Tensor& target) {
  if (!preds.defined() || !target.defined()) fail("update() needs preds and target");
  // Scores [N, C] stand for their most likely class.
  auto p = preds.detach().dim() == 2 ? preds.detach().argmax(1) : preds.detach();
  auto t = target.detach().dim() == 2 ? target.detach().argmax(1) : target.detach();
  if (p.dim() != 1 || t.dim() != 1 || p.size(0) != t.size(0)) {
    fail(
        fmt::format("preds and target must be 1-D labels (or [N, C] scores) of one length, got "
                    "shapes [{}] and [{}]",
                    fmt::join(preds.sizes(), ", "), fmt::join(target.sizes(), ", ")));
  }
  auto valid = at::ones_like(t, t.options().dtype(at::kBool));
  for (auto* labels : {&p, &t}) {
    if (!labels->is_floating_point()) continue;
    const auto missing = labels->isnan();
    if (options_.nan_strategy == "replace") {
      *labels = labels->masked_fill(missing, options_.nan_replace_value);
    } else {
      valid = valid & ~missing;
      *labels = labels->masked_fill(missing, 0);
    }
  }
  const int64_t c = options_.num_classes;
  if (options_.validate_args) {
    auto bad = [&](const at::Tensor& labels) {
      auto wrong = labels.lt(0) | labels.ge(c);
      if (labels.is_floating_point()) wrong = wrong | labels.ne(labels.floor());
      return (wrong & valid).any();
    };
    const auto flags = at::stack({bad(p), bad(t)}).to(at::kCPU);
    for (const int i : {0, 1}) {
      if (flags[i].item<bool>()) {
        fail(fmt::format("{} holds labels that are not whole numbers in [0, {})",
                         i == 0 ? "preds" : "target", c));
      }
    }
  }
  const auto cell = (t.to(at::kLong) * c + p.to(at::kLong)).masked_fill(~valid, 0);
  state(table_).view({-1}).index_add_(0, cell, valid.to(at::kLong));
}

at::Tensor NominalAssociation::compute_value() {
  auto table = state(table_).to(at::kDouble);
  table = table.index({table.sum(1) > 0});
  if (table.numel() == 0) fail("has no samples to score (every update was empty)");
  table = table.index({at::indexing::Slice(), table.sum(0) > 0});
  return at::scalar_tensor(association(table),
                           at::TensorOptions().dtype(at::kDouble).device(table.device()));
}

NominalOptions nominal_options(const BiasCorrectedNominalOptions& options) {
  return {.num_classes = options.num_classes,
          .nan_strategy = options.nan_strategy,
          .nan_replace_value = options.nan_replace_value,
          .validate_args = options.validate_args};
}

std::optional<PhiSquared> phi_squared(const std::string& metric, const at::Tensor& table,
                                      bool bias_correction) {
  const double n = table.sum().item<double>();
  const double rows = table.size(0), columns = table.size(1);
  const double freedom = (rows - 1) * (columns - 1);
  double chi_squared = 0;
  if (freedom > 0) {
    const auto expected = at::outer(table.sum(1), table.sum(0)) / n;
    auto observed = table;
    if (freedom == 1 && bias_correction) {
      const auto gap = expected - table;
      observed = table + gap.sign() * at::clamp_max(gap.abs(), 0.5);
    }
    chi_squared = ((observed - expected).pow(2) / expected).sum().item<double>();
  }
  if (!bias_correction) return PhiSquared{chi_squared / n, rows, columns};
  const PhiSquared corrected{std::max(0.0, chi_squared / n - freedom / (n - 1)),
                             rows - (rows - 1) * (rows - 1) / (n - 1),
                             columns - (columns - 1) * (columns - 1) / (n - 1)};
  if (std::min(corrected.rows, corrected.columns) == 1) {
    warn(metric +
         ": the bias correction needs two classes on each side; the value is NaN (set "
         "bias_correction = false)");
    return std::nullopt;
  }
  return corrected;
}

}  // namespace fulgur::metrics
