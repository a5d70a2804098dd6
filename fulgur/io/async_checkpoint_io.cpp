#include "fulgur/io/async_checkpoint_io.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <exception>
#include <iostream>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/io/error_text.h"
#include "fulgur/io/torch_checkpoint_io.h"

namespace fulgur {
namespace {

// Deep copy of a checkpoint into host memory. Storages are copied whole and once each, and the
// copied tensors keep their offsets and strides, so tensors that share a storage (tied weights,
// views) still share one: the pickler then writes the same file it would have written from the
// originals, and no more bytes than that.
// Host buffers of an earlier save that nothing holds any more are written over instead of
// allocating fresh memory, whose first touch costs more than the copy itself.
class HostCopier {
 public:
  explicit HostCopier(std::vector<c10::Storage> reusable) {
    for (auto& storage : reusable) {
      const auto nbytes = storage.nbytes();
      reusable_.emplace(nbytes, std::move(storage));
    }
  }

  c10::IValue copy(const c10::IValue& value) {
    if (value.isTensor()) return copy_tensor(value.toTensor());
    if (value.isGenericDict()) {
      const auto dict = value.toGenericDict();
      c10::impl::GenericDict out(dict.keyType(), dict.valueType());
      out.reserve(dict.size());
      for (const auto& entry : dict) out.insert(copy(entry.key()), copy(entry.value()));
      return out;
    }
    // Every typed list (int[], Tensor[], …) is a generic list with an element type underneath.
    if (value.isList()) {
      const auto list = value.toList();
      c10::impl::GenericList out(list.elementType());
      out.reserve(list.size());
      for (const c10::IValue& element : list) out.push_back(copy(element));
      return out;
    }
    if (value.isTuple()) {
      const auto& elements = value.toTupleRef().elements();
      std::vector<c10::IValue> out;
      out.reserve(elements.size());
      for (const auto& element : elements) out.push_back(copy(element));
      return c10::ivalue::Tuple::create(std::move(out));
    }
    // Numbers, strings, devices, … are immutable; anything the pickler cannot write fails in
    // the background and is reported like any other failed save.
    return value;
  }

  // The host storages this copy wrote into, for the next save to reuse.
  std::vector<c10::Storage> take_buffers() { return std::move(buffers_); }

 private:
  at::Tensor copy_tensor(const at::Tensor& tensor) {
    if (!tensor.defined()) return tensor;
    // Sparse, quantized and conjugate/negative-bit tensors have no plain storage to share.
    if (tensor.layout() != at::kStrided || !tensor.has_storage() || tensor.is_quantized() ||
        tensor.is_conj() || tensor.is_neg()) {
      return tensor.detach().to(tensor.options().device(at::kCPU), /*non_blocking=*/false,
                                /*copy=*/true);
    }
    const c10::Storage& storage = tensor.storage();
    auto [it, inserted] = storages_.try_emplace(storage.unsafeGetStorageImpl());
    if (inserted) {
      // Storages are untyped: copy them as bytes so views of another dtype can share them too.
      at::Tensor bytes =
          at::empty({0}, at::TensorOptions().dtype(at::kByte).device(tensor.device()))
              .set_(storage, 0, {static_cast<int64_t>(storage.nbytes())}, {1});
      it->second = copy_bytes(bytes);
      buffers_.push_back(it->second);
    }
    return at::empty({0}, at::TensorOptions().dtype(tensor.dtype()).device(at::kCPU))
        .set_(it->second, tensor.storage_offset(), tensor.sizes(), tensor.strides());
  }

  c10::Storage copy_bytes(const at::Tensor& bytes) {
    const auto nbytes = static_cast<size_t>(bytes.numel());
    for (auto [it, end] = reusable_.equal_range(nbytes); it != end; ++it) {
      // A wrapped CheckpointIO may have kept the tensors it was given; those stay untouched.
      if (it->second.use_count() != 1) continue;
      c10::Storage host = std::move(it->second);
      reusable_.erase(it);
      at::empty({0}, at::TensorOptions().dtype(at::kByte))
          .set_(host, 0, {static_cast<int64_t>(nbytes)}, {1})
          .copy_(bytes);
      return host;
    }
    return bytes.to(bytes.options().device(at::kCPU), /*non_blocking=*/false, /*copy=*/true)
        .storage();
  }

