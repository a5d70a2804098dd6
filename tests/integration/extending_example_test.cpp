// examples/extending: a custom Accelerator, Strategy, Precision plugin and Callback, run as the
// real binary. Each part prints a tagged line when it acts; the test checks that every one of
// them ran, in the Trainer's order, with the counts a 2-epoch fit of 8 batches implies, that
// their states reached the checkpoint, and that the precision plugin trained exactly as
// "32-true" does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "integration/example_runner.h"

namespace fulgur::testing {
namespace {

const std::string kExtendingExample = bin_dir() + "/extending-example";

class ExtendingExample : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("fulgur_extending_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    ASSERT_TRUE(fs::exists(kExtendingExample)) << kExtendingExample << " was not built";
  }
  void TearDown() override { fs::remove_all(dir); }

  RunResult run_example() {
    const std::string command = quote(kExtendingExample) + " " + quote(dir.string()) + " >" +
                                quote((dir / "out.txt").string()) + " 2>" +
                                quote((dir / "err.txt").string());
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            read_file(dir / "out.txt"), read_file(dir / "err.txt")};
  }

  fs::path dir;
};

// The index of the first line matching `pattern`, or -1.
int find_line(const std::vector<std::string>& lines, const std::string& pattern) {
  const std::regex re(pattern);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_match(lines[i], re)) return static_cast<int>(i);
  }
  return -1;
}

TEST_F(ExtendingExample, EveryExtensionRunsAndTrainsLikeTheStockParts) {
  const RunResult r = run_example();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = lines_of(r.out);

  // In the order the Trainer reaches them: the accelerator is set up before fit starts, the
  // callback sees each epoch end, the strategy reports and hands back the accelerator at the end.
  const std::vector<std::string> expected = {
      R"(\[accelerator\] traced_cpu: setup_device\(cpu\))",
      R"(\[callback\] BatchCounter: fit of TinyClassifier on accelerator=traced_cpu )"
      R"(strategy=timed_single_device precision=32-static-scale)",
      R"(\[callback\] BatchCounter: epoch 0 ended after 8 batches, train_loss [0-9.]+)",
      R"(\[callback\] BatchCounter: epoch 1 ended after 8 batches, train_loss [0-9.]+)",
      R"(\[strategy\] timed_single_device: 16 training steps, 6 validation steps, )"
      R"(16 backward passes, 16 optimizer steps \([0-9.]+ s in training_step\))",
      R"(\[accelerator\] traced_cpu: teardown)",
      R"(\[precision\] 32-static-scale: 16 losses scaled by 1024, 16 gradient unscales, )"
      R"(16 optimizer steps)",
      R"(\[accelerator\] traced_cpu: device_stats traced_cpu_setups=1)",
      R"(\[callback\] BatchCounter: 16 batches, 16 optimizer steps with finite gradients)",
      R"(\[checkpoint\] extending\.ckpt: global_step=16 callbacks\.BatchCounter\.batches=16 )"
      R"(StaticScalePrecision\.scale=1024 StaticScalePrecision\.optimizer_steps=16)",
      R"(\[reference\] cpu/single_device/32-true: max \|weight difference\| = [-+.e0-9]+)",
  };
  int previous = -1;
  for (const auto& pattern : expected) {
    const int at = find_line(lines, pattern);
    ASSERT_GE(at, 0) << "no line matches " << pattern << "\n" << r.out;
    EXPECT_GT(at, previous) << pattern << " is out of order\n" << r.out;
    previous = at;
  }

  // The model learns: the second epoch's mean loss is below the first's.
  auto loss_of = [&](int epoch) {
    const auto& line = lines[find_line(
        lines, R"(\[callback\] BatchCounter: epoch )" + std::to_string(epoch) + " ended.*")];
    return std::stod(line.substr(line.rfind(' ') + 1));
  };
  EXPECT_LT(loss_of(1), loss_of(0)) << r.out;
  // A power-of-two loss scale is exact: the weights equal those of "32-true" (0 here; the
  // bound leaves room for a BLAS that orders its sums differently between the two runs).
  const auto& reference = lines[find_line(lines, R"(\[reference\].*)")];
  EXPECT_LT(std::stod(reference.substr(reference.rfind(' ') + 1)), 1e-6) << r.out;
  EXPECT_TRUE(fs::exists(dir / "extending.ckpt"));
}

}  // namespace
}  // namespace fulgur::testing
