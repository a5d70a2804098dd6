#include "fulgur/callbacks/model_summary.h"

#include <iostream>

#include <fmt/format.h>

#include "fulgur/module.h"
#include "fulgur/trainer.h"

namespace fulgur {
namespace {

int64_t count(const std::vector<torch::Tensor>& tensors, bool trainable_only) {
  int64_t n = 0;
  for (const auto& t : tensors) {
    if (!trainable_only || t.requires_grad()) n += t.numel();
  }
  return n;
}

// Lightning's short counts: 320, 1.2 K, 3.4 M.
std::string human(int64_t n) {
  if (n < 1000) return std::to_string(n);
  if (n < 1000000) return fmt::format("{:.1f} K", n / 1e3);
  if (n < 1000000000) return fmt::format("{:.1f} M", n / 1e6);
  return fmt::format("{:.1f} B", n / 1e9);
}

std::string type_name(const torch::nn::Module& m) {
  std::string name = m.name();
  const std::string prefix = "torch::nn::";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  // LibTorch's modules are `XImpl` classes behind an `X` holder; users know them as `X`.
  const std::string impl = "Impl";
  if (name.size() > impl.size() && name.ends_with(impl)) name.resize(name.size() - impl.size());
  return name;
}

}  // namespace

std::string ModelSummary::summarize(const Module& module) const {
  struct Row {
    std::string name, type, params, mode;
  };
  std::vector<Row> rows;
  int64_t in_train_mode = 0, in_eval_mode = 0;
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    // Lightning counts the modes of every submodule, shown or not.
    (item.value()->is_training() ? in_train_mode : in_eval_mode) += 1;
    const auto depth = std::count(item.key().begin(), item.key().end(), '.') + 1;
    if (max_depth_ >= 0 && depth > max_depth_) continue;
    rows.push_back({item.key(), type_name(*item.value()),
                    human(count(item.value()->parameters(), false)),
                    item.value()->is_training() ? "train" : "eval"});
  }
  size_t wn = 4, wt = 4, wp = 6;
  for (const auto& r : rows) {
    wn = std::max(wn, r.name.size()), wt = std::max(wt, r.type.size());
    wp = std::max(wp, r.params.size());
  }
  const size_t wi = std::to_string(rows.size()).size();
  std::string out = fmt::format("{:<{}} | {:<{}} | {:<{}} | {:<{}} | Mode\n", "", wi, "Name", wn,
                                "Type", wt, "Params", wp);
  const std::string rule(wi + wn + wt + wp + 16, '-');
  out += rule + "\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("{:<{}} | {:<{}} | {:<{}} | {:<{}} | {}\n", i, wi, rows[i].name, wn,
                       rows[i].type, wt, rows[i].params, wp, rows[i].mode);
  }
  out += rule + "\n";
  const auto params = module.parameters();
  const int64_t total = count(params, false), trainable = count(params, true);
  int64_t bytes = 0;
  for (const auto& p : params) bytes += p.numel() * static_cast<int64_t>(p.element_size());
  out += fmt::format("{:<10}Trainable params\n", human(trainable));
  out += fmt::format("{:<10}Non-trainable params\n", human(total - trainable));
  out += fmt::format("{:<10}Total params\n", human(total));
  out += fmt::format("{:<10.3f}Total estimated model params size (MB)\n", bytes / 1e6);
  out += fmt::format("{:<10}Modules in train mode\n", in_train_mode);
  out += fmt::format("{:<10}Modules in eval mode\n", in_eval_mode);
  return out;
}

void ModelSummary::on_fit_start(Trainer& trainer, Module& module) {
  if (!trainer.is_global_zero()) return;
  std::cout << summarize(module) << std::flush;
}

}  // namespace fulgur
