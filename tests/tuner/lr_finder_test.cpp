// The learning-rate range test: Lightning's schedule, smoothing, early stop and suggestion,
// through the Tuner and the LearningRateFinder callback, leaving no trace but the hparam.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fulgur/callbacks/learning_rate_finder.h"
#include "fulgur/errors.h"
#include "fulgur/trainer.h"
#include "fulgur/tuner/tuner.h"
#include "python.h"
#include "temp_dir.h"
#include "trainer/recording.h"
#include "tuner/tunable_module.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;
using testing::TempDirTest;
using testing::TunableModule;

class LRFinderTest : public TempDirTest {
 protected:
  TrainerOptions options() {
    return testing::quiet({.accelerator = "cpu", .max_epochs = 1, .default_root_dir = dir_.string()});
  }
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LRFinderSchedule, ExponentialAndLinearRatesAreLightnings) {
  LRFinder exp({.min_lr = 1e-6, .max_lr = 1.0, .num_training = 10});
  EXPECT_DOUBLE_EQ(exp.lr_at(0), 1e-6);
  EXPECT_NEAR(exp.lr_at(1), 1e-6 * std::pow(1e6, 0.2), 1e-18);
  EXPECT_NEAR(exp.lr_at(9), 1.0, 1e-12);
  LRFinder lin({.min_lr = 0.1, .max_lr = 1.1, .num_training = 10, .mode = "linear"});
  EXPECT_DOUBLE_EQ(lin.lr_at(0), 0.1);
  EXPECT_NEAR(lin.lr_at(1), 0.3, 1e-12);
  EXPECT_NEAR(lin.lr_at(9), 1.1, 1e-12);
}

TEST(LRFinderSchedule, BadOptionsAreConfigErrors) {
  EXPECT_THAT([] { LRFinder({.mode = "cosine"}); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("use \"exponential\" or \"linear\"")));
  EXPECT_THROW(LRFinder({.min_lr = 1.0, .max_lr = 0.1}), ConfigError);
  EXPECT_THROW(LRFinder({.num_training = 0}), ConfigError);
  EXPECT_THROW(LearningRateFinder({.mode = "step"}), ConfigError);
}

