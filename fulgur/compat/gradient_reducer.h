#pragma once
// DDP's gradient synchronisation: c10d's Reducer, which groups the parameters into buckets (in
// reverse order of registration, as PyTorch's DDP) and all-reduces each bucket as soon as
// backward has produced all of its gradients, while backward goes on with earlier layers. After
// a synchronised backward every gradient is the mean over the ranks.
//
// A backward synchronises only when prepare_for_forward and prepare_for_backward ran for it;
// without them gradients accumulate locally (DDP's no_sync).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace c10d {
class Reducer;
}  // namespace c10d

namespace fulgur::compat {

class ProcessGroup;

struct GradientReducerOptions {
  int64_t bucket_cap_bytes = int64_t{25} << 20;  // PyTorch's bucket_cap_mb=25
  bool find_unused_parameters = false;
};

class GradientReducer {
 public:
  GradientReducer(std::vector<at::Tensor> parameters, const std::vector<std::string>& names,
                  ProcessGroup& group, const GradientReducerOptions& options);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Before the forward of a micro-batch whose backward synchronises. Raises DistributedError
  // when the previous synchronised backward left gradients unreduced (parameters that did not
  // contribute to the loss without find_unused_parameters).
  void prepare_for_forward();
  // After that forward, with what it produced (the loss).
  void prepare_for_backward(const at::Tensor& output);

 private:
  std::shared_ptr<c10d::Reducer> reducer_;
  GradientReducerOptions options_;
  int rank_;
};

}  // namespace fulgur::compat
