// examples/fabric: the plain loop moved onto Fabric, run as real processes — one, and two DDP
// ranks over loopback. Two ranks at batch B must train the weights one process trains at 2B.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "integration/example_runner.h"

namespace fulgur::testing {
namespace {

const std::string kFabricExample = bin_dir() + "/fabric-example";

class FabricExample : public FashionMNISTExample {
 protected:
  RunResult run_example(const std::vector<std::string>& args) {
    std::string command = "cd " + quote(dir.string()) + " && " + quote(kFabricExample);
    for (const auto& arg : args) command += " " + quote(arg);
    command += " >" + quote((dir / "out.txt").string()) + " 2>" + quote((dir / "err.txt").string());
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            read_file(dir / "out.txt"), read_file(dir / "err.txt")};
  }
  std::vector<double> weights(const std::string& run) {
    std::vector<double> values;
    for (const auto& line : lines_of(read_file(dir / run / "weights.txt"))) {
      values.push_back(std::stod(line.substr(line.find(' ') + 1)));
    }
    return values;
  }
};

TEST_F(FabricExample, TwoRanksAtBatchBTrainLikeOneProcessAt2B) {
  const auto one = run_example({"--batch-size", "32", "--steps", "40", "--out", "one"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = run_example(
      {"--strategy", "ddp", "--devices", "2", "--batch-size", "16", "--steps", "40", "--out", "two"});
  ASSERT_EQ(two.exit_code, 0) << two.err;

  const auto a = weights("one"), b = weights("two");
  ASSERT_EQ(a.size(), 20u * 32 + 32 + 32 * 4 + 4);
  ASSERT_EQ(a.size(), b.size());
  double max_diff = 0;
  for (size_t i = 0; i < a.size(); ++i) max_diff = std::max(max_diff, std::abs(a[i] - b[i]));
  EXPECT_LT(max_diff, 1e-5);

  // Rank 0 alone prints, and the world size is right.
  EXPECT_EQ(lines_of(two.out),
            (std::vector<std::string>{lines_of(two.out)[0], lines_of(two.out)[1],
                                      "rank 0 of 2 done after 40 steps"}));
  EXPECT_THAT(two.out, ::testing::StartsWith("step 20 loss "));
  EXPECT_THAT(one.out, ::testing::HasSubstr("rank 0 of 1 done after 40 steps"));
  // The mean loss printed at step 40 falls from step 20's on both runs.
  auto loss_at = [](const std::string& out, int line) {
    const auto text = lines_of(out)[line];
    return std::stod(text.substr(text.rfind(' ') + 1));
  };
  EXPECT_LT(loss_at(one.out, 1), loss_at(one.out, 0));
  EXPECT_NEAR(loss_at(one.out, 1), loss_at(two.out, 1), 1e-3);
  EXPECT_TRUE(fs::exists(dir / "two" / "final.ckpt"));
}

TEST_F(FabricExample, AnErrorInsideLaunchEndsTheJobWithTheError) {
  // The loaders refuse a batch size of 0 inside the launched function: the job ends, with the
  // error, and no rank is left running (the test would hang on a leftover child's output).
  const auto result = run_example(
      {"--strategy", "ddp", "--devices", "2", "--batch-size", "0", "--steps", "5", "--out", "x"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, ::testing::HasSubstr("fabric-example: error:"));
  EXPECT_THAT(result.err, ::testing::HasSubstr("batch_size"));
}

}  // namespace
}  // namespace fulgur::testing
