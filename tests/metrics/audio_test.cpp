// The audio metrics (SignalNoiseRatio, ScaleInvariantSignalDistortionRatio,
// ScaleInvariantSignalNoiseRatio, SourceAggregatedSignalDistortionRatio) against their
// definitions in numpy, torchmetrics' documented values, their invariances, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "fulgur/metrics/audio/scale_invariant_signal_distortion_ratio.h"
#include "fulgur/metrics/audio/scale_invariant_signal_noise_ratio.h"
#include "fulgur/metrics/audio/signal_noise_ratio.h"
#include "fulgur/metrics/audio/source_aggregated_signal_distortion_ratio.h"
#include "fulgur/metrics/metric_error.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::Check;
using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

// Each ratio per sample in float64 numpy, eps that of float32 (the inputs' dtype).
const char* kRatios =
    "eps = float(np.finfo(np.float32).eps)\n"
    "def centre(x, on):\n"
    "    return x - x.mean(-1, keepdims=True) if on else x\n"
    "def db(s, n):\n"
    "    return 10 * np.log10((s + eps) / (n + eps))\n"
    "def snr(p, t, zm=False):\n"
    "    p, t = centre(p, zm), centre(t, zm)\n"
    "    return db((t ** 2).sum(-1), ((t - p) ** 2).sum(-1)).mean()\n"
    "def si_sdr(p, t, zm=False):\n"
    "    p, t = centre(p, zm), centre(t, zm)\n"
    "    a = ((p * t).sum(-1, keepdims=True) + eps) / ((t ** 2).sum(-1, keepdims=True) + eps)\n"
    "    return db(((a * t) ** 2).sum(-1), ((a * t - p) ** 2).sum(-1)).mean()\n"
    "def sa_sdr(p, t, si=True, zm=False):\n"
    "    p, t = centre(p, zm), centre(t, zm)\n"
    "    if si:\n"
    "        t = t * (((p * t).sum((-2, -1), keepdims=True) + eps) /\n"
    "                 ((t ** 2).sum((-2, -1), keepdims=True) + eps))\n"
    "    return db((t ** 2).sum((-2, -1)), ((t - p) ** 2).sum((-2, -1))).mean()\n";

TEST(AudioMetrics, MatchNumpy) {
  torch::manual_seed(3);
  // 11 mixtures of 2 speakers, 50 steps: target plus noise of a different level per sample.
  const auto target = torch::randn({11, 2, 50});
  const auto preds = 0.8 * target + torch::rand({11, 2, 1}) * torch::randn({11, 2, 50}) + 0.3;
  std::vector<Check> checks;
  for (const bool zero_mean : {false, true}) {
    const std::string zm = zero_mean ? "True" : "False";
    SignalNoiseRatio snr({.zero_mean = zero_mean});
    checks.push_back({"SNR " + zm, feed(snr, preds, target), "snr(P, T, " + zm + ")"});
    ScaleInvariantSignalDistortionRatio si_sdr({.zero_mean = zero_mean});
    checks.push_back({"SI-SDR " + zm, feed(si_sdr, preds, target), "si_sdr(P, T, " + zm + ")"});
    for (const bool scale_invariant : {true, false}) {
      const std::string si = scale_invariant ? "True" : "False";
      SourceAggregatedSignalDistortionRatio sa(
          {.scale_invariant = scale_invariant, .zero_mean = zero_mean});
      checks.push_back(
          {"SA-SDR " + si + zm, feed(sa, preds, target), "sa_sdr(P, T, " + si + ", " + zm + ")"});
    }
  }
  ScaleInvariantSignalNoiseRatio si_snr;
  checks.push_back({"SI-SNR", feed(si_snr, preds, target), "si_sdr(P, T, True)"});
  // One sample of [time] alone.
  SignalNoiseRatio single;
  checks.push_back(
      {"SNR [time]", single.forward(preds[0][1], target[0][1]), "snr(P[0][1], T[0][1])"});
  expect_reference(
      std::string(kRatios) + "P = np.array(" + py(preds) + ")\nT = np.array(" + py(target) + ")\n",
      checks, 1e-9);
}

