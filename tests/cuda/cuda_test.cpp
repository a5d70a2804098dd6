// On a CUDA device (built only against a LibTorch with CUDA; bench/gpu/run runs it on the device
// machine): the CUDA accelerator's facts and allocator statistics, a fit on the GPU with pinned
// batches copied without blocking, batches copied on a copy stream of their own (by the Trainer
// and by Fabric's loaders), the step replayed as a CUDA graph, "bf16-mixed" and "16-mixed"
// forwards on the GPU, the loss scaler skipping a step whose gradients overflow, and a
// checkpoint written on the GPU that a CPU Trainer resumes from.
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/errors.h"
#include "fulgur/fabric/fabric.h"
#include "fulgur/module.h"
#include "fulgur/precision/grad_scaler.h"
#include "fulgur/precision/mixed_precision.h"
#include "fulgur/strategies/single_device_strategy.h"
#include "fulgur/trainer.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(CUDAAccelerator, SeesTheDeviceAndReportsItsAllocator) {
  CUDAAccelerator cuda;
  ASSERT_TRUE(cuda.is_available());
  ASSERT_GE(cuda.auto_device_count(), 1);
  const auto ids = cuda.parse_devices(Devices(-1));
  EXPECT_EQ(static_cast<int>(ids.size()), cuda.auto_device_count());
  const c10::Device device(c10::kCUDA, 0);
  cuda.setup_device(device);
  const auto tensor = torch::ones({1 << 18}, torch::device(device));  // 1 MiB of float32
  cuda.synchronize(device);
  const auto stats = cuda.device_stats(device);
  EXPECT_GE(stats.at("allocated_bytes.all.current"), double(1 << 20));
  EXPECT_GE(stats.at("reserved_bytes.all.peak"), stats.at("allocated_bytes.all.current"));
  EXPECT_EQ(stats.at("num_ooms"), 0.0);
  EXPECT_TRUE(tensor.is_cuda());
}

// y = 3x - 1; records where and in what each step computed.
class Line : public Module {
 public:
  explicit Line(int64_t bad_step = -1) : Module("Line"), bad_step_(bad_step) {
    linear_ = register_module("linear", torch::nn::Linear(1, 1));
  }
  Batch on_before_batch_transfer(Batch batch, int64_t) override {
    pinned_before_transfer = pinned_before_transfer && batch.data.is_pinned();
    return batch;
  }
  torch::Tensor training_step(Batch& batch, int64_t batch_idx) override {
    on_cuda = on_cuda && batch.data.is_cuda() && linear_->weight.is_cuda();
    weights_before.push_back(linear_->weight.detach().cpu().clone());
    auto out = linear_(batch.data);
    forward_dtype = out.scalar_type();
    auto loss = torch::mse_loss(out.to(torch::kFloat32), batch.target.to(torch::kFloat32));
    losses.push_back(loss.item<double>());
    return batch_idx == bad_step_ ? loss * kInf : loss;
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.3));
  }
  torch::nn::Linear linear_{nullptr};
  bool pinned_before_transfer = true;
  bool on_cuda = true;
  c10::ScalarType forward_dtype = torch::kFloat64;
  std::vector<double> losses;
  std::vector<torch::Tensor> weights_before;

 private:
  int64_t bad_step_;
};

std::shared_ptr<DataLoader> line_data() {
  torch::manual_seed(0);
  auto x = torch::rand({64, 1});
  return std::make_shared<DataLoader>(std::make_shared<TensorDataset>(x, 3 * x - 1),
                                      DataLoaderOptions{.batch_size = 8});
}

TrainerOptions on_gpu(PrecisionFlag precision, int64_t epochs) {
  return {.accelerator = "cuda",
          .devices = 1,
          .precision = std::move(precision),
          .logger = false,
          .max_epochs = epochs,
          .enable_checkpointing = false,
          .enable_progress_bar = false,
          .enable_model_summary = false};
}

