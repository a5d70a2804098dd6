#pragma once
// ModelSummary: prints the Module's layers (to `max_depth`), parameter counts and size when
// fit starts, on rank 0 — added by default when `enable_model_summary` is on.
#include <string>

#include "fulgur/callbacks/callback.h"

namespace fulgur {

class ModelSummary : public Callback {
 public:
  explicit ModelSummary(int max_depth = 1) : max_depth_(max_depth) {}
  std::string name() const override { return "ModelSummary"; }
  void on_fit_start(Trainer& trainer, Module& module) override;
  // The table as text.
  std::string summarize(const Module& module) const;

 private:
  int max_depth_;
};

}  // namespace fulgur
