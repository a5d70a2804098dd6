// The Metric base: compute() before update(), reset, caching, sync/unsync across a world of
// threads (sums of states, gathered cat states of uneven lengths, a rank without samples),
// misuse of sync, state_dict round trips (also through pickle) and the CheckpointErrors of
// states that do not fit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/adjusted_mutual_info_score.h"
#include "fulgur/metrics/adjusted_rand_score.h"
#include "fulgur/metrics/audio/scale_invariant_signal_distortion_ratio.h"
#include "fulgur/metrics/audio/source_aggregated_signal_distortion_ratio.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/average_precision.h"
#include "fulgur/metrics/calibration_error.h"
#include "fulgur/metrics/cluster_accuracy.h"
#include "fulgur/metrics/cohen_kappa.h"
#include "fulgur/metrics/concordance_corr_coef.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/continuous_ranked_probability_score.h"
#include "fulgur/metrics/cosine_similarity.h"
#include "fulgur/metrics/cramers_v.h"
#include "fulgur/metrics/critical_success_index.h"
#include "fulgur/metrics/davies_bouldin_score.h"
#include "fulgur/metrics/dice_score.h"
#include "fulgur/metrics/dunn_index.h"
#include "fulgur/metrics/exact_match.h"
#include "fulgur/metrics/explained_variance.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/fleiss_kappa.h"
#include "fulgur/metrics/generalized_dice_score.h"
#include "fulgur/metrics/hamming_distance.h"
#include "fulgur/metrics/hinge_loss.h"
#include "fulgur/metrics/image/multi_scale_structural_similarity_index_measure.h"
#include "fulgur/metrics/image/peak_signal_noise_ratio.h"
#include "fulgur/metrics/image/relative_average_spectral_error.h"
#include "fulgur/metrics/image/root_mean_squared_error_using_sliding_window.h"
#include "fulgur/metrics/image/spatial_correlation_coefficient.h"
#include "fulgur/metrics/image/structural_similarity_index_measure.h"
#include "fulgur/metrics/jaccard_index.h"
#include "fulgur/metrics/jensen_shannon_divergence.h"
#include "fulgur/metrics/kendall_rank_corr_coef.h"
#include "fulgur/metrics/kl_divergence.h"
#include "fulgur/metrics/log_auc.h"
#include "fulgur/metrics/log_cosh_error.h"
#include "fulgur/metrics/matthews_corr_coef.h"
#include "fulgur/metrics/max_metric.h"
#include "fulgur/metrics/mean_iou.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/metric_error.h"
#include "fulgur/metrics/minkowski_distance.h"
#include "fulgur/metrics/multilabel_coverage_error.h"
#include "fulgur/metrics/multilabel_ranking_loss.h"
#include "fulgur/metrics/multioutput_wrapper.h"
#include "fulgur/metrics/negative_predictive_value.h"
#include "fulgur/metrics/normalized_mutual_info_score.h"
#include "fulgur/metrics/normalized_root_mean_squared_error.h"
#include "fulgur/metrics/pearson_corr_coef.h"
#include "fulgur/metrics/precision_recall_curve.h"
#include "fulgur/metrics/r2_score.h"
#include "fulgur/metrics/recall_at_fixed_precision.h"
#include "fulgur/metrics/relative_squared_error.h"
#include "fulgur/metrics/roc.h"
#include "fulgur/metrics/sensitivity_at_specificity.h"
#include "fulgur/metrics/spearman_corr_coef.h"
#include "fulgur/metrics/sum_metric.h"
#include "fulgur/metrics/symmetric_mean_absolute_percentage_error.h"
#include "fulgur/metrics/text/perplexity.h"
#include "fulgur/metrics/theils_u.h"
#include "fulgur/metrics/tweedie_deviance_score.h"
#include "fulgur/metrics/weighted_mean_absolute_percentage_error.h"
#include "metrics/thread_world.h"

