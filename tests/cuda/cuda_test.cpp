// On a CUDA device (built only against a LibTorch with CUDA; bench/gpu/run runs it on the device
// machine): the CUDA accelerator's facts and allocator statistics, a fit on the GPU with pinned
// batches copied without blocking, "bf16-mixed" and "16-mixed" forwards on the GPU, the loss
// scaler skipping a step whose gradients overflow, and a checkpoint written on the GPU that a
// CPU Trainer resumes from.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "fulgur/accelerators/cuda_accelerator.h"
#include "fulgur/data/data_loader.h"
#include "fulgur/data/tensor_dataset.h"
#include "fulgur/module.h"
#include "fulgur/precision/grad_scaler.h"
#include "fulgur/precision/mixed_precision.h"
#include "fulgur/strategies/strategy.h"
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
