#include "fulgur/metrics/curve_metric.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <vector>

#include "fulgur/errors.h"

namespace fulgur::metrics {
namespace {

// The thresholds as an increasing float64 tensor; ConfigError naming `metric` when invalid.
at::Tensor make_thresholds(const std::string& metric, const CurveThresholds& thresholds) {
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  if (const auto* count = std::get_if<int64_t>(&thresholds)) {
    if (*count < 2) {
      throw ConfigError(fmt::format(
          "{}(thresholds={}) is not valid; a count of thresholds must be at least 2 (they are "
          "spaced evenly over [0, 1])",
          metric, *count));
    }
    return at::linspace(0, 1, *count, doubles);
  }
  const auto& values = std::get<std::vector<double>>(thresholds);
  if (values.empty()) {
    throw ConfigError(
        fmt::format("{}(thresholds=[]) is not valid; give at least one threshold", metric));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!(values[i] >= 0 && values[i] <= 1)) {
      throw ConfigError(
          fmt::format("{}: thresholds must lie in [0, 1], got {}", metric, values[i]));
    }
    if (i > 0 && values[i] <= values[i - 1]) {
      throw ConfigError(fmt::format("{}: thresholds must be increasing, got {} after {}", metric,
                                    values[i], values[i - 1]));
    }
  }
  return at::tensor(values, doubles);
}

// The exact curve of one class: the origin (at threshold 1, as torchmetrics), then a point at
// the last sample of each group of tied scores down the ranking.
ThresholdCounts exact_curve(const at::Tensor& scores, const at::Tensor& positives) {
  const int64_t n = scores.size(0);
  const auto doubles = scores.options().dtype(at::kDouble);
  if (n == 0) {  // a label whose every element was ignored
    const auto origin = at::zeros({1}, doubles);
    return {origin, origin, at::ones({1}, doubles), 0.0, 0.0};
  }
  const auto order = scores.argsort(/*dim=*/0, /*descending=*/true);
  const auto sorted = scores.index_select(0, order);
  const auto hits = positives.index_select(0, order).to(at::kDouble);
  const auto last = at::cat({sorted.slice(0, 0, n - 1).ne(sorted.slice(0, 1, n)),
                             at::ones({1}, sorted.options().dtype(at::kBool))});
  const auto origin = at::zeros({1}, hits.options());
  const auto tps = at::cat({origin, hits.cumsum(0).masked_select(last)});
  const auto fps = at::cat({origin, (1 - hits).cumsum(0).masked_select(last)});
  const auto thresholds = at::cat({at::ones({1}, doubles), sorted.masked_select(last).to(doubles)});
  const double total_positives = tps[-1].item<double>();
  return {tps, fps, thresholds, total_positives, static_cast<double>(n) - total_positives};
}

}  // namespace

CurveMetric::CurveMetric(std::string name, CurveOptions options)
    : Metric(std::move(name)),
      options_(std::move(options)),
      task_(parse_task(this->name(), options_.task, options_.num_classes, options_.num_labels)) {
  const auto& a = options_.average;
  const bool multilabel = task_ == Task::Multilabel;
  if (a != "macro" && a != "weighted" && a != "none" && !(a == "micro" && multilabel)) {
    throw ConfigError(fmt::format("{}(average=\"{}\") is not valid; choose {}", this->name(), a,
                                  multilabel ? "\"micro\", \"macro\", \"weighted\" or \"none\""
                                             : "\"macro\", \"weighted\" or \"none\" (\"micro\" is "
                                               "for multilabel tasks)"));
  }
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  const int64_t classes = task_columns(task_, options_.num_classes, options_.num_labels);
  if (binned()) {
    thresholds_ = make_thresholds(this->name(), *options_.thresholds);
    const auto counts = at::zeros({classes, thresholds_.size(0) + 1}, doubles);
    positives_ = add_state("positives", counts, Reduction::Sum);
    negatives_ = add_state("negatives", counts, Reduction::Sum);
    return;
  }
  preds_ = add_state(
      "preds", task_ == Task::Binary ? at::zeros({0}, doubles) : at::zeros({0, classes}, doubles),
      Reduction::Cat);
  // Raw targets, ignore_index included: dropping ignored samples needs their count (a host
  // read), so compute() does it once.
  const auto longs = at::TensorOptions().dtype(at::kLong);
  target_ = add_state("target", multilabel ? at::zeros({0, classes}, longs) : at::zeros({0}, longs),
                      Reduction::Cat);
}

void CurveMetric::update_state(const at::Tensor& preds, const at::Tensor& target) {
  const auto& o = options_;
  if (preds.defined() && !preds.is_floating_point()) {
    fail(fmt::format("preds must be scores (probabilities or logits), got {} values",
                     c10::toString(preds.scalar_type())));
  }
  at::Tensor probabilities;
  LabelBatch batch;
  if (task_ == Task::Binary) {
    // For its shape and value checks and its mask of ignored samples; its labels are unused.
    batch = format_binary(name(), preds, target, 0.5, o.ignore_index, o.validate_args);
    probabilities = binary_probabilities(preds.reshape({-1}));
  } else if (task_ == Task::Multilabel) {
    batch = format_multilabel(name(), preds, target, *o.num_labels, 0.5, o.ignore_index,
                              o.validate_args);
    probabilities = binary_probabilities(label_columns(preds, *o.num_labels));
  } else {
    batch =
        format_multiclass(name(), preds, target, *o.num_classes, o.ignore_index, o.validate_args);
    probabilities = multiclass_probabilities(batch.preds);
  }
  if (binned()) {
    count_at_thresholds(probabilities, batch.target, batch.valid);
    return;
  }
  append(preds_, probabilities);
  append(target_,
         task_ == Task::Multilabel ? label_columns(target, *o.num_labels) : target.reshape({-1}));
}