TEST(CUDATrainer, FitsOnTheGpuWithPinnedBatches) {
  torch::manual_seed(0);
  Line model;
  Trainer trainer(on_gpu("32-true", 10));
  trainer.fit(model, line_data());
  EXPECT_TRUE(trainer.strategy().root_device().is_cuda());
  EXPECT_EQ(trainer.accelerator().name(), "cuda");
  EXPECT_TRUE(model.on_cuda) << "batches and weights must be on the GPU in training_step";
  EXPECT_TRUE(model.pinned_before_transfer) << "the loader pins batches for a CUDA fit";
  EXPECT_EQ(model.forward_dtype, torch::kFloat32);
  ASSERT_EQ(model.losses.size(), 80u);
  EXPECT_LT(model.losses.back(), model.losses.front() / 10);
}

// Notes whether each batch was copied with the device's default stream current.
class StreamWatchingLine : public Line {
 public:
  Batch transfer_batch_to_device(Batch batch, const torch::Device& device, int64_t idx) override {
    const c10::impl::VirtualGuardImpl cuda(c10::kCUDA);
    on_default_stream.push_back(cuda.getStream(device) == cuda.getDefaultStream(device));
    return Line::transfer_batch_to_device(std::move(batch), device, idx);
  }
  std::vector<bool> on_default_stream;
};

TEST(CUDATrainer, TheCopyStreamCopiesBatchesBesideTheComputeStreamToTheSameResult) {
  torch::manual_seed(0);
  StreamWatchingLine plain;
  Trainer(on_gpu("32-true", 3)).fit(plain, line_data());

  torch::manual_seed(0);
  StreamWatchingLine copied;
  TrainerOptions options = on_gpu("32-true", 3);
  options.accelerator =
      std::make_shared<CUDAAccelerator>(CUDAAcceleratorOptions{.copy_stream = true});
  Trainer(options).fit(copied, line_data());

  EXPECT_EQ(plain.on_default_stream, std::vector<bool>(24, true));
  EXPECT_EQ(copied.on_default_stream, std::vector<bool>(24, false));
  EXPECT_TRUE(copied.on_cuda);
  EXPECT_EQ(copied.losses, plain.losses) << "every step must see the whole of its batch";
  const c10::impl::VirtualGuardImpl cuda(c10::kCUDA);
  const c10::Device gpu(c10::kCUDA, 0);
  EXPECT_EQ(cuda.getStream(gpu), cuda.getDefaultStream(gpu)) << "the compute stream is current";
}

// Fabric's loaders copy on the copy stream too (Strategy::copy_to_device): every batch on the
// GPU, the same losses as without, the compute stream current in the loop body.
TEST(CUDAFabric, LoadersCopyOnTheCopyStreamToTheSameResult) {
  auto losses_with = [](bool copy_stream) {
    FabricOptions options{.accelerator = "cuda", .devices = 1};
    if (copy_stream) {
      options.accelerator =
          std::make_shared<CUDAAccelerator>(CUDAAcceleratorOptions{.copy_stream = true});
    }
    Fabric fabric(options);
    torch::manual_seed(0);
    torch::nn::Linear model(1, 1);
    auto optimizer =
        fabric.setup(*model, std::make_shared<torch::optim::SGD>(model->parameters(), 0.3));
    auto loader = fabric.setup_dataloaders(line_data());
    const c10::impl::VirtualGuardImpl cuda(c10::kCUDA);
    const c10::Device gpu(c10::kCUDA, 0);
    std::vector<float> losses;
    for (int epoch = 0; epoch < 3; ++epoch) {
      for (auto& batch : loader) {
        EXPECT_TRUE(batch.data.is_cuda() && batch.target.is_cuda());
        EXPECT_EQ(cuda.getStream(gpu), cuda.getDefaultStream(gpu));
        optimizer->zero_grad();
        auto loss = torch::mse_loss(model(batch.data), batch.target);
        fabric.backward(loss);
        optimizer->step();
        losses.push_back(loss.item<float>());
      }
    }
    return losses;
  };
  const auto plain = losses_with(false);
  EXPECT_EQ(plain.size(), 24u);
  EXPECT_EQ(losses_with(true), plain) << "every step must see the whole of its batch";
}