// The suggestion equals what Lightning computes with torch.gradient (the rates as spacing, in
// float32) and argmin over the same losses, with the first 10 and the last one skipped and
// non-finite losses left out.
TEST_F(LRFinderTest, SuggestionMatchesTorchGradientArgmin) {
  LRFinder finder({.num_training = 40});
  std::vector<double> losses;
  for (int i = 0; i < 40; ++i) {
    const double x = i / 39.0;
    losses.push_back(2.0 - std::sin(3.0 * x) + 0.3 * x * x * x + 0.01 * std::cos(17.0 * i));
  }
  losses[20] = std::nan("");
  losses[27] = INFINITY;
  for (int i = 0; i < 40; ++i) finder.record(finder.lr_at(i), losses[i]);

  std::string script = "import torch\nloss = [";
  for (double l : losses) script += std::isfinite(l) ? fmt::format("{:.17g},", l) : "float('nan'),";
  script += "]\nlr = [";
  for (double lr : finder.results().lr) script += fmt::format("{:.17g},", lr);
  script +=
      "]\nidx = [i for i in range(10, len(loss) - 1) if loss[i] == loss[i] and abs(loss[i]) != "
      "float('inf')]\ng = torch.gradient(torch.tensor([loss[i] for i in idx]), "
      "spacing=[torch.tensor([lr[i] for i in idx])])[0]\nprint(idx[int(torch.argmin(g))])\n";
  const std::string py = path("suggest.py");
  std::ofstream(py) << script;
  std::FILE* pipe = ::popen((testing::python() + " " + py).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[64] = {};
  ASSERT_NE(std::fgets(buffer, sizeof buffer, pipe), nullptr);
  ASSERT_EQ(::pclose(pipe), 0);
  const size_t expected = std::stoul(buffer);

  ASSERT_TRUE(finder.optimal_index());
  EXPECT_EQ(*finder.optimal_index(), expected);
  EXPECT_DOUBLE_EQ(*finder.suggestion(), finder.results().lr[expected]);
}

TEST_F(LRFinderTest, TheGradientIsTakenWithRespectToTheRate) {
  // Lightning's index 13 (rate 1e-3 * 1000^(14/20)); unit spacing would pick 14.
  LRFinder finder({.min_lr = 1e-3, .max_lr = 1.0, .num_training = 20});
  const std::vector<double> losses = {5,   5,   5,   5,   5,   5,   5,   5,    5,    5,
                                      5.0, 4.9, 4.7, 4.0, 3.0, 2.2, 1.8, 1.7, 1.65, 1.6};
  for (int i = 0; i < 20; ++i) finder.record(finder.lr_at(i), losses[i]);
  EXPECT_EQ(finder.optimal_index(), std::optional<size_t>(13));
}

TEST_F(LRFinderTest, TooFewPointsGiveNoSuggestion) {
  LRFinder finder({.num_training = 12});
  for (int i = 0; i < 12; ++i) finder.record(finder.lr_at(i), 1.0 / (i + 1));
  EXPECT_FALSE(finder.suggestion());  // 12 - 10 - 1 = 1 point left
  EXPECT_TRUE(finder.suggestion(/*skip_begin=*/0));
}

TEST_F(LRFinderTest, TunerRecordsEveryStepSetsTheHparamAndRestoresTheWeights) {
  TunableModule module;
  module.save_hyperparameters({{"lr", 0.5}});
  const auto before = module.weights();
  Trainer trainer(options());
  ::testing::internal::CaptureStdout();
  auto finder = Tuner(trainer).lr_find(module, module.train_loader_of(8), nullptr,
                                       {.min_lr = 1e-3, .max_lr = 0.5, .num_training = 30});
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder);

  const auto& r = finder->results();
  ASSERT_EQ(r.lr.size(), 30u);  // 256 samples / 8 = 32 batches: no early stop below 0.5
  ASSERT_EQ(r.loss.size(), 30u);
  for (int64_t k = 0; k < 30; ++k) EXPECT_DOUBLE_EQ(r.lr[k], finder->lr_at(k));
  for (double l : r.loss) EXPECT_TRUE(std::isfinite(l));
  // Lightning's smoothing of the step losses: a running mean with beta 0.98, bias-corrected by
  // 1 - 0.98^(global_step + 1), the global step counted after the step.
  ASSERT_EQ(module.losses_seen.size(), 30u);
  double avg = 0;
  for (size_t k = 0; k < 30; ++k) {
    avg = 0.98 * avg + 0.02 * module.losses_seen[k];
    EXPECT_NEAR(r.loss[k], avg / (1 - std::pow(0.98, k + 2.0)), 1e-9 * avg) << k;
  }
  EXPECT_LT(module.losses_seen.back(), 0.1 * module.losses_seen.front());

  const auto suggestion = finder->suggestion();
  ASSERT_TRUE(suggestion);
  EXPECT_DOUBLE_EQ(std::get<double>(module.hparams().at("lr")), *suggestion);
  EXPECT_THAT(out, HasSubstr(fmt::format("Learning rate set to {}\n", *suggestion)));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("stopped early")));
  EXPECT_TRUE(torch::equal(module.weights(), before));
  // The search wrote nothing: no logs, no checkpoints.
  EXPECT_TRUE(std::filesystem::is_empty(dir_));

  // The real fit configures its optimizer with the suggestion.
  trainer.fit(module, module.train_loader_of(8));
  EXPECT_DOUBLE_EQ(module.configured_lrs.back(), *suggestion);
  EXPECT_EQ(trainer.global_step(), 32);  // the given loader starts its epoch at the first batch
}

TEST_F(LRFinderTest, DivergingLossStopsTheSearchEarly) {
  TunableModule module;
  auto o = options();
  o.max_epochs = 2;  // room for all 60 steps: only the divergence stops the search
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  auto finder = Tuner(trainer).lr_find(
      module, module.train_loader_of(8), nullptr,
      {.min_lr = 1e-3, .max_lr = 100.0, .num_training = 60, .update_attr = false});
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder);
  const size_t steps = finder->results().loss.size();
  EXPECT_LT(steps, 60u);
  EXPECT_THAT(out, HasSubstr(fmt::format("LR finder stopped early after {} steps due to diverging loss.", steps)));
  // The last loss is the one that crossed 4 × the best.
  const auto& loss = finder->results().loss;
  const double best = *std::min_element(loss.begin(), loss.end() - 1);
  EXPECT_GT(loss.back(), 4.0 * best);
  EXPECT_FALSE(module.hparams().contains("lr"));
}