namespace fulgur::metrics {
namespace {

using fulgur::testing::ThreadRank;
using fulgur::testing::ThreadWorld;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

struct Case {
  std::string name;
  std::function<std::unique_ptr<Metric>()> make;
  at::Tensor preds, target;  // the whole data set
};

std::vector<Case> cases() {
  torch::manual_seed(31);
  const int64_t n = 90, c = 3;
  const auto scores = torch::randn({n, c}, torch::kDouble);
  const auto labels = torch::randint(0, c, {n}, torch::kLong);
  const auto binary = torch::randint(0, 2, {n}, torch::kLong);
  const auto y = torch::randn({n}, torch::kDouble);
  const auto yhat = y + torch::randn({n}, torch::kDouble);
  const auto labelled = (scores + torch::randn({n, c}, torch::kDouble)).gt(0).to(torch::kLong);
  return {
      {"Accuracy macro",
       [] {
         return std::make_unique<Accuracy>(
             ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = "macro"});
       },
       scores, labels},
      {"F1Score weighted",
       [] {
         return std::make_unique<F1Score>(
             ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = "weighted"});
       },
       scores, labels},
      {"ConfusionMatrix",
       [] {
         return std::make_unique<ConfusionMatrix>(
             ConfusionMatrixOptions{.task = "multiclass", .num_classes = 3, .normalize = "true"});
       },
       scores, labels},
      {"MatthewsCorrCoef",
       [] {
         return std::make_unique<MatthewsCorrCoef>(
             MatthewsCorrCoefOptions{.task = "multiclass", .num_classes = 3});
       },
       scores, labels},
      {"CohenKappa linear",
       [] {
         return std::make_unique<CohenKappa>(
             CohenKappaOptions{.task = "multiclass", .num_classes = 3, .weights = "linear"});
       },
       scores, labels},
      {"JaccardIndex",
       [] {
         return std::make_unique<JaccardIndex>(
             JaccardIndexOptions{.task = "multiclass", .num_classes = 3});
       },
       scores, labels},
      {"AUROC binary", [] { return std::make_unique<AUROC>(AUROCOptions{.task = "binary"}); },
       scores.select(1, 0).contiguous(), binary},
      {"AUROC multiclass",
       [] { return std::make_unique<AUROC>(AUROCOptions{.task = "multiclass", .num_classes = 3}); },
       scores.softmax(1), labels},
      {"AUROC binned weighted",
       [] {
         return std::make_unique<AUROC>(AUROCOptions{
             .task = "multiclass", .num_classes = 3, .average = "weighted", .thresholds = 20});
       },
       scores, labels},
      {"AveragePrecision binary",
       [] { return std::make_unique<AveragePrecision>(AveragePrecisionOptions{.task = "binary"}); },
       scores.select(1, 0).contiguous(), binary},
      {"AveragePrecision weighted",
       [] {
         return std::make_unique<AveragePrecision>(AveragePrecisionOptions{
             .task = "multiclass", .num_classes = 3, .average = "weighted"});
       },
       scores, labels},
      {"F1Score multilabel macro",
       [] {
         return std::make_unique<F1Score>(
             ClassificationOptions{.task = "multilabel", .num_labels = 3, .average = "macro"});
       },
       scores, labelled},
      {"ConfusionMatrix multilabel",
       [] {
         return std::make_unique<ConfusionMatrix>(
             ConfusionMatrixOptions{.task = "multilabel", .num_labels = 3});
       },
       scores, labelled},
      {"AUROC multilabel binned micro",
       [] {
         return std::make_unique<AUROC>(AUROCOptions{
             .task = "multilabel", .num_labels = 3, .average = "micro", .thresholds = 20});
       },
       scores.sigmoid(), labelled},
      {"AveragePrecision multilabel weighted",
       [] {
         return std::make_unique<AveragePrecision>(
             AveragePrecisionOptions{.task = "multilabel", .num_labels = 3, .average = "weighted"});
       },
       scores, labelled},
      {"LogAUC multiclass exact",
       [] {
         return std::make_unique<LogAUC>(
             LogAUCOptions{.task = "multiclass", .num_classes = 3, .fpr_range = {0.01, 0.5}});
       },
       scores, labels},
      {"ROC multiclass binned",
       [] {
         return std::make_unique<ROC>(
             ROCOptions{.task = "multiclass", .num_classes = 3, .thresholds = 15});
       },
       scores, labels},
      {"PrecisionRecallCurve binary binned",
       [] {
         return std::make_unique<PrecisionRecallCurve>(
             PrecisionRecallCurveOptions{.task = "binary", .thresholds = 25});
       },
       scores.select(1, 0), binary},
      {"HammingDistance multilabel macro",
       [] {
         return std::make_unique<HammingDistance>(
             ClassificationOptions{.task = "multilabel", .num_labels = 3, .average = "macro"});
       },
       scores, labelled},
      {"ExactMatch multilabel",
       [] {
         return std::make_unique<ExactMatch>(
             ExactMatchOptions{.task = "multilabel", .num_labels = 3});
       },
       scores, labelled},
      {"SensitivityAtSpecificity binned multiclass",
       [] {
         return std::make_unique<SensitivityAtSpecificity>(
             0.6, ROCOptions{.task = "multiclass", .num_classes = 3, .thresholds = 20});
       },
       scores, labels},
      {"RecallAtFixedPrecision exact binary",
       [] {
         return std::make_unique<RecallAtFixedPrecision>(
             0.5, PrecisionRecallCurveOptions{.task = "binary"});
       },
       scores.select(1, 0).contiguous(), binary},
      {"MultilabelRankingLoss",
       [] {
         return std::make_unique<MultilabelRankingLoss>(MultilabelRankingOptions{.num_labels = 3});
       },
       scores.round(), labelled},
      {"MultilabelCoverageError",
       [] {
         return std::make_unique<MultilabelCoverageError>(
             MultilabelRankingOptions{.num_labels = 3});
       },
       scores, labelled},
      {"HingeLoss one-vs-all squared",
       [] {
         return std::make_unique<HingeLoss>(HingeLossOptions{.task = "multiclass",
                                                             .squared = true,
                                                             .num_classes = 3,
                                                             .multiclass_mode = "one-vs-all"});
       },
       scores, labels},
      {"NegativePredictiveValue multiclass macro",
       [] {
         return std::make_unique<NegativePredictiveValue>(
             ClassificationOptions{.task = "multiclass", .num_classes = 3, .average = "macro"});
       },
       scores, labels},
      {"CalibrationError multiclass l2",
       [] {
         return std::make_unique<CalibrationError>(
             CalibrationErrorOptions{.task = "multiclass", .norm = "l2", .num_classes = 3});
       },
       scores, labels},
      {"MeanSquaredError", [] { return std::make_unique<MeanSquaredError>(); }, yhat, y},
      {"SymmetricMeanAbsolutePercentageError",
       [] { return std::make_unique<SymmetricMeanAbsolutePercentageError>(); }, yhat, y},
      {"WeightedMeanAbsolutePercentageError",
       [] { return std::make_unique<WeightedMeanAbsolutePercentageError>(); }, yhat, y},
      {"LogCoshError 3 outputs",
       [] { return std::make_unique<LogCoshError>(LogCoshErrorOptions{.num_outputs = 3}); }, scores,
       scores.softmax(1)},
      {"MinkowskiDistance p=3",
       [] { return std::make_unique<MinkowskiDistance>(MinkowskiDistanceOptions{.p = 3}); }, yhat,
       y},
      {"KLDivergence", [] { return std::make_unique<KLDivergence>(); }, scores.softmax(1),
       scores.sigmoid()},
      {"R2Score", [] { return std::make_unique<R2Score>(); }, yhat, y},
      {"ExplainedVariance", [] { return std::make_unique<ExplainedVariance>(); }, yhat, y},
      // Shifted far from zero: the merge of per-update moments must stay exact.
      {"PearsonCorrCoef", [] { return std::make_unique<PearsonCorrCoef>(); }, yhat + 1e6, y},
      {"SpearmanCorrCoef", [] { return std::make_unique<SpearmanCorrCoef>(); }, yhat, y},
      {"ConcordanceCorrCoef", [] { return std::make_unique<ConcordanceCorrCoef>(); }, yhat + 1e6,
       y + 1e6},
      {"PearsonCorrCoef 3 outputs",
       [] { return std::make_unique<PearsonCorrCoef>(PearsonCorrCoefOptions{.num_outputs = 3}); },
       scores, scores.softmax(1)},
      {"KendallRankCorrCoef 3 outputs",
       [] {
         return std::make_unique<KendallRankCorrCoef>(KendallRankCorrCoefOptions{.num_outputs = 3});
       },
       scores.round(), scores.softmax(1)},
      {"RelativeSquaredError", [] { return std::make_unique<RelativeSquaredError>(); }, yhat, y},
      {"NormalizedRootMeanSquaredError std 3 outputs",
       [] {
         return std::make_unique<NormalizedRootMeanSquaredError>(
             NormalizedRootMeanSquaredErrorOptions{.normalization = "std", .num_outputs = 3});
       },
       scores, scores.softmax(1)},
      {"NormalizedRootMeanSquaredError range",
       [] {
         return std::make_unique<NormalizedRootMeanSquaredError>(
             NormalizedRootMeanSquaredErrorOptions{.normalization = "range"});
       },
       yhat, y},
      {"AdjustedMutualInfoScore", [] { return std::make_unique<AdjustedMutualInfoScore>(); },
       (scores.argmax(1) + binary * 3).contiguous(), labels},
      {"NormalizedMutualInfoScore geometric",
       [] {
         return std::make_unique<NormalizedMutualInfoScore>(
             NormalizedMutualInfoScoreOptions{.average_method = "geometric"});
       },
       scores.argmax(1), labels},
      {"CramersV corrected",
       [] { return std::make_unique<CramersV>(BiasCorrectedNominalOptions{.num_classes = 3}); },
       torch::where(binary.to(torch::kBool), labels, scores.argmax(1)), labels},
      {"TheilsU", [] { return std::make_unique<TheilsU>(NominalOptions{.num_classes = 3}); },
       scores, labels},
      {"MeanIoU per class without background",
       [] {
         return std::make_unique<MeanIoU>(MeanIoUOptions{.num_classes = 3,
                                                         .include_background = false,
                                                         .per_class = true,
                                                         .input_format = "mixed"});
       },
       scores.unsqueeze(2),
       torch::where(binary.to(torch::kBool), labels, scores.argmax(1)).unsqueeze(1)},
      {"ScaleInvariantSignalDistortionRatio zero mean",
       [] {
         return std::make_unique<ScaleInvariantSignalDistortionRatio>(
             ScaleInvariantSignalDistortionRatioOptions{.zero_mean = true});
       },
       scores, scores + torch::randn({n, c}, torch::kDouble)},
      {"SourceAggregatedSignalDistortionRatio",
       [] { return std::make_unique<SourceAggregatedSignalDistortionRatio>(); },
       scores.reshape({n, 1, c}), (scores + 0.5).reshape({n, 1, c})},
      {"PeakSignalNoiseRatio per row",
       [] {
         return std::make_unique<PeakSignalNoiseRatio>(
             PeakSignalNoiseRatioOptions{.data_range = 2.0, .dim = {1}});
       },
       scores, scores.softmax(1)},
      {"StructuralSimilarityIndexMeasure",
       [] {
         return std::make_unique<StructuralSimilarityIndexMeasure>(
             StructuralSimilarityIndexMeasureOptions{.sigma = 0.5, .data_range = 1.0});
       },
       torch::rand({n, 1, 4, 4}, torch::kDouble), torch::rand({n, 1, 4, 4}, torch::kDouble)},
      {"MultiScaleStructuralSimilarityIndexMeasure",
       [] {
         return std::make_unique<MultiScaleStructuralSimilarityIndexMeasure>(
             MultiScaleStructuralSimilarityIndexMeasureOptions{
                 .sigma = 0.5, .kernel_size = 3, .data_range = 1.0, .betas = {0.5, 0.5}});
       },
       torch::rand({n, 1, 8, 8}, torch::kDouble), torch::rand({n, 1, 8, 8}, torch::kDouble)},
      {"MultioutputWrapper(R2Score)",
       [] { return std::make_unique<MultioutputWrapper>(std::make_unique<R2Score>(), 3); }, scores,
       scores + torch::randn({n, c}, torch::kDouble)},
      {"DiceScore weighted",
       [] {
         return std::make_unique<DiceScore>(
             DiceScoreOptions{.num_classes = 3, .average = "weighted", .input_format = "index"});
       },
       torch::randint(0, 3, {n, 4, 4}, torch::kLong),
       torch::randint(0, 3, {n, 4, 4}, torch::kLong)},
      {"DiceScore global",
       [] {
         return std::make_unique<DiceScore>(DiceScoreOptions{
             .num_classes = 3, .aggregation_level = "global", .input_format = "index"});
       },
       torch::randint(0, 3, {n, 4, 4}, torch::kLong),
       torch::randint(0, 3, {n, 4, 4}, torch::kLong)},
      {"GeneralizedDiceScore",
       [] {
         return std::make_unique<GeneralizedDiceScore>(
             GeneralizedDiceScoreOptions{.num_classes = 3, .input_format = "index"});
       },
       torch::randint(0, 3, {n, 4, 4}, torch::kLong),
       torch::randint(0, 3, {n, 4, 4}, torch::kLong)},
      {"FleissKappa", [] { return std::make_unique<FleissKappa>(); },
       torch::one_hot(torch::randint(0, 3, {n, 5}, torch::kLong), 3).sum(1), at::Tensor()},
      {"RootMeanSquaredErrorUsingSlidingWindow",
       [] { return std::make_unique<RootMeanSquaredErrorUsingSlidingWindow>(); },
       torch::rand({n, 1, 9, 9}, torch::kDouble), torch::rand({n, 1, 9, 9}, torch::kDouble)},
      {"RelativeAverageSpectralError",
       [] { return std::make_unique<RelativeAverageSpectralError>(); },
       torch::rand({n, 2, 9, 10}, torch::kDouble), torch::rand({n, 2, 9, 10}, torch::kDouble)},
      {"SpatialCorrelationCoefficient",
       [] { return std::make_unique<SpatialCorrelationCoefficient>(); },
       torch::rand({n, 1, 8, 8}, torch::kDouble), torch::rand({n, 1, 8, 8}, torch::kDouble)},
      {"Perplexity", [] { return std::make_unique<Perplexity>(); }, scores.reshape({n, 1, c}),
       labels.reshape({n, 1})},
      {"JensenShannonDivergence sum",
       [] {
         return std::make_unique<JensenShannonDivergence>(
             JensenShannonDivergenceOptions{.reduction = "sum"});
       },
       scores.softmax(1), (scores + torch::randn({n, c}, torch::kDouble)).softmax(1)},
      {"ContinuousRankedProbabilityScore",
       [] { return std::make_unique<ContinuousRankedProbabilityScore>(); }, scores, y},
      {"ClusterAccuracy",
       [] { return std::make_unique<ClusterAccuracy>(ClusterAccuracyOptions{.num_classes = 3}); },
       scores.argmax(1), labels},
      {"AdjustedRandScore", [] { return std::make_unique<AdjustedRandScore>(); }, scores.argmax(1),
       labels},
      {"DaviesBouldinScore", [] { return std::make_unique<DaviesBouldinScore>(); }, scores, labels},
      {"DunnIndex p=1", [] { return std::make_unique<DunnIndex>(DunnIndexOptions{.p = 1}); },
       scores, labels},
      {"CriticalSuccessIndex", [] { return std::make_unique<CriticalSuccessIndex>(0.0); }, scores,
       scores.softmax(1) - 0.3},
      {"TweedieDevianceScore power 1.5",
       [] {
         return std::make_unique<TweedieDevianceScore>(TweedieDevianceScoreOptions{.power = 1.5});
       },
       yhat.abs() + 0.1, y.abs()},
      {"SpearmanCorrCoef 3 outputs",
       [] { return std::make_unique<SpearmanCorrCoef>(SpearmanCorrCoefOptions{.num_outputs = 3}); },
       scores, scores.softmax(1)},
      {"CosineSimilarity mean",
       [] {
         return std::make_unique<CosineSimilarity>(CosineSimilarityOptions{.reduction = "mean"});
       },
       scores, scores.softmax(1)},
      {"MeanMetric weighted", [] { return std::make_unique<MeanMetric>(); }, y, yhat.abs()},
      {"MaxMetric", [] { return std::make_unique<MaxMetric>(); }, y, at::Tensor()},
  };
}

