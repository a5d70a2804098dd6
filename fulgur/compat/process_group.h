#pragma once
// A c10d process group behind a small face, so that no header outside compat/ includes c10d.
// LibTorch 1.13's ProcessGroupGloo is itself a ProcessGroup; 2.x wraps backends in one. Every
// failure (busy port, unreachable address, a peer that died or hangs past the timeout) is a
// DistributedError that names this rank and the operation.
#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace c10d {
class ProcessGroup;
}  // namespace c10d

namespace fulgur::compat {

enum class CollectiveOp { Sum, Min, Max };

struct ProcessGroupOptions {
  std::string address = "127.0.0.1";  // where rank 0 listens
  int port = 0;
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};  // Lightning's default
};

class ProcessGroup {
 public:
  // Joins the group (Gloo over TCP): rank 0 starts the rendezvous store, the others connect.
  explicit ProcessGroup(const ProcessGroupOptions& options);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }

  // In place on every rank.
  void all_reduce(at::Tensor& tensor, CollectiveOp op);
  // One tensor per rank, in rank order; every rank passes the same shape.
  std::vector<at::Tensor> all_gather(const at::Tensor& tensor);
  // In place: every rank ends with `src`'s values.
  void broadcast(at::Tensor& tensor, int src);
  void barrier();

  // For the gradient reducer.
  const c10::intrusive_ptr<c10d::ProcessGroup>& handle() const { return group_; }

 private:
  [[noreturn]] void fail(const std::string& operation, const std::exception& error) const;

  ProcessGroupOptions options_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
};

}  // namespace fulgur::compat
