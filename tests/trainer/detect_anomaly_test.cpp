// Trainer({.detect_anomaly = true}): a backward that makes a NaN raises, naming the function
// (here the product by 0), and anomaly mode is off again afterwards; without it the NaN passes
// silently (LibTorch's default), as in Lightning.
#include <gtest/gtest.h>

#include <torch/csrc/autograd/anomaly_mode.h>

#include "fulgur/trainer.h"
#include "trainer/recording.h"

namespace fulgur::testing {
namespace {

// Its loss's gradient is 0 * inf = NaN (sqrt's derivative at 0, times the 0 it was scaled by).
class NanGradient : public RecordingModule {
 public:
  explicit NanGradient(Calls& calls) : RecordingModule(calls, 4, 0) {}
  torch::Tensor training_step(Batch& batch, int64_t idx) override {
    const auto loss = RecordingModule::training_step(batch, idx);
    return loss + (parameters()[0] * 0.0).pow(0.5).sum();
  }
};

TEST(DetectAnomaly, ANanInBackwardRaisesNamingTheFunction) {
  Calls calls;
  NanGradient module(calls);
  Trainer trainer(quiet({.max_steps = 1, .detect_anomaly = true}));
  ::testing::internal::CaptureStderr();  // LibTorch's "only for debugging" warning
  try {
    trainer.fit(module);
    ADD_FAILURE() << "expected the anomaly to raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("returned nan values in its 0th output"),
              std::string::npos)
        << e.what();
  }
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(torch::autograd::AnomalyMode::is_enabled());
}

TEST(DetectAnomaly, OffByDefault) {
  Calls calls;
  NanGradient module(calls);
  Trainer trainer(quiet({.max_steps = 1}));
  EXPECT_NO_THROW(trainer.fit(module));
  EXPECT_TRUE(module.parameters()[0].isnan().any().item<bool>());  // the NaN went through
}

}  // namespace
}  // namespace fulgur::testing