at::Tensor slice(const at::Tensor& t, int64_t a, int64_t b) {
  return t.defined() ? t.slice(0, a, b) : t;
}

// Rank 0 gets the first `split` samples (in two updates), rank 1 the rest.
void expect_synced_equals_whole(const Case& c, int64_t split) {
  auto whole = c.make();
  whole->update(c.preds, c.target);
  const auto expected = whole->compute();
  const int64_t n = c.preds.size(0);
  ThreadWorld world(2);
  std::mutex mutex;
  std::vector<at::Tensor> local(2), synced(2), restored(2);
  std::vector<int64_t> counts(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    auto metric = c.make();
    const int64_t begin = rank == 0 ? 0 : split, end = rank == 0 ? split : n;
    for (int64_t a = begin; a < end; a += 20) {
      const int64_t b = std::min(a + 20, end);
      metric->update(slice(c.preds, a, b), slice(c.target, a, b));
    }
    const bool had_samples = metric->update_count() > 0;
    const auto before = had_samples ? metric->compute() : at::Tensor();
    metric->sync(strategy);
    const int64_t count = metric->update_count();
    const auto value = metric->compute().clone();
    metric->unsync();
    const auto after = had_samples ? metric->compute() : at::Tensor();
    std::lock_guard<std::mutex> lock(mutex);
    local[rank] = before;
    synced[rank] = value;
    restored[rank] = after;
    counts[rank] = count;
  });
  const int64_t updates = (split + 19) / 20 + (n - split + 19) / 20;
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(c.name + " split " + std::to_string(split) + " rank " + std::to_string(rank));
    EXPECT_TRUE(torch::allclose(synced[rank], expected, 1e-9, 1e-12))
        << synced[rank] << " vs " << expected;
    EXPECT_EQ(counts[rank], updates);
    EXPECT_EQ(synced[rank].dim() == 0, c.make()->is_scalar());
    if (local[rank].defined()) {
      // unsync() brought the rank's own value back, and, when both ranks had samples, that
      // value is not the whole one (a max lies on one rank only).
      EXPECT_TRUE(torch::equal(local[rank], restored[rank]));
      if (split < n && c.name != "MaxMetric") {
        EXPECT_FALSE(torch::allclose(local[rank], expected)) << local[rank];
      }
    }
  }
}