// Copies large enough to be caught half done (64 MiB each, milliseconds on the copy engine).
TEST(CUDATrainer, KernelsAfterACopyStreamTransferSeeTheWholeBatch) {
  class Plain : public Module {
   public:
    Plain() : Module("Plain") {}
    torch::Tensor training_step(Batch&, int64_t) override { return {}; }
    OptimizerConfig configure_optimizers() override { return {}; }
  } module;
  SingleDeviceStrategy strategy(c10::Device(c10::kCUDA, 0));
  strategy.set_accelerator(
      std::make_shared<CUDAAccelerator>(CUDAAcceleratorOptions{.copy_stream = true}));
  strategy.set_precision(std::make_shared<Precision>());
  const int64_t n = int64_t{1} << 24;
  auto batch_of = [&](int value) {
    return Batch{torch::full({n}, float(value)).pin_memory(),
                 torch::full({1}, value, torch::kLong).pin_memory()};
  };
  // The compute stream is idle: without the wait for the copy, the sum would start at once and
  // read what has not arrived yet.
  for (int round = 1; round <= 3; ++round) {
    const Batch on_gpu = strategy.batch_to_device(module, batch_of(round), 0);
    ASSERT_TRUE(on_gpu.data.is_cuda());
    EXPECT_EQ(on_gpu.data.sum().item<double>(), double(n) * round) << "round " << round;
    EXPECT_EQ(on_gpu.target.item<int64_t>(), round);
  }
  // The compute stream is busy, so each batch's sum runs late, after its batch was freed: the
  // next copy must not be handed that memory before the sum has read it.
  std::vector<torch::Tensor> sums;
  for (int round = 1; round <= 4; ++round) {
    const Batch on_gpu = strategy.batch_to_device(module, batch_of(round), 0);
    auto busy = torch::ones({4096, 4096}, torch::device(torch::kCUDA));
    for (int i = 0; i < 4; ++i) busy = busy.matmul(busy) / 4096;
    sums.push_back(on_gpu.data.sum());
  }
  for (int round = 1; round <= 4; ++round) {
    EXPECT_EQ(sums[round - 1].item<double>(), double(n) * round) << "late sum, round " << round;
  }
}

// A step a CUDA graph can replay: no host reads in it (Line reads each loss).
class GraphSafeLine : public Module {
 public:
  GraphSafeLine() : Module("GraphSafeLine") {
    linear_ = register_module("linear", torch::nn::Linear(1, 1));
  }
  torch::Tensor training_step(Batch& batch, int64_t) override {
    ++host_runs;
    auto loss = torch::mse_loss(linear_(batch.data), batch.target);
    log("train_loss", loss, {.on_step = false, .on_epoch = true});
    return loss;
  }
  OptimizerConfig configure_optimizers() override {
    return std::make_shared<torch::optim::SGD>(parameters(),
                                               torch::optim::SGDOptions(0.3).momentum(0.9));
  }
  torch::nn::Linear linear_{nullptr};
  int host_runs = 0;
};

TrainerOptions graphed_on_gpu(PrecisionFlag precision, int64_t epochs) {
  TrainerOptions options = on_gpu(std::move(precision), epochs);
  options.accelerator = std::make_shared<CUDAAccelerator>(
      CUDAAcceleratorOptions{.cuda_graph = true, .cuda_graph_warmup_steps = 3});
  return options;
}

TEST(CUDATrainer, ACudaGraphReplaysTheStepToTheEagerResult) {
  for (const char* precision : {"32-true", "bf16-mixed"}) {
    torch::manual_seed(0);
    GraphSafeLine eager;
    Trainer eager_trainer(on_gpu(precision, 3));
    eager_trainer.fit(eager, line_data());

    torch::manual_seed(0);
    GraphSafeLine graphed;
    Trainer graphed_trainer(graphed_on_gpu(precision, 3));
    graphed_trainer.fit(graphed, line_data());

    EXPECT_EQ(graphed.host_runs, 4) << precision << ": 3 warm-up steps and the capture";
    EXPECT_EQ(graphed_trainer.global_step(), 24) << precision;
    // The same kernels on the same numbers; a tolerance only for a kernel choice that may
    // differ between the warm-up's stream and the default one.
    EXPECT_TRUE(torch::allclose(graphed.linear_->weight, eager.linear_->weight, 1e-5, 1e-7))
        << precision << ": " << graphed.linear_->weight << " vs " << eager.linear_->weight;
    EXPECT_TRUE(torch::allclose(graphed.linear_->bias, eager.linear_->bias, 1e-5, 1e-7))
        << precision;
    const double eager_loss = eager_trainer.callback_metrics().at("train_loss");
    EXPECT_NEAR(graphed_trainer.callback_metrics().at("train_loss"), eager_loss, 1e-5 * eager_loss)
        << precision << ": the last epoch's mean loss, from the replays' logged values";
  }
}