void CurveMetric::count_at_thresholds(const at::Tensor& probabilities, const at::Tensor& target,
                                      const at::Tensor& valid) {
  if (thresholds_.device() != probabilities.device()) {
    thresholds_ = thresholds_.to(probabilities.device());
  }
  auto scores = probabilities.to(at::kDouble);
  if (scores.dim() == 1) scores = scores.unsqueeze(1);
  const int64_t classes = scores.size(1), bins = thresholds_.size(0) + 1;
  // How many thresholds each score clears (those <= it): its bin in its class' row.
  const auto cleared = at::bucketize(scores, thresholds_, /*out_int32=*/false, /*right=*/true);
  const auto bin = (cleared + at::arange(classes, cleared.options()) * bins).reshape({-1});
  const auto positive = task_ == Task::Multiclass
                            ? target.unsqueeze(1).eq(at::arange(classes, target.options()))
                            : target.eq(1).view({target.size(0), -1});
  const auto counted = valid.to(at::kBool).view({valid.size(0), -1});
  state(positives_)
      .view({-1})
      .index_add_(0, bin, (positive & counted).to(at::kDouble).reshape({-1}));
  state(negatives_)
      .view({-1})
      .index_add_(0, bin, (~positive & counted).to(at::kDouble).reshape({-1}));
}

std::vector<ThresholdCounts> CurveMetric::exact_curves() const {
  auto scores = cat_state(preds_);
  auto target = cat_state(target_);
  if (task_ == Task::Multilabel) return exact_label_curves(scores, target);
  if (options_.ignore_index) {
    const auto keep = target.ne(*options_.ignore_index);
    scores = scores.index({keep});
    target = target.index({keep});
  }
  if (target.size(0) == 0) {
    fail("every sample seen so far was ignored (ignore_index); there is nothing to score");
  }
  if (task_ == Task::Binary) return {exact_curve(scores, target)};
  std::vector<ThresholdCounts> curves;
  for (int64_t c = 0; c < *options_.num_classes; ++c) {
    curves.push_back(exact_curve(scores.select(1, c).contiguous(), target.eq(c)));
  }
  return curves;
}

std::vector<ThresholdCounts> CurveMetric::exact_label_curves(const at::Tensor& scores,
                                                             const at::Tensor& target) const {
  // Ignored elements leave their label's curve only (the sample's other labels still count).
  const auto kept = options_.ignore_index
                        ? target.ne(*options_.ignore_index)
                        : at::ones_like(target, target.options().dtype(at::kBool));
  if (!kept.any().item<bool>()) {
    fail("every element seen so far was ignored (ignore_index); there is nothing to score");
  }
  const auto curve_of = [](const at::Tensor& s, const at::Tensor& t, const at::Tensor& keep) {
    return exact_curve(s.masked_select(keep), t.masked_select(keep).eq(1));
  };
  if (micro()) return {curve_of(scores, target, kept)};
  std::vector<ThresholdCounts> curves;
  for (int64_t label = 0; label < scores.size(1); ++label) {
    curves.push_back(
        curve_of(scores.select(1, label), target.select(1, label), kept.select(1, label)));
  }
  return curves;
}

std::vector<ThresholdCounts> CurveMetric::binned_curves() {
  // The micro curve counts every label's samples together.
  auto positives = state(positives_), negatives = state(negatives_);
  if (micro()) {
    positives = positives.sum(0, /*keepdim=*/true);
    negatives = negatives.sum(0, /*keepdim=*/true);
  }
  // Summed from the highest bin down, column k counts the samples clearing the k-th highest
  // threshold; the last column counts every sample.
  const auto tps = positives.flip(1).cumsum(1);
  const auto fps = negatives.flip(1).cumsum(1);
  const int64_t points = thresholds_.size(0);
  const auto totals = at::stack({tps.select(1, points), fps.select(1, points)}, 1).to(at::kCPU);
  if (totals.sum().item<double>() == 0) {
    fail("every sample seen so far was ignored (ignore_index); there is nothing to score");
  }
  const auto thresholds = thresholds_.flip(0);
  std::vector<ThresholdCounts> curves;
  for (int64_t c = 0; c < tps.size(0); ++c) {
    curves.push_back({tps[c].slice(0, 0, points), fps[c].slice(0, 0, points), thresholds,
                      totals[c][0].item<double>(), totals[c][1].item<double>()});
  }
  return curves;
}

std::vector<ThresholdCounts> CurveMetric::threshold_counts() {
  if (update_count() == 0) {
    fail("there is no curve before any update(); feed it a batch first, or check update_count()");
  }
  return binned() ? binned_curves() : exact_curves();
}

std::string CurveMetric::curve_name(int64_t index) const {
  if (task_ == Task::Binary) return "the binary target";
  if (micro()) return "the micro curve";
  return fmt::format("{} {}", task_ == Task::Multilabel ? "label" : "class", index);
}

at::Tensor CurveMetric::stack_curves(const std::vector<std::pair<at::Tensor, at::Tensor>>& curves,
                                     const std::string& accessor) const {
  if (task_ == Task::Binary) return at::stack({curves[0].first, curves[0].second});
  if (!binned()) {
    fail(
        fmt::format("the exact curves of each {} differ in length, so compute() cannot stack "
                    "them; read them with {}, or set thresholds for binned curves",
                    task_ == Task::Multilabel ? "label" : "class", accessor));
  }
  std::vector<at::Tensor> stacked;
  for (const auto& [first, second] : curves) stacked.push_back(at::stack({first, second}));
  return at::stack(stacked);
}

}  // namespace fulgur::metrics