TEST(MetricSync, SyncedValueIsTheValueOfAllSamples) {
  for (const auto& c : cases()) {
    expect_synced_equals_whole(c, 60);  // uneven shards: 60 and 30
    expect_synced_equals_whole(c, 13);
  }
}

TEST(MetricSync, ARankWithoutSamplesStillTakesPart) {
  // Rank 1 never updates (its cat states are empty): the collectives still line up.
  for (const auto& c : cases()) expect_synced_equals_whole(c, c.preds.size(0));
}

TEST(MetricSync, ComputeWithStrategySyncsAndRestores) {
  ThreadWorld world(2);
  std::vector<double> synced(2), local(2);
  world.run([&](int rank) {
    ThreadRank strategy(world, rank);
    SumMetric sum;
    sum.update(torch::tensor(rank == 0 ? 1.0 : 10.0));
    synced[rank] = sum.compute(strategy).item<double>();
    local[rank] = sum.compute().item<double>();
  });
  EXPECT_EQ(synced, (std::vector<double>{11.0, 11.0}));
  EXPECT_EQ(local, (std::vector<double>{1.0, 10.0}));
}

TEST(MetricSync, MisuseIsAMetricError) {
  ThreadWorld world(1);
  ThreadRank strategy(world, 0);
  MeanMetric mean;
  mean.update(torch::tensor(1.0));
  EXPECT_THAT([&] { mean.unsync(); }, ThrowsMessage<MetricError>(HasSubstr("not synced")));
  mean.sync(strategy);
  EXPECT_TRUE(mean.is_synced());
  EXPECT_THAT([&] { mean.sync(strategy); },
              ThrowsMessage<MetricError>(HasSubstr("MeanMetric: sync() was called")));
  EXPECT_THAT([&] { mean.update(torch::tensor(2.0)); },
              ThrowsMessage<MetricError>(HasSubstr("call unsync() first")));
  mean.unsync();
  EXPECT_FALSE(mean.is_synced());
}

