// fulgur::metrics across two real processes on loopback (DDPStrategy over Gloo, started with
// torchrun's variables): each rank scores an uneven shard of one data set (101 and 56
// samples); after sync every rank holds the value of the whole data set, equal to sklearn's
// on all of it, while each rank's own value is not (so the test can fail).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fulgur/environments/lightning_environment.h"
#include "integration/child_process.h"
#include "integration/metrics_ddp_data.h"
#include "metrics/reference.h"
#include "project_paths.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using testing::ChildProcess;
using testing::key_values;

const std::string kWorker = testing::bin_dir() + "/metrics-worker";

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string field; std::getline(in, field, ',');) out.push_back(std::stod(field));
  return out;
}

class MetricsDDPTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(fs::exists(kWorker)) << kWorker << " was not built";
  }
  std::unique_ptr<ChildProcess> start(int rank, int port) {
    const std::string name = "rank" + std::to_string(rank);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{kWorker}, dir_ / (name + ".out"), dir_ / (name + ".err"),
        std::map<std::string, std::optional<std::string>>{{"RANK", std::to_string(rank)},
                                                          {"LOCAL_RANK", std::to_string(rank)},
                                                          {"GROUP_RANK", "0"},
                                                          {"LOCAL_WORLD_SIZE", "2"},
                                                          {"WORLD_SIZE", "2"},
                                                          {"MASTER_ADDR", "127.0.0.1"},
                                                          {"MASTER_PORT", std::to_string(port)}});
  }
};

