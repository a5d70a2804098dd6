#pragma once
// ThreadWorld: a world of N ranks made of threads in one process, for testing Metric::sync
// without processes. Each rank's ThreadRank is a Strategy whose collectives meet at a
// barrier; all_gather refuses tensors of different shapes across ranks, as Gloo does, so a
// metric that forgets to pad uneven cat states fails here too.
#include <ATen/ATen.h>

#include <barrier>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/strategies/strategy.h"

namespace fulgur::testing {

class ThreadWorld {
 public:
  explicit ThreadWorld(int size) : size_(size), barrier_(size), slots_(size) {}
  int size() const { return size_; }

  // Every rank's tensor, once all have posted theirs.
  std::vector<at::Tensor> exchange(int rank, const at::Tensor& tensor) {
    slots_[rank] = tensor.detach().clone();
    barrier_.arrive_and_wait();
    std::vector<at::Tensor> all;
    for (const auto& t : slots_) all.push_back(t.clone());
    barrier_.arrive_and_wait();  // nobody overwrites a slot before everyone has read it
    return all;
  }

  // Runs body(rank) on `size` threads and waits for them.
  void run(const std::function<void(int)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r) threads.emplace_back(body, r);
    for (auto& t : threads) t.join();
  }

 private:
  int size_;
  std::barrier<> barrier_;
  std::vector<at::Tensor> slots_;
};

class ThreadRank : public Strategy {
 public:
  ThreadRank(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}
  std::string name() const override { return "thread_rank"; }
  c10::Device root_device() const override { return c10::Device(c10::kCPU); }
  int world_size() const override { return world_.size(); }
  int global_rank() const override { return rank_; }

  at::Tensor reduce(const at::Tensor& tensor, ReduceOp op) override {
    const auto all = at::stack(world_.exchange(rank_, tensor));
    switch (op) {
      case ReduceOp::Sum:
        return all.sum(0).to(tensor.scalar_type());
      case ReduceOp::Mean:
        return all.to(at::kDouble).mean(0);
      case ReduceOp::Min:
        return std::get<0>(all.min(0));
      case ReduceOp::Max:
        return std::get<0>(all.max(0));
    }
    return tensor;
  }
  std::vector<at::Tensor> all_gather(const at::Tensor& tensor) override {
    auto all = world_.exchange(rank_, tensor);
    for (const auto& t : all) {
      if (t.sizes() != tensor.sizes()) {
        throw DistributedError("all_gather: ranks passed tensors of different shapes");
      }
    }
    ++gathers_;
    return all;
  }
  int gathers() const { return gathers_; }

 private:
  ThreadWorld& world_;
  int rank_;
  int gathers_ = 0;
};

}  // namespace fulgur::testing
