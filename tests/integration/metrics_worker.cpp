// metrics-worker: one rank of the two-process metric test (metrics_ddp_test.cpp), started
// there with torchrun's variables. Each rank scores its uneven shard of metrics_ddp_data()
// in batches, prints its local values ("local_<metric>=v,v,..."), then the values synced over
// both ranks ("synced_<metric>=..."). Exits 1 with one line on stderr on error.
#include <fmt/format.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>

#include "fulgur/connectors/accelerator_connector.h"
#include "fulgur/metrics/accuracy.h"
#include "fulgur/metrics/auroc.h"
#include "fulgur/metrics/average_precision.h"
#include "fulgur/metrics/calibration_error.h"
#include "fulgur/metrics/cohen_kappa.h"
#include "fulgur/metrics/concordance_corr_coef.h"
#include "fulgur/metrics/confusion_matrix.h"
#include "fulgur/metrics/cosine_similarity.h"
#include "fulgur/metrics/exact_match.h"
#include "fulgur/metrics/explained_variance.h"
#include "fulgur/metrics/f1_score.h"
#include "fulgur/metrics/hamming_distance.h"
#include "fulgur/metrics/jaccard_index.h"
#include "fulgur/metrics/kl_divergence.h"
#include "fulgur/metrics/log_cosh_error.h"
#include "fulgur/metrics/matthews_corr_coef.h"
#include "fulgur/metrics/mean_absolute_percentage_error.h"
#include "fulgur/metrics/mean_metric.h"
#include "fulgur/metrics/mean_squared_error.h"
#include "fulgur/metrics/mean_squared_log_error.h"
#include "fulgur/metrics/metric_collection.h"
#include "fulgur/metrics/minkowski_distance.h"
#include "fulgur/metrics/multioutput_wrapper.h"
#include "fulgur/metrics/multitask_wrapper.h"
#include "fulgur/metrics/pearson_corr_coef.h"
#include "fulgur/metrics/precision.h"
#include "fulgur/metrics/r2_score.h"
#include "fulgur/metrics/retrieval_normalized_dcg.h"
#include "fulgur/metrics/roc.h"
#include "fulgur/metrics/running.h"
#include "fulgur/metrics/spearman_corr_coef.h"
#include "fulgur/metrics/symmetric_mean_absolute_percentage_error.h"
#include "fulgur/metrics/weighted_mean_absolute_percentage_error.h"
#include "fulgur/strategies/ddp.h"
#include "integration/metrics_ddp_data.h"