// As Lightning's, the search runs the user's loop settings: max_epochs and limit_train_batches
// bound it, and validation runs where the fit's would.
TEST_F(LRFinderTest, TheSearchKeepsTheTrainersLoopLimitsAndValidation) {
  TunableModule module;  // 256 training and 64 validation samples
  module.save_hyperparameters({{"lr", 0.5}, {"batch_size", int64_t{8}}});
  Trainer trainer(options());  // max_epochs = 1: 32 batches
  ::testing::internal::CaptureStdout();
  auto finder = Tuner(trainer).lr_find(module, nullptr, nullptr, {.num_training = 100});
  std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder);
  EXPECT_EQ(finder->results().lr.size(), 32u);
  EXPECT_THAT(out, HasSubstr("LR finder stopped early after 32 steps due to diverging loss."));
  // 32 training batches, then the epoch's validation: 64 samples in batches of 8.
  EXPECT_EQ(module.batch_sizes_seen.size(), 32u + 8u);

  TunableModule limited;
  limited.save_hyperparameters({{"lr", 0.5}, {"batch_size", int64_t{8}}});
  auto o = options();
  o.max_epochs = 2;
  o.limit_train_batches = int64_t{5};
  Trainer short_epochs(o);
  ::testing::internal::CaptureStdout();
  finder = Tuner(short_epochs).lr_find(limited, nullptr, nullptr, {.num_training = 100});
  out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder);
  EXPECT_EQ(finder->results().lr.size(), 10u);
  // Too few points for a suggestion (10 skipped at the start, 1 at the end): lr stays.
  EXPECT_FALSE(finder->suggestion());
  EXPECT_DOUBLE_EQ(std::get<double>(limited.hparams().at("lr")), 0.5);
}

TEST_F(LRFinderTest, FitAfterASearchWithoutUpdateEqualsAFitWithoutSearch) {
  auto fit = [&](bool search) {
    TunableModule module;
    torch::manual_seed(11);
    Trainer trainer(options());
    if (search) {
      ::testing::internal::CaptureStdout();
      Tuner(trainer).lr_find(module, module.train_loader_of(16), nullptr,
                             {.num_training = 20, .update_attr = false});
      ::testing::internal::GetCapturedStdout();
    }
    trainer.fit(module, module.train_loader_of(16));
    return module.weights();
  };
  const auto plain = fit(false);
  const auto searched = fit(true);
  EXPECT_TRUE(torch::equal(plain, searched)) << plain << searched;
}

TEST_F(LRFinderTest, CallbackSearchesAtFitStartAndTrainsAtTheSuggestion) {
  TunableModule module;
  module.save_hyperparameters({{"learning_rate", 0.5}, {"batch_size", int64_t{8}}});
  auto callback = std::make_shared<LearningRateFinder>(
      LRFinderOptions{.min_lr = 1e-4, .max_lr = 0.1, .num_training = 25});
  auto o = options();
  o.callbacks = {callback};
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);  // loaders from the Module's hooks
  ::testing::internal::GetCapturedStdout();

  ASSERT_TRUE(callback->optimal_lr());
  const auto suggestion = callback->optimal_lr()->suggestion();
  ASSERT_TRUE(suggestion);
  EXPECT_DOUBLE_EQ(std::get<double>(module.hparams().at("learning_rate")), *suggestion);
  const auto& group = trainer.optimizers().front()->param_groups().front();
  EXPECT_DOUBLE_EQ(group.options().get_lr(), *suggestion);
  EXPECT_EQ(trainer.global_step(), 32);  // a full epoch after the search's 25 steps
  EXPECT_EQ(module.trainer(), &trainer);  // the search's trials handed the module back
}

