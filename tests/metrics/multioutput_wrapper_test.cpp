// MultioutputWrapper: one metric per output column, against scikit-learn per column (the rows
// with a NaN in that column dropped), torchmetrics' documented R2Score example, classification
// along another output_dim, NaNs kept when asked, forward, a state dict, and the errors.
#include "fulgur/metrics/multioutput_wrapper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/r2_score.h"
#include "fulgur/metrics/running.h"
#include "metrics/classification_helpers.h"
#include "metrics/reference.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::expect_reference;
using fulgur::testing::feed;
using fulgur::testing::py;
using fulgur::testing::Throws;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(MultioutputWrapper, TorchmetricsDocumentedR2) {
  MultioutputWrapper r2(std::make_unique<R2Score>(), 2);
  const auto target = torch::tensor({{0.5, 1.0}, {-1.0, 1.0}, {7.0, -6.0}});
  const auto preds = torch::tensor({{0.0, 2.0}, {-1.0, 2.0}, {8.0, -5.0}});
  const auto value = r2.forward(preds, target);
  ASSERT_EQ(value.sizes(), (std::vector<int64_t>{2}));
  EXPECT_NEAR(value[0].item<double>(), 0.9654, 5e-5);
  EXPECT_NEAR(value[1].item<double>(), 0.9082, 5e-5);
  EXPECT_FALSE(r2.is_scalar());
  EXPECT_EQ(r2.higher_is_better(), true);
}

TEST(MultioutputWrapper, EachOutputMatchesSklearnWithoutItsNanRows) {
  torch::manual_seed(41);
  const int64_t n = 40;
  const auto target = torch::randn({n, 3}, torch::kDouble);
  auto preds = target + 0.5 * torch::randn({n, 3}, torch::kDouble);
  auto holed = target.clone();
  preds.index_put_({3, 0}, kNaN);   // row 3 leaves output 0 only
  holed.index_put_({17, 2}, kNaN);  // row 17 leaves output 2 only
  preds.index_put_({30, 2}, kNaN);  // and row 30, NaN on both sides
  holed.index_put_({30, 2}, kNaN);

  MultioutputWrapper r2(std::make_unique<R2Score>(), 3);
  MultioutputWrapper mse(std::make_unique<MeanSquaredError>(), 3);
  std::string setup = "P = np.array(" + py(preds) + ")\nT = np.array(" + py(holed) +
                      ")\n"
                      "def per_output(f):\n"
                      "    out = []\n"
                      "    for k in range(3):\n"
                      "        keep = ~(np.isnan(P[:, k]) | np.isnan(T[:, k]))\n"
                      "        out.append(f(T[keep, k], P[keep, k]))\n"
                      "    return out\n";
  expect_reference(
      setup, {{"R2Score", feed(r2, preds, holed), "per_output(M.r2_score)"},
              {"MeanSquaredError", feed(mse, preds, holed), "per_output(M.mean_squared_error)"}});

  // The states are the wrapper's own: a fresh wrapper loaded from them computes the same.
  MultioutputWrapper restored(std::make_unique<R2Score>(), 3);
  restored.load_state_dict(r2.state_dict());
  EXPECT_TRUE(torch::allclose(restored.compute(), r2.compute()));
  EXPECT_EQ(r2.state_info().size(), 3 * R2Score().state_info().size());
  EXPECT_EQ(r2.state_info()[0].name, R2Score().state_info()[0].name + "_0");

  // remove_nans = false hands the NaNs to the metric: those outputs are NaN.
  MultioutputWrapper kept(std::make_unique<MeanSquaredError>(), 3, {.remove_nans = false});
  const auto values = feed(kept, preds, holed);
  EXPECT_TRUE(std::isnan(values[0].item<double>()));
  EXPECT_TRUE(std::isnan(values[2].item<double>()));
  EXPECT_EQ(values[1].item<double>(), mse.compute()[1].item<double>());
}

TEST(MultioutputWrapper, ClassificationAlongAnotherDimension) {
  torch::manual_seed(42);
  const int64_t n = 50, classes = 4, outputs = 2;
  const auto scores = torch::randn({n, outputs, classes}, torch::kDouble);
  const auto labels = torch::randint(0, classes, {n, outputs}, torch::kLong);
  MultioutputWrapper accuracy(std::make_unique<Accuracy>(ClassificationOptions{
                                  .task = "multiclass", .num_classes = classes}),
                              outputs, {.output_dim = 1});
  expect_reference("S = np.array(" + py(scores) + ")\nL = np.array(" + py(labels) + ")\n",
                   {{"Accuracy per output", feed(accuracy, scores, labels),
                     "[M.accuracy_score(L[:, k], S[:, k].argmax(1)) for k in range(2)]"}});
  // forward: the batch's values per output.
  const auto batch = accuracy.forward(scores.slice(0, 0, 10), labels.slice(0, 0, 10));
  const auto right = scores.slice(0, 0, 10).argmax(2).eq(labels.slice(0, 0, 10));
  EXPECT_TRUE(torch::allclose(batch, right.to(torch::kDouble).mean(0)));
}

TEST(MultioutputWrapper, BadInputIsAClearError) {
  EXPECT_THAT([] { MultioutputWrapper(nullptr, 2); },
              Throws<ConfigError>("MultioutputWrapper", "not a null pointer"));
  EXPECT_THAT([] { MultioutputWrapper(std::make_unique<R2Score>(), 0); },
              Throws<ConfigError>("MultioutputWrapper(R2Score)", "at least 1, not 0"));
  EXPECT_THAT(
      [] {
        MultioutputWrapper(std::make_unique<Running>(std::make_unique<MeanSquaredError>()), 2);
      },
      Throws<ConfigError>("MultioutputWrapper(Running)", "full_state_update"));
  MultioutputWrapper r2(std::make_unique<R2Score>(), 2);
  EXPECT_THAT(
      [&] {
        r2.update(torch::zeros({5, 3}), torch::zeros({5, 3}));
      },
      Throws<MetricError>("preds has 3 outputs along dim -1 (shape [5, 3])", "expected 2"));
  MultioutputWrapper far(std::make_unique<R2Score>(), 2, {.output_dim = 2});
  EXPECT_THAT(
      [&] {
        far.update(torch::zeros({5, 2}), torch::zeros({5, 2}));
      },
      Throws<MetricError>("output_dim 2 is outside preds", "[5, 2]"));
}

}  // namespace
}  // namespace fulgur::metrics