namespace {

namespace fm = fulgur::metrics;

std::string flat(const torch::Tensor& t) {
  const auto v = t.detach().flatten().to(torch::kCPU, torch::kDouble).contiguous();
  std::string out;
  for (int64_t i = 0; i < v.numel(); ++i) {
    out += fmt::format("{}{:.17g}", i ? "," : "", v[i].item<double>());
  }
  return out;
}

fm::MetricCollection classification() {
  const fm::ClassificationOptions multiclass{.task = "multiclass", .num_classes = 3};
  auto macro = multiclass;
  macro.average = "macro";
  auto weighted = multiclass;
  weighted.average = "weighted";
  return fm::MetricCollection({
      {"accuracy", std::make_shared<fm::Accuracy>(multiclass)},
      {"accuracy_macro", std::make_shared<fm::Accuracy>(macro)},
      {"precision_macro", std::make_shared<fm::Precision>(macro)},
      {"f1_weighted", std::make_shared<fm::F1Score>(weighted)},
      {"confmat", std::make_shared<fm::ConfusionMatrix>(
                      fm::ConfusionMatrixOptions{.task = "multiclass", .num_classes = 3})},
      {"auroc",
       std::make_shared<fm::AUROC>(fm::AUROCOptions{.task = "multiclass", .num_classes = 3})},
      {"average_precision", std::make_shared<fm::AveragePrecision>(fm::AveragePrecisionOptions{
                                .task = "multiclass", .num_classes = 3})},
      {"auroc_binned", std::make_shared<fm::AUROC>(fm::AUROCOptions{
                           .task = "multiclass", .num_classes = 3, .thresholds = 50})},
      {"average_precision_binned",
       std::make_shared<fm::AveragePrecision>(fm::AveragePrecisionOptions{
           .task = "multiclass", .num_classes = 3, .average = "weighted", .thresholds = 50})},
      {"mcc", std::make_shared<fm::MatthewsCorrCoef>(
                  fm::MatthewsCorrCoefOptions{.task = "multiclass", .num_classes = 3})},
      {"kappa_quadratic", std::make_shared<fm::CohenKappa>(fm::CohenKappaOptions{
                              .task = "multiclass", .num_classes = 3, .weights = "quadratic"})},
      {"jaccard", std::make_shared<fm::JaccardIndex>(
                      fm::JaccardIndexOptions{.task = "multiclass", .num_classes = 3})},
      {"calibration", std::make_shared<fm::CalibrationError>(fm::CalibrationErrorOptions{
                          .task = "multiclass", .n_bins = 10, .num_classes = 3})},
  });
}

// Fed yhat and y.
fm::MetricCollection regression() {
  return fm::MetricCollection({
      {"smape", std::make_shared<fm::SymmetricMeanAbsolutePercentageError>()},
      {"wmape", std::make_shared<fm::WeightedMeanAbsolutePercentageError>()},
      {"concordance", std::make_shared<fm::ConcordanceCorrCoef>()},
      {"log_cosh", std::make_shared<fm::LogCoshError>()},
      {"minkowski", std::make_shared<fm::MinkowskiDistance>(fm::MinkowskiDistanceOptions{.p = 3})},
  });
}

// Fed scores as logits of three labels and the multilabel target.
fm::MetricCollection multilabel() {
  const fm::ClassificationOptions labels{.task = "multilabel", .num_labels = 3, .average = "macro"};
  return fm::MetricCollection({
      {"multilabel_f1_macro", std::make_shared<fm::F1Score>(labels)},
      {"multilabel_confmat", std::make_shared<fm::ConfusionMatrix>(fm::ConfusionMatrixOptions{
                                 .task = "multilabel", .num_labels = 3})},
      {"multilabel_auroc_micro", std::make_shared<fm::AUROC>(fm::AUROCOptions{
                                     .task = "multilabel", .num_labels = 3, .average = "micro"})},
      {"multilabel_average_precision_binned",
       std::make_shared<fm::AveragePrecision>(
           fm::AveragePrecisionOptions{.task = "multilabel", .num_labels = 3, .thresholds = 50})},
      {"multilabel_roc_binned", std::make_shared<fm::ROC>(fm::ROCOptions{
                                    .task = "multilabel", .num_labels = 3, .thresholds = 50})},
      {"multilabel_hamming", std::make_shared<fm::HammingDistance>(
                                 fm::ClassificationOptions{.task = "multilabel", .num_labels = 3})},
      {"multilabel_exact_match", std::make_shared<fm::ExactMatch>(
                                     fm::ExactMatchOptions{.task = "multilabel", .num_labels = 3})},
  });
}

}  // namespace

