// Runs the real build/bin/fashion-mnist as a child process, in a fresh temporary folder, and
// checks what a user sees: training that learns, a checkpoint that tests well, predictions on
// disk, and one-line errors with the right exit codes for mistakes.
#include <map>

#include "integration/example_runner.h"
#include "integration/files_in.h"

namespace fulgur::testing {
namespace {

TEST_F(FashionMNISTExample, FitLearnsThenTestAndPredictUseTheCheckpoint) {
  const RunResult fit = run({"fit", "--trainer.max_epochs=1", "--trainer.limit_train_batches=60",
                             "--trainer.limit_val_batches=5", "--trainer.log_every_n_steps=10",
                             "--trainer.enable_progress_bar=false"});
  ASSERT_EQ(fit.exit_code, 0) << fit.out << fit.err;

  const fs::path version = dir / "lightning_logs" / "version_0";
  const auto losses = column(version / "metrics.csv", "train_loss");
  ASSERT_GE(losses.size(), 4u) << read_file(version / "metrics.csv");
  const double last_mean =
      (losses[losses.size() - 1] + losses[losses.size() - 2] + losses[losses.size() - 3]) / 3.0;
  EXPECT_LT(last_mean, losses.front()) << read_file(version / "metrics.csv");
  EXPECT_FALSE(column(version / "metrics.csv", "val_acc").empty());
  EXPECT_FALSE(column(version / "metrics.csv", "val_f1").empty());

  const std::vector<fs::path> checkpoints = files_in(version / "checkpoints", ".ckpt");
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_GT(fs::file_size(checkpoints[0]), 100'000u);  // the CNN's weights are ~1.7 MB
  // LightningCLI's SaveConfigCallback: the run's whole config beside its metrics.
  const std::string config = read_file(version / "config.yaml");
  EXPECT_NE(config.find("\n  max_epochs: 1\n"), std::string::npos) << config;
  EXPECT_NE(config.find("\n  limit_train_batches: 60\n"), std::string::npos) << config;
  EXPECT_NE(config.find("\nmodel:\n"), std::string::npos) << config;

  const RunResult test =
      run({"test", "--ckpt_path=" + checkpoints[0].string(), "--trainer.limit_test_batches=20",
           "--trainer.enable_progress_bar=false"});
  ASSERT_EQ(test.exit_code, 0) << test.out << test.err;
  EXPECT_NE(read_file(dir / "lightning_logs" / "version_1" / "config.yaml")
                .find("\nckpt_path: " + checkpoints[0].string() + "\n"),
            std::string::npos);
  const auto accuracy = table_value(test.out, "test_acc");
  const auto loss = table_value(test.out, "test_loss");
  ASSERT_TRUE(accuracy.has_value()) << test.out;
  ASSERT_TRUE(loss.has_value()) << test.out;
  // Macro F1 through the F1Score metric object: a real score, never above 1, and no better
  // than micro accuracy by much on ten balanced classes.
  const auto f1 = table_value(test.out, "test_f1");
  ASSERT_TRUE(f1.has_value()) << test.out;
  EXPECT_GT(*f1, 0.3) << test.out;
  EXPECT_LE(*f1, 1.0) << test.out;
  EXPECT_LT(*f1, *accuracy + 0.1) << test.out;
  // 60 steps already beat chance (0.1) by far; a model that did not load its weights would not.
  EXPECT_GT(*accuracy, 0.5) << test.out;
  EXPECT_LT(*loss, 1.5) << test.out;

  const RunResult predict =
      run({"predict", "--ckpt_path=" + checkpoints[0].string(), "--trainer.limit_predict_batches=3",
           "--trainer.logger=false", "--trainer.enable_progress_bar=false"});
  ASSERT_EQ(predict.exit_code, 0) << predict.out << predict.err;
  const fs::path predictions = dir / "predictions.csv";
  EXPECT_NE(predict.out.find("predictions written to " + predictions.string()), std::string::npos)
      << predict.out;
  const auto rows = lines_of(read_file(predictions));
  ASSERT_EQ(rows.size(), 1u + 3 * 64);
  EXPECT_EQ(rows[0], "index,prediction");
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto comma = rows[i].find(',');
    ASSERT_NE(comma, std::string::npos);
    EXPECT_EQ(std::stoi(rows[i].substr(0, comma)), static_cast<int>(i - 1));
    const int label = std::stoi(rows[i].substr(comma + 1));
    EXPECT_GE(label, 0);
    EXPECT_LT(label, 10);
  }

  // Without a logger the config goes to default_root_dir (here the working folder), and a
  // second run there refuses to overwrite it, as Lightning's, before it predicts anything.
  const std::string first_config = read_file(dir / "config.yaml");
  EXPECT_NE(first_config.find("\n  limit_predict_batches: 3\n"), std::string::npos);
  fs::remove(predictions);
  const RunResult again =
      run({"predict", "--ckpt_path=" + checkpoints[0].string(), "--trainer.limit_predict_batches=2",
           "--trainer.logger=false", "--trainer.enable_progress_bar=false"});
  EXPECT_EQ(again.exit_code, 1);
  expect_one_error_line(again);
  EXPECT_NE(again.err.find("SaveConfigCallback expected " + (dir / "config.yaml").string() +
                           " to NOT exist. Aborting to avoid overwriting results of a previous run."),
            std::string::npos)
      << again.err;
  EXPECT_EQ(read_file(dir / "config.yaml"), first_config);
  EXPECT_FALSE(fs::exists(predictions));
}

TEST_F(FashionMNISTExample, MistypedFlagSuggestsTheRightOne) {
  const RunResult r = run({"fit", "--trainer.max_epoch=3"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("did you mean --trainer.max_epochs"), std::string::npos) << r.err;
}

TEST_F(FashionMNISTExample, UnknownAcceleratorIsAOneLineUsageError) {
  const RunResult r = run({"fit", "--trainer.accelerator=tpu2"});
  EXPECT_NE(r.exit_code, 0);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("accelerator"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tpu2"), std::string::npos) << r.err;
}

TEST_F(FashionMNISTExample, MissingDataNamesTheFile) {
  const RunResult r = run({"fit", "--data.data_dir=/nonexistent", "--trainer.max_epochs=1",
                           "--trainer.enable_progress_bar=false"});
  EXPECT_EQ(r.exit_code, 1);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("/nonexistent/train-images-idx3-ubyte.gz"), std::string::npos) << r.err;
}

TEST_F(FashionMNISTExample, PrintConfigFeedsBackToTheSameConfig) {
  const RunResult first =
      run({"fit", "--print_config", "--trainer.max_epochs=2", "--trainer.limit_val_batches=0.5",
           "--model.lr=0.002", "--data.batch_size=128", "--trainer.devices=1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(first.err.empty()) << first.err;
  EXPECT_NE(first.out.find("  max_epochs: 2\n"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("  lr: 0.002\n"), std::string::npos) << first.out;
  std::ofstream(dir / "config.yaml") << first.out;

  const RunResult second =
      run({"fit", "--config", (dir / "config.yaml").string(), "--print_config"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);

  // The command line still wins over the file.
  const RunResult third = run({"fit", "--config=" + (dir / "config.yaml").string(),
                               "--trainer.max_epochs=4", "--print_config"});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.out.find("  max_epochs: 4\n"), std::string::npos) << third.out;
}

TEST_F(FashionMNISTExample, HelpListsEveryTrainerKeyWithItsDefault) {
  const RunResult r = run({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto at = r.out.find("--trainer.max_epochs ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(line.find("default: 5"), std::string::npos) << line;
  for (const char* key : {"--trainer.limit_train_batches ", "--model.lr ", "--data.batch_size ",
                          "--data.data_dir ", "--seed_everything ", "--ckpt_path "}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
}

TEST_F(FashionMNISTExample, MissingSubcommandIsAUsageError) {
  const RunResult r = run({});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("missing subcommand"), std::string::npos) << r.err;
}

// `--trainer.strategy=ddp --trainer.devices=2`: one command, two processes (fulgur's launcher
// starts the second). With half the per-rank batch, every step sees the same samples as one
// process does (without dropout, the same gradients), so both learn alike; rank 0 alone writes
// the log, the checkpoint and the results table, and a test under DDP counts each test image
// once, matching the one-process test of the same checkpoint.
TEST_F(FashionMNISTExample, DdpOnTwoProcessesLearnsLikeOneProcessAndWritesOneLog) {
  const auto fit = [&](const std::string& root, std::vector<std::string> extra) {
    std::vector<std::string> args{"fit", "--trainer.max_epochs=1",
                                  "--trainer.limit_train_batches=150",
                                  "--trainer.limit_val_batches=10", "--seed_everything=3",
                                  "--model.dropout=0", "--trainer.enable_progress_bar=false",
                                  "--trainer.default_root_dir=" + root};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const auto checkpoint_of = [&](const std::string& root) {
    const std::vector<fs::path> found =
        files_in(dir / root / "lightning_logs" / "version_0" / "checkpoints", ".ckpt");
    EXPECT_EQ(found.size(), 1u) << root;
    return found.empty() ? std::string() : found[0].string();
  };
  // Each logger-less test in a folder of its own, for its config.yaml.
  int tests = 0;
  const auto test_accuracy = [&](const std::string& checkpoint, std::vector<std::string> extra) {
    std::vector<std::string> args{
        "test", "--ckpt_path=" + checkpoint, "--trainer.logger=false",
        "--trainer.enable_progress_bar=false",
        "--trainer.default_root_dir=" + (dir / ("test" + std::to_string(tests++))).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // One results table: rank 0's.
    size_t tables = 0;
    for (const auto& line : lines_of(r.out)) tables += line.find("test_acc") != std::string::npos;
    EXPECT_EQ(tables, 1u) << r.out;
    return table_value(r.out, "test_acc").value_or(-1);
  };

  const RunResult single = fit("single", {"--data.batch_size=64"});
  ASSERT_EQ(single.exit_code, 0) << single.out << single.err;
  const RunResult ddp = fit("ddp", {"--data.batch_size=32", "--trainer.strategy=ddp",
                                    "--trainer.devices=2"});
  ASSERT_EQ(ddp.exit_code, 0) << ddp.out << ddp.err;

  const fs::path logs = dir / "ddp" / "lightning_logs";
  EXPECT_TRUE(fs::exists(logs / "version_0" / "metrics.csv"));
  EXPECT_FALSE(fs::exists(logs / "version_1"));
  EXPECT_EQ(column(logs / "version_0" / "metrics.csv", "train_loss").size(),
            column(dir / "single" / "lightning_logs" / "version_0" / "metrics.csv", "train_loss")
                .size());

  const double single_accuracy = test_accuracy(checkpoint_of("single"), {});
  const std::string ddp_checkpoint = checkpoint_of("ddp");
  const double ddp_accuracy = test_accuracy(ddp_checkpoint, {});
  const double ddp_accuracy_on_two = test_accuracy(
      ddp_checkpoint, {"--trainer.strategy=ddp", "--trainer.devices=2"});
  EXPECT_GT(single_accuracy, 0.6);
  EXPECT_NEAR(ddp_accuracy, single_accuracy, 0.01);
  EXPECT_NEAR(ddp_accuracy_on_two, ddp_accuracy, 1e-6);
}

// Under DDP rank 0 alone writes config.yaml, and when one is already there every rank stops
// before training, with a clear error and no hang.
TEST_F(FashionMNISTExample, DdpRunsWriteOneConfigAndAllRefuseAnEarlierOne) {
  const std::vector<std::string> args{
      "fit", "--trainer.max_epochs=1", "--trainer.limit_train_batches=2",
      "--trainer.limit_val_batches=0", "--trainer.logger=false",
      "--trainer.enable_progress_bar=false", "--trainer.strategy=ddp", "--trainer.devices=2"};
  const RunResult first = run(args);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const std::string config = read_file(dir / "config.yaml");
  EXPECT_NE(config.find("\n  strategy: ddp\n"), std::string::npos) << config;
  EXPECT_EQ(files_in(dir, ".yaml").size(), 1u);

  const RunResult second = run(args);
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  // The error, and the launcher's line when rank 0 failed first.
  for (const auto& line : lines_of(second.err)) {
    EXPECT_TRUE(line.starts_with("fashion-mnist: error: ") || line.starts_with("fulgur: rank "))
        << second.err;
  }
  EXPECT_LE(lines_of(second.err).size(), 2u) << second.err;
  EXPECT_NE(second.err.find("SaveConfigCallback expected " + (dir / "config.yaml").string() +
                            " to NOT exist."),
            std::string::npos)
      << second.err;
  EXPECT_EQ(read_file(dir / "config.yaml"), config);
}

// "bf16-mixed" (autocast to bfloat16 on the CPU) learns as well as "32-true": after the same
// 150 steps from the same seed, test accuracy within half a point.
TEST_F(FashionMNISTExample, Bf16MixedLearnsAsWellAsFullPrecision) {
  std::map<std::string, double> accuracy;
  for (const std::string precision : {"32-true", "bf16-mixed"}) {
    const RunResult fit = run({"fit", "--trainer.max_epochs=1", "--trainer.limit_train_batches=150",
                               "--trainer.limit_val_batches=0", "--seed_everything=3",
                               "--model.dropout=0", "--trainer.enable_progress_bar=false",
                               "--trainer.precision=" + precision,
                               "--trainer.default_root_dir=" + precision});
    ASSERT_EQ(fit.exit_code, 0) << fit.out << fit.err;
    const fs::path checkpoints = dir / precision / "lightning_logs" / "version_0" / "checkpoints";
    ASSERT_TRUE(fs::exists(checkpoints)) << fit.out << fit.err;
    const auto found = files_in(checkpoints, ".ckpt");
    ASSERT_EQ(found.size(), 1u) << fit.out << fit.err;
    const std::string checkpoint = found[0].string();
    const RunResult test = run({"test", "--ckpt_path=" + checkpoint, "--trainer.logger=false",
                                "--trainer.enable_progress_bar=false",
                                "--trainer.precision=" + precision,
                                "--trainer.default_root_dir=" + precision});
    ASSERT_EQ(test.exit_code, 0) << test.out << test.err;
    accuracy[precision] = table_value(test.out, "test_acc").value_or(-1);
  }
  EXPECT_GT(accuracy["32-true"], 0.6);
  EXPECT_NEAR(accuracy["bf16-mixed"], accuracy["32-true"], 0.005);
}

// The full-width precisions of another type train the example too: bfloat16 everywhere
// ("bf16-true") and float64 ("64-true", slow: fewer steps).
TEST_F(FashionMNISTExample, Bf16TrueAnd64TrueTrainTheExample) {
  for (const auto& [precision, steps] :
       std::vector<std::pair<std::string, int>>{{"bf16-true", 150}, {"64-true", 60}}) {
    const RunResult fit =
        run({"fit", "--trainer.max_epochs=1",
             "--trainer.limit_train_batches=" + std::to_string(steps),
             "--trainer.limit_val_batches=0", "--seed_everything=3",
             "--trainer.enable_progress_bar=false", "--trainer.precision=" + precision,
             "--trainer.default_root_dir=" + precision});
    ASSERT_EQ(fit.exit_code, 0) << precision << fit.out << fit.err;
    const fs::path checkpoints = dir / precision / "lightning_logs" / "version_0" / "checkpoints";
    ASSERT_TRUE(fs::exists(checkpoints)) << fit.out << fit.err;
    const auto found = files_in(checkpoints, ".ckpt");
    ASSERT_EQ(found.size(), 1u) << precision << fit.out << fit.err;
    const RunResult test =
        run({"test", "--ckpt_path=" + found[0].string(),
             "--trainer.logger=false", "--trainer.enable_progress_bar=false",
             "--trainer.limit_test_batches=40", "--trainer.precision=" + precision,
             "--trainer.default_root_dir=" + precision});
    ASSERT_EQ(test.exit_code, 0) << precision << test.out << test.err;
    // Chance is 0.1; the trained models reach 0.7-0.8 by then.
    EXPECT_GT(table_value(test.out, "test_acc").value_or(-1), 0.6) << precision << test.out;
  }
}

}  // namespace
}  // namespace fulgur::testing