TEST(CUDATrainer, AStepThatReadsTheDeviceCannotBeCapturedAndTheGpuStaysUsable) {
  torch::manual_seed(0);
  Line reads_each_loss;  // loss.item() in training_step
  Trainer trainer(graphed_on_gpu("32-true", 1));
  try {
    trainer.fit(reads_each_loss, line_data());
    ADD_FAILURE() << "the capture must fail";
  } catch (const MisconfigurationError& e) {
    EXPECT_NE(std::string(e.what()).find("could not be captured as a CUDA graph"),
              std::string::npos)
        << e.what();
  }
  GraphSafeLine after;
  Trainer next(graphed_on_gpu("32-true", 1));
  next.fit(after, line_data());
  EXPECT_EQ(next.global_step(), 8);
}

TEST(CUDATrainer, MixedPrecisionForwardsInBfloat16AndFloat16) {
  for (const auto& [name, dtype] : {std::pair{"bf16-mixed", torch::kBFloat16},
                                    std::pair{"16-mixed", torch::kHalf}}) {
    torch::manual_seed(0);
    Line model;
    Trainer trainer(on_gpu(name, 10));
    trainer.fit(model, line_data());
    EXPECT_EQ(model.forward_dtype, dtype) << name;
    EXPECT_EQ(model.linear_->weight.scalar_type(), torch::kFloat32) << name;
    EXPECT_LT(model.losses.back(), model.losses.front() / 10) << name;
  }
}

TEST(CUDATrainer, Float16SkipsAStepWhoseGradientsOverflowAndBacksOff) {
  auto precision = std::make_shared<MixedPrecision>(torch::kHalf, c10::kCUDA,
                                                    std::make_shared<GradScaler>());
  torch::manual_seed(0);
  Line model(/*bad_step=*/1);
  Trainer trainer(on_gpu(precision, 1));
  trainer.fit(model, line_data());
  ASSERT_EQ(model.weights_before.size(), 8u);
  EXPECT_FALSE(torch::equal(model.weights_before[0], model.weights_before[1]));
  EXPECT_TRUE(torch::equal(model.weights_before[1], model.weights_before[2]))
      << "the overflowing step must leave the weights alone";
  EXPECT_EQ(precision->scaler()->current_scale(), 32768.0);
  EXPECT_EQ(precision->scaler()->growth_tracker(), 6);
}

class CUDACheckpointTest : public testing::TempDirTest {};

TEST_F(CUDACheckpointTest, ACheckpointWrittenOnTheGpuResumesOnTheCpu) {
  torch::manual_seed(0);
  Line model;
  Trainer gpu(on_gpu("32-true", 1));
  gpu.fit(model, line_data());
  const std::string path = this->path("gpu.ckpt");
  gpu.save_checkpoint(path);

  Line resumed;
  TrainerOptions cpu = on_gpu("32-true", 1);
  cpu.accelerator = "cpu";
  Trainer trainer(cpu);
  trainer.fit(resumed, line_data(), nullptr, path);  // at max_epochs already: restores, stops
  EXPECT_EQ(trainer.global_step(), 8);
  EXPECT_FALSE(resumed.linear_->weight.is_cuda());
  EXPECT_TRUE(torch::equal(resumed.linear_->weight.detach(), model.linear_->weight.detach().cpu()));
}

}  // namespace
}  // namespace fulgur