TEST(AudioMetrics, TorchmetricsDocumentedValues) {
  const auto target = torch::tensor({3.0, -0.5, 2.0, 7.0});
  const auto preds = torch::tensor({2.5, 0.0, 2.0, 8.0});
  SignalNoiseRatio snr;
  EXPECT_NEAR(snr.forward(preds, target).item<double>(), 16.1805, 5e-5);
  ScaleInvariantSignalNoiseRatio si_snr;
  EXPECT_NEAR(si_snr.forward(preds, target).item<double>(), 15.0918, 5e-5);
  ScaleInvariantSignalDistortionRatio si_sdr;
  EXPECT_NEAR(si_sdr.forward(preds, target).item<double>(), 18.4030, 5e-5);
  EXPECT_EQ(snr.higher_is_better(), true);
}

TEST(AudioMetrics, ScaleInvarianceAndSilence) {
  torch::manual_seed(5);
  const auto target = torch::randn({4, 64}, torch::kDouble);
  const auto preds = target + 0.1 * torch::randn({4, 64}, torch::kDouble);
  // Rescaling the estimate leaves SI-SDR (and SA-SDR) unchanged, not SNR.
  ScaleInvariantSignalDistortionRatio si_sdr;
  const double base = si_sdr.forward(preds, target).item<double>();
  EXPECT_NEAR(si_sdr.forward(3 * preds, target).item<double>(), base, 1e-9);
  SourceAggregatedSignalDistortionRatio sa;
  const auto mixtures = preds.reshape({2, 2, 64}), sources = target.reshape({2, 2, 64});
  EXPECT_NEAR(sa.forward(0.5 * mixtures, sources).item<double>(),
              sa.forward(mixtures, sources).item<double>(), 1e-9);
  SignalNoiseRatio snr;
  EXPECT_GT(
      snr.forward(preds, target).item<double>() - snr.forward(3 * preds, target).item<double>(),
      10);
  // Silence against silence: eps on both sides makes it 0 dB, in every float dtype.
  for (const auto dtype : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16}) {
    SignalNoiseRatio quiet;
    EXPECT_EQ(
        quiet.forward(torch::zeros({3, 8}, dtype), torch::zeros({3, 8}, dtype)).item<double>(),
        0.0);
  }
  // A perfect float32 estimate: 10 log10((|t|^2 + eps) / eps), large but finite.
  SignalNoiseRatio perfect;
  const auto t = torch::tensor({1.0F, -1.0F});
  EXPECT_NEAR(perfect.forward(t, t).item<double>(),
              10 * std::log10((2 + 1.1920928955078125e-07) / 1.1920928955078125e-07), 1e-9);
}

TEST(AudioMetrics, BadInputIsAClearError) {
  SignalNoiseRatio snr;
  EXPECT_THAT(
      [&] {
        snr.update(torch::zeros({2, 5}), torch::zeros({2, 6}));
      },
      Throws<MetricError>("SignalNoiseRatio", "[2, 6]"));
  EXPECT_THAT([&] { snr.update(torch::zeros({5}, torch::kLong), torch::zeros({5}, torch::kLong)); },
              Throws<MetricError>("SignalNoiseRatio", "must be floating point, not Long and Long"));
  EXPECT_THAT([&] { snr.update(torch::zeros({}), torch::zeros({})); },
              Throws<MetricError>("SignalNoiseRatio", "must be [..., time]"));
  SourceAggregatedSignalDistortionRatio sa;
  EXPECT_THAT([&] { sa.update(torch::zeros({5}), torch::zeros({5})); },
              Throws<MetricError>("SourceAggregatedSignalDistortionRatio",
                                  "[..., speakers, time] with at least one time step, not [5]"));
  EXPECT_THAT([&] { snr.compute(); }, Throws<MetricError>("SignalNoiseRatio", "update"));
}

}  // namespace
}  // namespace fulgur::metrics