  std::unordered_multimap<size_t, c10::Storage> reusable_;
  std::unordered_map<const c10::StorageImpl*, c10::Storage> storages_;
  std::vector<c10::Storage> buffers_;
};

}  // namespace

AsyncCheckpointIO::AsyncCheckpointIO(std::shared_ptr<CheckpointIO> checkpoint_io)
    : checkpoint_io_(checkpoint_io ? std::move(checkpoint_io)
                                   : std::make_shared<TorchCheckpointIO>()) {}

AsyncCheckpointIO::~AsyncCheckpointIO() {
  try {
    stop_worker();
  } catch (const std::exception& e) {
    std::cerr << "fulgur: AsyncCheckpointIO: " << e.what() << '\n';
  }
  if (!failure_.empty()) {
    // A destructor cannot throw; a checkpoint lost without a word would be worse than a line on
    // stderr. Call teardown() to get it as an exception instead.
    std::cerr << "fulgur: " << failure_ << '\n';
  }
}

void AsyncCheckpointIO::save_checkpoint(const CheckpointDict& checkpoint, const std::string& path) {
  // An earlier failure is reported before anything is queued: a call that raises did nothing.
  raise_if_failed();
  std::vector<c10::Storage> reusable;
  {
    std::lock_guard lock(mutex_);
    reusable.swap(recycled_);
  }
  c10::IValue host_copy;
  std::vector<c10::Storage> buffers;
  try {
    // The copy is the only part the training thread waits for; it must not record autograd.
    torch::NoGradGuard no_grad;
    HostCopier copier(std::move(reusable));
    host_copy = copier.copy(c10::IValue(checkpoint));
    buffers = copier.take_buffers();
  } catch (const std::exception& e) {
    throw CheckpointError(fmt::format(
        "cannot save checkpoint {}: copying it to host memory failed ({})", path, error_text(e)));
  }
  submit({"save checkpoint " + path,
          [snapshot = std::move(host_copy).toGenericDict(), path](CheckpointIO& io) {
            io.save_checkpoint(snapshot, path);
          },
          std::move(buffers)});
}

CheckpointDict AsyncCheckpointIO::load_checkpoint(const std::string& path) {
  // The file may be one of the pending writes; a failed write would make the load read an older
  // file, so that failure is reported instead.
  wait();
  raise_if_failed();
  return checkpoint_io_->load_checkpoint(path);
}

void AsyncCheckpointIO::remove_checkpoint(const std::string& path) {
  raise_if_failed();
  submit({"remove checkpoint " + path, [path](CheckpointIO& io) { io.remove_checkpoint(path); }});
}

void AsyncCheckpointIO::teardown() {
  wait();
  // No thread outlives the fit (the next save starts a new one), nor do its host buffers.
  stop_worker();
  {
    std::lock_guard lock(mutex_);
    recycled_.clear();
  }
  raise_if_failed();
}

void AsyncCheckpointIO::wait() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void AsyncCheckpointIO::submit(Job job) {
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(job));
  // While a stopping worker drains the queue it also runs this job; a second worker would break
  // the order.
  if (!worker_.joinable() && !stopping_) start_worker();
  work_ready_.notify_one();
}

void AsyncCheckpointIO::start_worker() {
  try {
    worker_ = std::thread([this] { run_worker(); });
  } catch (const std::system_error& e) {
    std::string what = std::move(queue_.back().what);
    queue_.pop_back();
    throw CheckpointError(
        fmt::format("cannot {}: cannot start the background thread ({})", what, e.what()));
  }
}

void AsyncCheckpointIO::run_worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();

    std::string failure;
    try {
      job.run(*checkpoint_io_);
    } catch (const CheckpointError& e) {
      failure = e.what();  // already names the file and the cause
    } catch (const std::exception& e) {
      failure = fmt::format("cannot {}: {}", job.what, error_text(e));
    } catch (...) {
      failure = fmt::format("cannot {}: unknown error", job.what);
    }
    // Release the host copy before anyone is told the queue is idle; its buffers (no longer
    // referenced by the snapshot) serve the next save.
    std::vector<c10::Storage> buffers = std::move(job.buffers);
    job = Job{};

    lock.lock();
    busy_ = false;
    if (!buffers.empty()) recycled_.swap(buffers);
    if (!failure.empty()) {
      if (failure_.empty()) {
        failure_ = std::move(failure);
      } else {
        ++later_failures_;
      }
    }
    if (queue_.empty()) idle_.notify_all();
  }
}

void AsyncCheckpointIO::stop_worker() {
  std::thread worker;
  {
    std::lock_guard lock(mutex_);
    if (!worker_.joinable() || stopping_) return;
    stopping_ = true;
    worker = std::move(worker_);
  }
  work_ready_.notify_all();
  worker.join();  // the worker drains the queue before it returns
  std::lock_guard lock(mutex_);
  stopping_ = false;
  // A job queued from another thread just after the worker found the queue empty would wait
  // for the next submit; it gets a worker now instead.
  if (!queue_.empty()) start_worker();
}

void AsyncCheckpointIO::raise_if_failed() {
  std::lock_guard lock(mutex_);
  if (failure_.empty()) return;
  std::string message = std::move(failure_);
  failure_.clear();
  if (later_failures_ > 0) {
    message += fmt::format(" (and {} later checkpoint operation{} failed too)", later_failures_,
                           later_failures_ == 1 ? "" : "s");
    later_failures_ = 0;
  }
  throw CheckpointError(message);
}

}  // namespace fulgur