TEST(Metric, ComputeBeforeUpdateResetAndCache) {
  Accuracy acc({.task = "binary"});
  EXPECT_EQ(acc.name(), "Accuracy");
  EXPECT_EQ(acc.higher_is_better(), true);
  EXPECT_EQ(MeanSquaredError().higher_is_better(), false);
  EXPECT_THAT([&] { acc.compute(); }, ThrowsMessage<MetricError>(AllOf(
                                          HasSubstr("Accuracy"), HasSubstr("before any update"))));
  acc.update(torch::tensor({0.9, 0.2}), torch::tensor({1, 1}));
  const auto first = acc.compute();
  EXPECT_EQ(first.dim(), 0);
  EXPECT_DOUBLE_EQ(first.item<double>(), 0.5);
  EXPECT_TRUE(acc.compute().is_same(first));  // cached until the next update
  acc.update(torch::tensor({0.9}), torch::tensor({1}));
  EXPECT_NEAR(acc.compute().item<double>(), 2.0 / 3, 1e-12);
  EXPECT_EQ(acc.update_count(), 2);
  acc.reset();
  EXPECT_EQ(acc.update_count(), 0);
  EXPECT_THROW(acc.compute(), MetricError);
  acc.update(torch::tensor({0.1}), torch::tensor({0}));
  EXPECT_DOUBLE_EQ(acc.compute().item<double>(), 1.0);
}

