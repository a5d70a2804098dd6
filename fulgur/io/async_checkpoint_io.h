#pragma once
// AsyncCheckpointIO: Lightning's AsyncCheckpointIO. Wraps another CheckpointIO (by default a
// TorchCheckpointIO) and moves serialisation and disk writes off the training thread.
//
// Guarantees:
// - save_checkpoint returns once the checkpoint has been copied to host memory: every tensor
//   of the nested dicts, lists and tuples is detached and copied to the CPU, and the containers
//   themselves are copied, so in-place updates made after the call returns (the next optimizer
//   step) cannot change what is written. Tensors that share a storage still share one in the
//   copy, so the file is the one a synchronous save would have written.
// - One background thread runs saves and removes in the order they were requested, through the
//   wrapped IO, so writes stay atomic and a remove never races a pending write of the same file.
// - A failure in the background is kept and raised as CheckpointError (with the original
//   message) by the next save_checkpoint, remove_checkpoint, load_checkpoint or teardown. The
//   request that raises it is not carried out. Only the first failure is reported in full; later
//   ones are counted in its message.
// - load_checkpoint, wait, teardown and the destructor first wait for all pending work.
// - The host buffers of the last finished save are kept and written over by the next save
//   (fresh memory costs more to touch than to copy into), unless the wrapped IO still holds
//   them; teardown releases them. Between saves this holds one checkpoint's worth of host
//   memory.
//
// As in Lightning (a one-worker ThreadPoolExecutor), the queue is unbounded: each pending save
// holds a full host copy of its checkpoint, so if saves are requested faster than the disk
// writes them, host memory grows by one checkpoint per pending save. Callers that save often
// can call wait() to apply back-pressure.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

class AsyncCheckpointIO : public CheckpointIO {
 public:
  // `checkpoint_io` does the actual writes; null means a TorchCheckpointIO.
  explicit AsyncCheckpointIO(std::shared_ptr<CheckpointIO> checkpoint_io = nullptr);
  // Waits for pending work; never throws. A failure nobody was told about goes to stderr.
  ~AsyncCheckpointIO() override;
  AsyncCheckpointIO(const AsyncCheckpointIO&) = delete;
  AsyncCheckpointIO& operator=(const AsyncCheckpointIO&) = delete;

  std::string name() const override { return "AsyncCheckpointIO"; }
  void save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) override;
  CheckpointDict load_checkpoint(const std::string& path) override;
  void remove_checkpoint(const std::string& path) override;
  // Waits for pending work, stops the background thread (the next save starts a new one) and
  // raises a pending failure.
  void teardown() override;

  // Blocks until every save and remove requested so far has finished. Raises nothing: failures
  // stay pending for the next call that reports them.
  void wait();

  const std::shared_ptr<CheckpointIO>& checkpoint_io() const { return checkpoint_io_; }

 private:
  struct Job {
    std::string what;  // "save checkpoint <path>", for messages
    std::function<void(CheckpointIO&)> run;
    std::vector<c10::Storage> buffers;  // the host memory `run` writes from, for reuse
  };

  void submit(Job job);
  void start_worker();  // with mutex_ held and a job queued
  void run_worker();
  void stop_worker();
  void raise_if_failed();

  std::shared_ptr<CheckpointIO> checkpoint_io_;

  std::mutex mutex_;
  std::condition_variable work_ready_;  // the worker waits for jobs or a stop request
  std::condition_variable idle_;        // wait() waits for an empty queue and an idle worker
  std::deque<Job> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread worker_;  // started with the first job, so an unused instance costs no thread
  std::vector<c10::Storage> recycled_;  // host buffers of the last finished save

  std::string failure_;  // message of the first unreported background failure
  std::size_t later_failures_ = 0;
};

}  // namespace fulgur