TEST_F(MetricsDDPTest, SyncedValuesEqualSklearnOnTheWholeData) {
  const int port = LightningEnvironment::find_free_port();
  auto r0 = start(0, port), r1 = start(1, port);
  ASSERT_EQ(r0->wait(), 0) << r0->err();
  ASSERT_EQ(r1->wait(), 0) << r1->err();
  const std::vector<std::map<std::string, std::string>> ranks{key_values(dir_ / "rank0.out"),
                                                              key_values(dir_ / "rank1.out")};
  EXPECT_EQ(ranks[0].at("samples"), std::to_string(testing::kRank0Samples));
  EXPECT_EQ(ranks[1].at("samples"),
            std::to_string(testing::kMetricsSamples - testing::kRank0Samples));

  const auto d = testing::metrics_ddp_data();
  const std::map<std::string, std::string> references{
      {"accuracy", "M.accuracy_score(y, p)"},
      {"accuracy_macro", "M.recall_score(y, p, average='macro', zero_division=0)"},
      {"precision_macro", "M.precision_score(y, p, average='macro', zero_division=0)"},
      {"f1_weighted", "M.f1_score(y, p, average='weighted', zero_division=0)"},
      {"confmat", "M.confusion_matrix(y, p, labels=range(3))"},
      {"auroc", "M.roc_auc_score(y, softmax(s), multi_class='ovr', average='macro')"},
      {"average_precision", "M.average_precision_score(np.eye(3)[y], softmax(s), average='macro')"},
      {"auroc_binned", "M.roc_auc_score(np.eye(3)[y], fl(softmax(s)), average='macro')"},
      {"average_precision_binned",
       "M.average_precision_score(np.eye(3)[y], fl(softmax(s)), average='weighted')"},
      {"binary_auroc", "M.roc_auc_score(b, s[:, 0])"},
      {"mse", "M.mean_squared_error(t, q)"},
      {"r2", "M.r2_score(t, q)"},
      {"mean", "np.mean(t)"},
      {"mcc", "M.matthews_corrcoef(y, p)"},
      {"kappa_quadratic", "M.cohen_kappa_score(y, p, weights='quadratic')"},
      {"jaccard", "M.jaccard_score(y, p, average='macro', zero_division=0)"},
      {"pearson", "np.corrcoef(q, t)[0, 1]"},
      {"explained_variance", "M.explained_variance_score(t, q)"},
      {"mape", "M.mean_absolute_percentage_error(t, q)"},
      {"spearman", "spearmanr(q, t)[0]"},
      {"cosine_mean", "np.mean(np.diag(M.pairwise.cosine_similarity(s, softmax(s))))"},
      {"multilabel_f1_macro", "M.f1_score(ml, (s > 0).astype(int), average='macro')"},
      {"multilabel_confmat", "M.multilabel_confusion_matrix(ml, (s > 0).astype(int))"},
      {"multilabel_auroc_micro", "M.roc_auc_score(ml, s, average='micro')"},
      {"multilabel_average_precision_binned",
       "M.average_precision_score(ml, fl(1 / (1 + np.exp(-s))), average='macro')"},
      // Each label's fpr and tpr at the 50 thresholds, from the highest down: [3, 2, 50].
      {"multilabel_roc_binned", "[roc(1 / (1 + np.exp(-s[:, j])), ml[:, j]) for j in range(3)]"},
      {"multilabel_hamming", "M.hamming_loss(ml, (s > 0).astype(int))"},
      {"multilabel_exact_match", "M.accuracy_score(ml, (s > 0).astype(int))"},
      {"calibration", "ece(softmax(s).argmax(1) == y, softmax(s).max(1), 10)"},
      {"smape", "np.mean(2 * np.abs(q - t) / (np.abs(q) + np.abs(t)))"},
      {"wmape", "np.abs(q - t).sum() / np.abs(t).sum()"},
      {"concordance",
       "2 * np.cov(q, t)[0, 1] / (np.var(q, ddof=1) + np.var(t, ddof=1) + (q.mean() - t.mean()) "
       "** 2)"},
      {"log_cosh", "np.log(np.cosh(q - t)).mean()"},
      {"minkowski", "minkowski(q, t, 3)"},
      {"msle", "M.mean_squared_log_error(np.abs(t), np.abs(q))"},
      {"kl", "np.mean([entropy(a, c) for a, c in zip(softmax(s), 1 / (1 + np.exp(-s)))])"},
      {"ndcg",
       "np.mean([M.ndcg_score([y[np.arange(len(y)) % 11 == k]], [s[np.arange(len(y)) % 11 == k, "
       "0]], k=5) for k in range(11)])"},
      {"multioutput_r2", "M.r2_score(ml, s, multioutput='raw_values')"},
      // Rank 0's last 3 batches of 16 are samples 64-100, rank 1's 117-156.
      {"running_mse", "M.mean_squared_error(np.r_[t[64:101], t[117:]], np.r_[q[64:101], q[117:]])"},
      {"multitask_accuracy", "M.accuracy_score(y, p)"},
      {"multitask_regression_mse", "M.mean_squared_error(t, q)"},
  };
  std::string script =
      testing::sklearn_prologue() +
      fmt::format(
          "from scipy.stats import entropy, spearmanr\n"
          "from scipy.spatial.distance import minkowski\n"
          "from sklearn.calibration import calibration_curve\n"
          "s = np.array({})\ny = np.array({})\nb = np.array({})\n"
          "t = np.array({})\nq = np.array({})\np = s.argmax(1)\n"
          "ml = np.array({})\n"
          "def softmax(x):\n"
          "    e = np.exp(x - x.max(1, keepdims=True))\n"
          "    return e / e.sum(1, keepdims=True)\n"
          // Scores rounded down to the binned metrics' 50 thresholds.
          "def fl(p):\n"
          "    thr = np.linspace(0, 1, 50)\n"
          "    return thr[np.searchsorted(thr, p, side='right') - 1]\n"
          // The expected calibration error from sklearn's bins, weighted by their counts.
          "def ece(right, conf, bins):\n"
          "    true, pred = calibration_curve(right, conf, n_bins=bins)\n"
          "    n = np.bincount(np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], conf))\n"
          "    return (np.abs(true - pred) * n[n > 0]).sum() / len(conf)\n"
          "def roc(p, y):\n"
          "    c = p[:, None] >= np.linspace(0, 1, 50)[None, :]\n"
          "    tp, fp = (c & (y[:, None] == 1)).sum(0), (c & (y[:, None] == 0)).sum(0)\n"
          "    return [fp[::-1] / (y == 0).sum(), tp[::-1] / (y == 1).sum()]\n",
          testing::py(d.scores), testing::py(d.labels), testing::py(d.binary), testing::py(d.y),
          testing::py(d.yhat), testing::py(d.multilabel));
  for (const auto& [name, expression] : references) script += "out(" + expression + ")\n";
  const auto rows = testing::number_rows(testing::run_python(script));
  ASSERT_EQ(rows.size(), references.size());

  size_t row = 0;
  for (const auto& [name, expression] : references) {
    const auto& expected = rows[row++];
    for (int rank = 0; rank < 2; ++rank) {
      SCOPED_TRACE(name + " rank " + std::to_string(rank));
      const auto synced = numbers(ranks[rank].at("synced_" + name));
      const auto local = numbers(ranks[rank].at("local_" + name));
      ASSERT_EQ(synced.size(), expected.size());
      ASSERT_EQ(local.size(), expected.size());
      double local_gap = 0;
      for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(synced[i], expected[i], 1e-6) << "[" << i << "] " << expression;
        local_gap = std::max(local_gap, std::abs(local[i] - expected[i]));
      }
      EXPECT_GT(local_gap, 1e-6) << "a rank's own value equals the whole data's";
    }
  }
  // update_count after sync: both ranks' updates (7 + 4 batches of up to 16).
  for (const auto& r : ranks) EXPECT_EQ(r.at("synced_updates_mse"), "11");
}

}  // namespace
}  // namespace fulgur