TEST(Metric, StatesFollowTheDevice) {
  Accuracy acc({.task = "multiclass", .num_classes = 3});
  acc.to(torch::kCPU);
  EXPECT_EQ(acc.device(), torch::Device(torch::kCPU));
  acc.update(torch::randn({8, 3}), torch::randint(0, 3, {8}));
  EXPECT_TRUE(acc.compute().is_cpu());
  // The CUDA half runs on a machine with a device (none here: nothing more to check).
  if (!torch::cuda::is_available()) return;
  acc.reset();
  acc.update(torch::randn({8, 3}, torch::kCUDA), torch::randint(0, 3, {8}, torch::kCUDA));
  EXPECT_TRUE(acc.device().is_cuda());
  EXPECT_TRUE(acc.compute().is_cuda());
  acc.to(torch::kCPU);
  EXPECT_TRUE(acc.compute().is_cpu());
}

TEST(MetricState, RoundTripsThroughPickle) {
  torch::manual_seed(32);
  const auto scores = torch::randn({50, 4}, torch::kDouble).softmax(1);
  const auto labels = torch::randint(0, 4, {50}, torch::kLong);
  AUROC auroc({.task = "multiclass", .num_classes = 4});
  F1Score f1({.task = "multiclass", .num_classes = 4, .average = "macro"});
  for (Metric* m : std::initializer_list<Metric*>{&auroc, &f1}) {
    m->update(scores.slice(0, 0, 30), labels.slice(0, 0, 30));
    m->update(scores.slice(0, 30), labels.slice(0, 30));
  }
  AUROC auroc2({.task = "multiclass", .num_classes = 4});
  F1Score f12({.task = "multiclass", .num_classes = 4, .average = "macro"});
  auroc2.load_state_dict(torch::pickle_load(torch::pickle_save(auroc.state_dict())));
  f12.load_state_dict(torch::pickle_load(torch::pickle_save(f1.state_dict())));
  EXPECT_EQ(auroc2.update_count(), 2);
  EXPECT_DOUBLE_EQ(auroc2.compute().item<double>(), auroc.compute().item<double>());
  EXPECT_DOUBLE_EQ(f12.compute().item<double>(), f1.compute().item<double>());
  // Loaded states keep accumulating.
  auroc2.update(scores.slice(0, 0, 5), labels.slice(0, 0, 5));
  auroc.update(scores.slice(0, 0, 5), labels.slice(0, 0, 5));
  EXPECT_DOUBLE_EQ(auroc2.compute().item<double>(), auroc.compute().item<double>());
  const auto dict = f1.state_dict().toGenericDict();
  for (const char* key : {"tp", "fp", "tn", "fn", "_update_count"}) {
    EXPECT_TRUE(dict.contains(key)) << key;
  }
}