int main() {
  try {
    fulgur::AcceleratorConnector connector(
        {.accelerator = "cpu", .strategy = std::make_shared<fulgur::DDPStrategy>(), .devices = 2});
    auto& s = *connector.strategy();
    s.setup_environment();
    const int rank = s.global_rank();
    const auto data = fulgur::testing::metrics_ddp_data();
    const int64_t begin = rank == 0 ? 0 : fulgur::testing::kRank0Samples;
    const int64_t end = rank == 0 ? fulgur::testing::kRank0Samples : data.labels.size(0);

    auto metrics = classification();
    auto labelled = multilabel();
    auto regressed = regression();
    fm::AUROC binary_auroc({.task = "binary"});
    fm::MeanSquaredError mse;
    fm::R2Score r2;
    fm::MeanMetric mean;
    fm::PearsonCorrCoef pearson;
    fm::ExplainedVariance explained;
    fm::MeanAbsolutePercentageError mape;
    fm::SpearmanCorrCoef spearman;
    fm::CosineSimilarity cosine({.reduction = "mean"});
    fm::MeanSquaredLogError msle;
    fm::KLDivergence kl;
    // Queries of documents on both ranks: sample i belongs to query i % 11.
    fm::RetrievalNormalizedDCG ndcg({.top_k = 5});
    // Each label column's R2 of the logits; the MSE of each rank's last 3 batches.
    fm::MultioutputWrapper multioutput_r2(std::make_unique<fm::R2Score>(), 3);
    fm::Running running_mse(std::make_unique<fm::MeanSquaredError>(), 3);
    fm::MultitaskWrapper multitask(
        {{"accuracy", std::make_shared<fm::Accuracy>(
                          fm::ClassificationOptions{.task = "multiclass", .num_classes = 3})},
         {"regression",
          std::make_shared<fm::MetricCollection>(std::vector<fm::MetricCollection::Entry>{
              {"mse", std::make_shared<fm::MeanSquaredError>()}})}},
        {.prefix = "multitask_"});
    const auto queries = torch::arange(data.labels.size(0)) % 11;
    for (int64_t a = begin; a < end; a += 16) {
      const int64_t b = std::min(a + 16, end);
      metrics.update(data.scores.slice(0, a, b), data.labels.slice(0, a, b));
      labelled.update(data.scores.slice(0, a, b), data.multilabel.slice(0, a, b));
      regressed.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      binary_auroc.update(data.scores.slice(0, a, b).select(1, 0), data.binary.slice(0, a, b));
      mse.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      r2.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      mean.update(data.y.slice(0, a, b));
      pearson.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      explained.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      mape.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      spearman.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      cosine.update(data.scores.slice(0, a, b), data.scores.slice(0, a, b).softmax(1));
      // Non-negative: log1p needs values above -1.
      msle.update(data.yhat.slice(0, a, b).abs(), data.y.slice(0, a, b).abs());
      kl.update(data.scores.slice(0, a, b).softmax(1), data.scores.slice(0, a, b).sigmoid());
      ndcg.update(data.scores.slice(0, a, b).select(1, 0), data.labels.slice(0, a, b),
                  queries.slice(0, a, b));
      multioutput_r2.update(data.scores.slice(0, a, b), data.multilabel.slice(0, a, b));
      running_mse.update(data.yhat.slice(0, a, b), data.y.slice(0, a, b));
      multitask.update(
          {{"accuracy", data.scores.slice(0, a, b)}, {"regression", data.yhat.slice(0, a, b)}},
          {{"accuracy", data.labels.slice(0, a, b)}, {"regression", data.y.slice(0, a, b)}});
    }
    std::map<std::string, fm::Metric*> singles{{"binary_auroc", &binary_auroc},
                                               {"mse", &mse},
                                               {"r2", &r2},
                                               {"mean", &mean},
                                               {"pearson", &pearson},
                                               {"explained_variance", &explained},
                                               {"mape", &mape},
                                               {"spearman", &spearman},
                                               {"cosine_mean", &cosine},
                                               {"msle", &msle},
                                               {"kl", &kl},
                                               {"ndcg", &ndcg},
                                               {"multioutput_r2", &multioutput_r2},
                                               {"running_mse", &running_mse}};
    std::cout << "rank=" << rank << "\nsamples=" << end - begin << '\n';
    for (auto* collection : {&metrics, &labelled, &regressed}) {
      for (const auto& [name, value] : collection->compute()) {
        std::cout << "local_" << name << '=' << flat(value) << '\n';
      }
    }
    for (const auto& [name, metric] : singles) {
      std::cout << "local_" << name << '=' << flat(metric->compute()) << '\n';
    }
    for (const auto& [name, value] : multitask.compute()) {
      std::cout << "local_" << name << '=' << flat(value) << '\n';
    }
    for (const auto& [name, value] : multitask.compute(s)) {
      std::cout << "synced_" << name << '=' << flat(value) << '\n';
    }
    for (auto* collection : {&metrics, &labelled, &regressed}) {
      for (const auto& [name, value] : collection->compute(s)) {
        std::cout << "synced_" << name << '=' << flat(value) << '\n';
      }
    }
    for (const auto& [name, metric] : singles) {
      metric->sync(s);
      std::cout << "synced_" << name << '=' << flat(metric->compute()) << '\n'
                << "synced_updates_" << name << '=' << metric->update_count() << '\n';
      metric->unsync();
    }
    s.teardown();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "metrics-worker: error: " << e.what() << '\n';
    return 1;
  }
}
