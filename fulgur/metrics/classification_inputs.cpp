#include "fulgur/metrics/classification_inputs.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"
#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {

namespace {

std::string shape_text(at::IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

[[noreturn]] void fail(const std::string& metric, const std::string& message) {
  throw MetricError(fmt::format("{}: {}", metric, message));
}

bool is_integral(const at::Tensor& t) {
  return at::isIntegralType(t.scalar_type(), /*includeBool=*/true);
}

void require_integer_target(const std::string& metric, const at::Tensor& target) {
  if (!is_integral(target)) {
    fail(metric, fmt::format("target must hold integer class labels, got {} values",
                             c10::toString(target.scalar_type())));
  }
}

at::Tensor valid_mask(const at::Tensor& target, const std::optional<int64_t>& ignore_index) {
  if (!ignore_index) return at::ones_like(target, target.options().dtype(at::kLong));
  return target.ne(*ignore_index).to(at::kLong);
}

// One host read for all value checks of a batch: each flag is "some element is bad".
void check_flags(const std::string& metric, const std::vector<at::Tensor>& flags,
                 const std::vector<std::string>& messages) {
  const auto read = at::stack(flags).to(at::kCPU);
  const auto* bad = read.data_ptr<bool>();
  for (size_t i = 0; i < messages.size(); ++i) {
    if (bad[i]) fail(metric, messages[i]);
  }
}

std::string ignore_text(const std::optional<int64_t>& ignore_index) {
  return ignore_index ? fmt::format(" (or ignore_index={})", *ignore_index) : "";
}

// Binary labels element by element from preds and target of one shape (the target already
// checked to be integral).
LabelBatch binary_labels(const std::string& metric, const at::Tensor& p, const at::Tensor& target,
                         double threshold, const std::optional<int64_t>& ignore_index,
                         bool validate) {
  const auto t = target.to(at::kLong);
  const auto valid = valid_mask(t, ignore_index);
  if (validate) {
    const auto bad_target = ((t.ne(0) & t.ne(1)) & valid.to(at::kBool)).any();
    const auto bad_preds = p.is_floating_point() ? at::isnan(p).any() : (p.ne(0) & p.ne(1)).any();
    check_flags(metric, {bad_target, bad_preds},
                {"target must hold binary labels 0 or 1" + ignore_text(ignore_index),
                 p.is_floating_point() ? "preds contain NaN"
                                       : "integer preds must be binary labels 0 or 1"});
  }
  const auto labels =
      p.is_floating_point() ? binary_probabilities(p).gt(threshold).to(at::kLong) : p.to(at::kLong);
  return {labels, t * valid, valid};
}

}  // namespace

Task parse_task(const std::string& metric, const std::string& task,
                const std::optional<int64_t>& num_classes,
                const std::optional<int64_t>& num_labels) {
  const auto count_text = [](const std::optional<int64_t>& n) {
    return n ? std::to_string(*n) : std::string("none");
  };
  if (task == "binary") return Task::Binary;
  if (task == "multiclass") {
    if (!num_classes || *num_classes < 2) {
      throw ConfigError(fmt::format("{}(task=\"multiclass\") needs num_classes >= 2, got {}",
                                    metric, count_text(num_classes)));
    }
    return Task::Multiclass;
  }
  if (task == "multilabel") {
    if (!num_labels || *num_labels < 2) {
      throw ConfigError(fmt::format("{}(task=\"multilabel\") needs num_labels >= 2, got {}", metric,
                                    count_text(num_labels)));
    }
    return Task::Multilabel;
  }
  throw ConfigError(fmt::format(
      "{}(task=\"{}\") is not valid; choose \"binary\", \"multiclass\" or \"multilabel\"", metric,
      task));
}

Task parse_binary_or_multiclass_task(const std::string& metric, const std::string& task,
                                     const std::optional<int64_t>& num_classes) {
  if (task != "binary" && task != "multiclass") {
    throw ConfigError(fmt::format(
        "{0}(task=\"{1}\") is not valid; choose \"binary\" or \"multiclass\" ({0} has no "
        "multilabel task, as torchmetrics)",
        metric, task));
  }
  return parse_task(metric, task, num_classes, std::nullopt);
}

int64_t task_columns(Task task, const std::optional<int64_t>& num_classes,
                     const std::optional<int64_t>& num_labels) {
  switch (task) {
    case Task::Binary:
      return 1;
    case Task::Multiclass:
      return *num_classes;
    case Task::Multilabel:
      return *num_labels;
  }
  return 1;
}

LabelBatch format_binary(const std::string& metric, const at::Tensor& preds,
                         const at::Tensor& target, double threshold,
                         const std::optional<int64_t>& ignore_index, bool validate) {
  if (!preds.defined() || !target.defined()) fail(metric, "update() needs preds and target");
  if (preds.sizes() != target.sizes()) {
    fail(metric, fmt::format("preds has shape {} but target has shape {}; binary inputs must "
                             "have the same shape",
                             shape_text(preds.sizes()), shape_text(target.sizes())));
  }
  require_integer_target(metric, target);
  return binary_labels(metric, preds.reshape({-1}), target.reshape({-1}), threshold, ignore_index,
                       validate);
}

LabelBatch format_multiclass(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t num_classes,
                             const std::optional<int64_t>& ignore_index, bool validate) {
  if (!preds.defined() || !target.defined()) fail(metric, "update() needs preds and target");
  require_integer_target(metric, target);
  at::Tensor p;
  const bool scores = preds.dim() == target.dim() + 1;
  if (scores) {
    if (!preds.is_floating_point()) {
      fail(metric, fmt::format("preds of shape {} look like scores [N, C] but hold {} values; "
                               "scores must be floating point",
                               shape_text(preds.sizes()), c10::toString(preds.scalar_type())));
    }
    if (preds.size(1) != num_classes) {
      fail(metric, fmt::format("preds has {} scores per sample (shape {}) but num_classes={}",
                               preds.size(1), shape_text(preds.sizes()), num_classes));
    }
    auto expected = target.sizes().vec();
    expected.insert(expected.begin() + 1, num_classes);
    if (preds.sizes().vec() != expected) {
      fail(metric, fmt::format("preds has shape {} but target has shape {}; expected preds of "
                               "shape {}",
                               shape_text(preds.sizes()), shape_text(target.sizes()),
                               shape_text(expected)));
    }
    p = preds.movedim(1, -1).reshape({-1, num_classes});
  } else if (preds.dim() == target.dim()) {
    if (preds.sizes() != target.sizes()) {
      fail(metric, fmt::format("preds has shape {} but target has shape {}; they must match",
                               shape_text(preds.sizes()), shape_text(target.sizes())));
    }
    if (!is_integral(preds)) {
      fail(metric, fmt::format("preds of target's shape {} must be integer labels; pass "
                               "scores as [N, C] (C = num_classes = {})",
                               shape_text(preds.sizes()), num_classes));
    }
    p = preds.reshape({-1}).to(at::kLong);
  } else {
    fail(metric, fmt::format("preds has shape {} and target has shape {}; expected labels of "
                             "target's shape or scores [N, C] for target [N]",
                             shape_text(preds.sizes()), shape_text(target.sizes())));
  }
  const auto t = target.reshape({-1}).to(at::kLong);
  const auto valid = valid_mask(t, ignore_index);
  if (validate) {
    const auto bad_target = ((t.lt(0) | t.ge(num_classes)) & valid.to(at::kBool)).any();
    const auto bad_preds =
        scores ? at::isnan(p).any() : ((p.lt(0) | p.ge(num_classes)) & valid.to(at::kBool)).any();
    check_flags(metric, {bad_target, bad_preds},
                {fmt::format("target holds labels outside [0, {}){}", num_classes,
                             ignore_text(ignore_index)),
                 scores ? std::string("preds contain NaN")
                        : fmt::format("preds hold labels outside [0, {})", num_classes)});
  }
  // An ignored sample's label may be anything: make it a harmless 0.
  if (!scores) p = p * valid;
  return {p, t * valid, valid};
}

LabelBatch format_multilabel(const std::string& metric, const at::Tensor& preds,
                             const at::Tensor& target, int64_t num_labels, double threshold,
                             const std::optional<int64_t>& ignore_index, bool validate) {
  if (!preds.defined() || !target.defined()) fail(metric, "update() needs preds and target");
  if (preds.sizes() != target.sizes()) {
    fail(metric, fmt::format("preds has shape {} but target has shape {}; multilabel inputs "
                             "must have the same shape",
                             shape_text(preds.sizes()), shape_text(target.sizes())));
  }
  if (target.dim() < 2 || target.size(1) != num_labels) {
    fail(metric, fmt::format("multilabel inputs must be [N, L, ...] with L = num_labels = {}, "
                             "got shape {}",
                             num_labels, shape_text(target.sizes())));
  }
  require_integer_target(metric, target);
  return binary_labels(metric, label_columns(preds, num_labels), label_columns(target, num_labels),
                       threshold, ignore_index, validate);
}

at::Tensor label_columns(const at::Tensor& t, int64_t num_labels) {
  return t.movedim(1, -1).reshape({-1, num_labels});
}

at::Tensor binary_probabilities(const at::Tensor& preds) {
  const auto in_range = (preds.ge(0) & preds.le(1)).all();
  return at::where(in_range, preds, preds.sigmoid());
}

at::Tensor multiclass_probabilities(const at::Tensor& preds) {
  const auto in_range = (preds.ge(0) & preds.le(1)).all();
  return at::where(in_range, preds, preds.softmax(1));
}

at::Tensor safe_divide(const at::Tensor& a, const at::Tensor& b) {
  const auto zero = b.eq(0);
  return at::where(zero, at::zeros_like(a), a / at::where(zero, at::ones_like(b), b));
}

}  // namespace fulgur::metrics