TEST(MetricState, StatesThatDoNotFitAreCheckpointErrors) {
  Accuracy three({.task = "multiclass", .num_classes = 3});
  three.update(torch::tensor({0, 1}), torch::tensor({0, 2}));
  Accuracy four({.task = "multiclass", .num_classes = 4});
  four.update(torch::tensor({3}), torch::tensor({3}));
  EXPECT_THAT([&] { four.load_state_dict(three.state_dict()); },
              ThrowsMessage<CheckpointError>(
                  AllOf(HasSubstr("Accuracy"), HasSubstr("\"tp\""), HasSubstr("shape [3]"))));
  EXPECT_DOUBLE_EQ(four.compute().item<double>(), 1.0);  // unchanged by the failed load
  EXPECT_THAT([&] { four.load_state_dict(c10::IValue(int64_t{3})); },
              ThrowsMessage<CheckpointError>(HasSubstr("Accuracy metric state")));
  MeanMetric mean;
  EXPECT_THAT([&] { four.load_state_dict(mean.state_dict()); },
              ThrowsMessage<CheckpointError>(
                  AllOf(HasSubstr("Accuracy"), HasSubstr("which this metric does not have"))));
  auto missing = three.state_dict().toGenericDict();
  EXPECT_EQ(missing.erase("fn"), 1u);
  EXPECT_THAT([&] { three.load_state_dict(missing); },
              ThrowsMessage<CheckpointError>(HasSubstr("has no \"fn\"")));
  auto corrupt = three.state_dict().toGenericDict();
  corrupt.insert_or_assign("tp", c10::IValue("garbage"));
  EXPECT_THAT([&] { three.load_state_dict(corrupt); },
              ThrowsMessage<CheckpointError>(HasSubstr("not a tensor")));
  AUROC binary({.task = "binary"});
  AUROC multi({.task = "multiclass", .num_classes = 3});
  EXPECT_THAT([&] { binary.load_state_dict(multi.state_dict()); },
              ThrowsMessage<CheckpointError>(AllOf(HasSubstr("AUROC"), HasSubstr("\"preds\""))));
}

}  // namespace
}  // namespace fulgur::metrics