TEST_F(LRFinderTest, TheFinderRunsBeforeTheOtherCallbacksOnFitStart) {
  // As Lightning's _reorder_callbacks: listed last, it still searches first, so another
  // callback's on_fit_start sees the rate it set.
  struct ReadsTheRate : Callback {
    double lr = 0;
    void on_fit_start(Trainer& trainer, Module&) override {
      lr = trainer.optimizers().front()->param_groups().front().options().get_lr();
    }
  };
  TunableModule module;
  module.save_hyperparameters({{"learning_rate", 0.5}, {"batch_size", int64_t{8}}});
  auto reader = std::make_shared<ReadsTheRate>();
  auto finder = std::make_shared<LearningRateFinder>(
      LRFinderOptions{.min_lr = 1e-4, .max_lr = 0.1, .num_training = 25});
  auto o = options();
  o.callbacks = {reader, finder};
  Trainer trainer(o);
  ::testing::internal::CaptureStdout();
  trainer.fit(module);
  ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder->optimal_lr() && finder->optimal_lr()->suggestion());
  EXPECT_DOUBLE_EQ(reader->lr, *finder->optimal_lr()->suggestion());
}

TEST_F(LRFinderTest, PlotWritesAnSvgWithTheCurveAndTheSuggestion) {
  TunableModule module;
  Trainer trainer(options());
  ::testing::internal::CaptureStdout();
  auto finder = Tuner(trainer).lr_find(module, module.train_loader_of(8), nullptr,
                                       {.max_lr = 0.1, .num_training = 30, .update_attr = false});
  ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(finder);
  finder->plot(path("lr_find.svg"));
  const std::string svg = read(path("lr_find.svg"));
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("data-series=\"loss\""));
  EXPECT_THAT(svg, HasSubstr("class=\"marker\""));
  EXPECT_THAT(svg, HasSubstr(fmt::format("suggested lr {:.3g}", *finder->suggestion())));
  EXPECT_THAT(svg, HasSubstr("Learning rate"));
}

TEST_F(LRFinderTest, ClearErrors) {
  TunableModule module;
  Trainer trainer(options());
  auto loader = module.train_loader_of(8);
  EXPECT_THAT([&] { Tuner(trainer).lr_find(module, loader); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("['lr', 'learning_rate']")));
  EXPECT_THAT([&] { Tuner(trainer).lr_find(module, loader, nullptr, {.attr_name = "my_lr"}); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("was set to my_lr")));

  auto o = options();
  o.callbacks = {std::make_shared<LearningRateFinder>()};
  Trainer with_callback(o);
  EXPECT_THAT([&] { Tuner(with_callback).lr_find(module, loader); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("already configured with a LearningRateFinder")));

  Trainer ddp(testing::quiet({.accelerator = "cpu", .strategy = "ddp", .devices = 2}));
  EXPECT_THAT(
      [&] { Tuner(ddp).lr_find(module, loader, nullptr, {.update_attr = false}); },
      ::testing::ThrowsMessage<ConfigError>(HasSubstr("does not support distributed strategies")));
}

TEST_F(LRFinderTest, FastDevRunSkipsTheSearch) {
  TunableModule module;
  auto o = options();
  o.fast_dev_run = true;
  Trainer trainer(o);
  ::testing::internal::CaptureStderr();
  auto finder = Tuner(trainer).lr_find(module, module.train_loader_of(8));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("Skipping learning rate finder since `fast_dev_run` is enabled."));
  EXPECT_FALSE(finder);
}

class TwoOptimizers : public TunableModule {
 public:
  OptimizerConfig configure_optimizers() override {
    auto a = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    auto b = std::make_shared<torch::optim::SGD>(parameters(), torch::optim::SGDOptions(0.1));
    return OptimizerConfig({a, b}, {});
  }
};

TEST_F(LRFinderTest, SeveralOptimizersAreAMisconfiguration) {
  TwoOptimizers module;
  module.set_automatic_optimization(false);
  Trainer trainer(options());
  EXPECT_THAT(
      [&] { Tuner(trainer).lr_find(module, module.train_loader_of(8), nullptr, {.update_attr = false}); },
      ::testing::ThrowsMessage<MisconfigurationError>(HasSubstr("returned 2 optimizers")));
}

}  // namespace
}  // namespace fulgur
