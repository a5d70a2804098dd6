#include "fulgur/loggers/csv_logger.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "fulgur/errors.h"
#include "python.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Every test gets its own empty directory, removed afterwards.
class CSVLoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fulgur_csv_logger_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  CSVLoggerOptions options(int64_t flush = 100) {
    CSVLoggerOptions opts;
    opts.save_dir = root_.string();
    opts.flush_logs_every_n_steps = flush;
    return opts;
  }
  fs::path logs() const { return root_ / "lightning_logs"; }

  fs::path root_;
};

TEST_F(CSVLoggerTest, FirstVersionIsZero) {
  CSVLogger logger(options());
  EXPECT_EQ(logger.version(), "version_0");
  EXPECT_EQ(logger.log_dir(), (logs() / "version_0").string());
}

TEST_F(CSVLoggerTest, NextVersionFollowsTheHighestExistingOne) {
  fs::create_directories(logs() / "version_0");
  fs::create_directories(logs() / "version_3");
  fs::create_directories(logs() / "version_x");           // not a number: ignored
  write_text(logs() / "version_9", "a file, not a run");  // not a directory: ignored
  CSVLogger logger(options());
  EXPECT_EQ(logger.version(), "version_4");
  EXPECT_EQ(logger.log_dir(), (logs() / "version_4").string());
}

TEST_F(CSVLoggerTest, VersionIsResolvedLazilyThenStable) {
  CSVLogger logger(options());
  fs::create_directories(logs() / "version_5");  // appears after construction, before first use
  EXPECT_EQ(logger.version(), "version_6");
  fs::create_directories(logs() / "version_8");
  EXPECT_EQ(logger.version(), "version_6");
  logger.log_metrics({{"loss", 1.5}}, 0);
  logger.save();
  EXPECT_EQ(logger.version(), "version_6");
  EXPECT_TRUE(fs::exists(logs() / "version_6" / "metrics.csv"));
}

TEST_F(CSVLoggerTest, ExplicitVersionIsUsedAsGiven) {
  fs::create_directories(logs() / "version_5");
  CSVLoggerOptions opts = options();
  opts.version = 2;
  CSVLogger logger(opts);
  EXPECT_EQ(logger.version(), "version_2");
  logger.log_metrics({{"loss", 0.5}}, 0);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_2" / "metrics.csv"), "loss,step\n0.5,0\n");
}

TEST_F(CSVLoggerTest, SaveDirAndNameLayout) {
  CSVLoggerOptions opts = options();
  opts.name = "my_exp";
  CSVLogger logger(opts);
  EXPECT_EQ(logger.name(), "my_exp");
  EXPECT_EQ(logger.save_dir(), root_.string());
  EXPECT_EQ(logger.log_dir(), (root_ / "my_exp" / "version_0").string());
  logger.log_hyperparams({{"lr", 0.1}});
  logger.log_metrics({{"loss", 0.5}}, 0);
  logger.save();
  EXPECT_TRUE(fs::is_regular_file(root_ / "my_exp" / "version_0" / "metrics.csv"));
  EXPECT_TRUE(fs::is_regular_file(root_ / "my_exp" / "version_0" / "hparams.yaml"));
  EXPECT_FALSE(fs::exists(logs()));
  // Only the two files: temporary files were renamed into place.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry :
       fs::directory_iterator(root_ / "my_exp" / "version_0")) {
    ++entries;
  }
  EXPECT_EQ(entries, 2);
}

TEST_F(CSVLoggerTest, DirectoryAppearsOnFirstWriteOnly) {
  {
    CSVLogger logger(options());
    EXPECT_EQ(logger.log_dir(), (logs() / "version_0").string());
    logger.finalize("success");
    EXPECT_FALSE(fs::exists(logs()));
  }
  EXPECT_FALSE(fs::exists(logs()));  // an unused logger leaves nothing behind

  CSVLogger metrics(options());
  metrics.log_metrics({{"loss", 1.0}}, 0);
  EXPECT_TRUE(fs::is_directory(logs() / "version_0"));
  EXPECT_FALSE(fs::exists(logs() / "version_0" / "metrics.csv"));  // still buffered

  CSVLogger hparams(options());
  EXPECT_EQ(hparams.version(), "version_1");
  hparams.log_hyperparams({{"seed", int64_t{7}}});
  EXPECT_TRUE(fs::is_regular_file(logs() / "version_1" / "hparams.yaml"));

  CSVLogger saved(options());
  EXPECT_EQ(saved.version(), "version_2");
  saved.save();
  EXPECT_TRUE(fs::is_directory(logs() / "version_2"));
  // Lightning's run directories always hold an hparams.yaml.
  EXPECT_EQ(read_text(logs() / "version_2" / "hparams.yaml"), "{}\n");
  EXPECT_FALSE(fs::exists(logs() / "version_2" / "metrics.csv"));
}

TEST_F(CSVLoggerTest, MetricsFileGrowsItsHeaderWhenANewKeyAppears) {
  CSVLogger logger(options());
  const fs::path csv = logs() / "version_0" / "metrics.csv";
  logger.log_metrics({{"loss", 0.5}, {"epoch", 0}}, 0);
  logger.log_metrics({{"loss", 0.25}, {"epoch", 0}}, 1);
  logger.save();
  EXPECT_EQ(read_text(csv),
            "epoch,loss,step\n"
            "0,0.5,0\n"
            "0,0.25,1\n");

  logger.log_metrics({{"loss", 0.125}, {"val_acc", 0.75}, {"epoch", 1}}, 2);
  logger.save();
  EXPECT_EQ(read_text(csv),
            "epoch,loss,step,val_acc\n"
            "0,0.5,0,\n"
            "0,0.25,1,\n"
            "1,0.125,2,0.75\n");

  logger.log_metrics({{"loss", 0.0625}}, 3);  // known keys only: appended
  logger.log_metrics({{"a_first", 2.0}}, 4);  // a new key sorting first
  logger.save();
  EXPECT_EQ(read_text(csv),
            "a_first,epoch,loss,step,val_acc\n"
            ",0,0.5,0,\n"
            ",0,0.25,1,\n"
            ",1,0.125,2,0.75\n"
            ",,0.0625,3,\n"
            "2,,,4,\n");
  const std::string before = read_text(csv);
  logger.save();  // nothing buffered: unchanged
  EXPECT_EQ(read_text(csv), before);
}

TEST_F(CSVLoggerTest, RewriteReadsOldRowsBackFromTheFile) {
  CSVLogger logger(options());
  const fs::path csv = logs() / "version_0" / "metrics.csv";
  logger.log_metrics({{"loss", 0.5}}, 0);
  logger.save();
  // The logger keeps no copy of written rows: what is on disk is what gets carried over.
  write_text(csv, "loss,step\n0.75,0\n");
  logger.log_metrics({{"acc", 0.9}}, 1);
  logger.save();
  EXPECT_EQ(read_text(csv), "acc,loss,step\n,0.75,0\n0.9,,1\n");
}

TEST_F(CSVLoggerTest, ValuesKeepFullPrecision) {
  CSVLogger logger(options());
  logger.log_metrics({{"a", 0.1 + 0.2},
                      {"b", 1e-05},
                      {"c", 123456789.125},
                      {"d", std::numeric_limits<double>::quiet_NaN()},
                      {"e", -std::numeric_limits<double>::infinity()}},
                     1234567890123);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"),
            "a,b,c,d,e,step\n0.30000000000000004,1e-05,123456789.125,nan,-inf,1234567890123\n");
}

TEST_F(CSVLoggerTest, FlushesEveryNLogCalls) {
  const fs::path csv = logs() / "version_0" / "metrics.csv";
  auto rows = [&] {
    std::string text = read_text(csv);
    return static_cast<int>(std::count(text.begin(), text.end(), '\n')) - 1;  // minus header
  };
  {
    CSVLogger logger(options(3));
    logger.log_metrics({{"loss", 1.0}}, 0);
    logger.log_metrics({{"loss", 2.0}}, 1);
    EXPECT_FALSE(fs::exists(csv));
    logger.log_metrics({{"loss", 3.0}}, 2);
    EXPECT_EQ(rows(), 3);
    // Steps do not matter, the number of calls does.
    logger.log_metrics({{"loss", 4.0}}, 2);
    logger.log_metrics({{"loss", 5.0}}, 2);
    EXPECT_EQ(rows(), 3);
    logger.log_metrics({{"loss", 6.0}}, 2);
    EXPECT_EQ(rows(), 6);
    logger.log_metrics({{"loss", 7.0}}, 3);
    EXPECT_EQ(rows(), 6);
    logger.finalize("success");
    EXPECT_EQ(rows(), 7);
    logger.log_metrics({{"loss", 8.0}}, 4);
    EXPECT_EQ(rows(), 7);
  }
  // The destructor flushed what was left.
  EXPECT_EQ(rows(), 8);
  EXPECT_EQ(read_text(csv), "loss,step\n1,0\n2,1\n3,2\n4,2\n5,2\n6,2\n7,3\n8,4\n");
}

TEST_F(CSVLoggerTest, EveryCallFlushesWithOne) {
  CSVLogger logger(options(1));
  logger.log_metrics({{"loss", 1.0}}, 0);
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"), "loss,step\n1,0\n");
  logger.log_metrics({{"acc", 0.5}}, 1);
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"), "acc,loss,step\n,1,0\n0.5,,1\n");
}

TEST_F(CSVLoggerTest, PrefixJoinsWithADash) {
  CSVLoggerOptions opts = options();
  opts.prefix = "train";
  CSVLogger logger(opts);
  logger.log_metrics({{"loss", 0.5}, {"epoch", 0}}, 7);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"),
            "step,train-epoch,train-loss\n7,0,0.5\n");
}

TEST_F(CSVLoggerTest, StepArgumentOwnsTheStepColumn) {
  CSVLogger logger(options());
  logger.log_metrics({{"step", 99.0}, {"loss", 0.5}}, 3);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"), "loss,step\n0.5,3\n");
}

TEST_F(CSVLoggerTest, KeysNeedingQuotesSurviveARewrite) {
  CSVLogger logger(options());
  logger.log_metrics({{"a,b", 1.0}, {"say \"hi\"", 2.0}}, 0);
  logger.save();
  logger.log_metrics({{"z", 3.0}}, 1);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"),
            "\"a,b\",\"say \"\"hi\"\"\",step,z\n1,2,0,\n,,1,3\n");
}

TEST_F(CSVLoggerTest, FirstWriteReplacesAnOldMetricsFile) {
  fs::create_directories(logs() / "version_0");
  write_text(logs() / "version_0" / "metrics.csv", "old,step\n1,0\n");
  CSVLoggerOptions opts = options();
  opts.version = 0;
  CSVLogger logger(opts);
  logger.log_metrics({{"loss", 0.5}}, 0);
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "metrics.csv"), "loss,step\n0.5,0\n");
}

TEST_F(CSVLoggerTest, HparamsYamlKeepsTypes) {
  CSVLogger logger(options());
  logger.log_hyperparams({{"lr", 0.001},
                          {"batch_size", int64_t{64}},
                          {"use_amp", false},
                          {"optimizer", std::string("adam")},
                          {"flag_text", std::string("true")},
                          {"num_text", std::string("1.0")},
                          {"empty", std::string("")},
                          {"ratio", 1.0},
                          {"tiny", 1e-05}});
  logger.log_hyperparams({{"seed", int64_t{-3}}, {"lr", 0.002}});  // merged, later wins
  const fs::path yaml = logs() / "version_0" / "hparams.yaml";
  EXPECT_EQ(read_text(yaml),
            "batch_size: 64\n"
            "empty: \"\"\n"
            "flag_text: \"true\"\n"
            "lr: 0.002\n"
            "num_text: \"1.0\"\n"
            "optimizer: adam\n"
            "ratio: 1.0\n"
            "seed: -3\n"
            "tiny: 1.0e-05\n"
            "use_amp: false\n");

  YAML::Node node = YAML::LoadFile(yaml.string());
  ASSERT_TRUE(node.IsMap());
  EXPECT_EQ(node.size(), 10u);
  EXPECT_EQ(node["batch_size"].as<int64_t>(), 64);
  EXPECT_THROW(node["batch_size"].as<bool>(), YAML::BadConversion);
  EXPECT_EQ(node["seed"].as<int64_t>(), -3);
  EXPECT_DOUBLE_EQ(node["lr"].as<double>(), 0.002);
  EXPECT_THROW(node["lr"].as<int64_t>(), YAML::BadConversion);
  EXPECT_DOUBLE_EQ(node["ratio"].as<double>(), 1.0);
  EXPECT_THROW(node["ratio"].as<int64_t>(), YAML::BadConversion);  // stays a float
  EXPECT_DOUBLE_EQ(node["tiny"].as<double>(), 1e-05);
  EXPECT_FALSE(node["use_amp"].as<bool>());
  EXPECT_EQ(node["optimizer"].as<std::string>(), "adam");
  // Strings that would read as other types are quoted ("!" is yaml-cpp's non-plain tag).
  EXPECT_EQ(node["flag_text"].as<std::string>(), "true");
  EXPECT_EQ(node["flag_text"].Tag(), "!");
  EXPECT_EQ(node["num_text"].as<std::string>(), "1.0");
  EXPECT_EQ(node["num_text"].Tag(), "!");
  EXPECT_EQ(node["empty"].as<std::string>(), "");
  EXPECT_EQ(node["lr"].Tag(), "?");
}

TEST_F(CSVLoggerTest, HparamsYamlReadsBackWithPythonTypes) {
  CSVLogger logger(options());
  logger.log_hyperparams({{"lr", 0.001},
                          {"batch_size", int64_t{64}},
                          {"use_amp", true},
                          {"name", std::string("adam")},
                          {"flag_text", std::string("yes")},
                          {"ratio", 1.0},
                          {"tiny", 1e-05},
                          {"big", 1e+20}});
  const fs::path yaml = logs() / "version_0" / "hparams.yaml";
  // Lightning users read this file with PyYAML.
  std::string command = fmt::format(
      "{} -c \"import yaml,sys; d = yaml.safe_load(open(sys.argv[1])); "
      "print(' '.join(f'{{k}}={{type(v).__name__}}:{{v!r}}' for k, v in sorted(d.items())))\" '{}'",
      testing::python(), yaml.string());
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[1024];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << out;
  EXPECT_EQ(out,
            "batch_size=int:64 big=float:1e+20 flag_text=str:'yes' lr=float:0.001 "
            "name=str:'adam' ratio=float:1.0 tiny=float:1e-05 use_amp=bool:True\n");
}

TEST_F(CSVLoggerTest, BadOptionsAreConfigErrors) {
  CSVLoggerOptions negative = options();
  negative.version = -1;
  try {
    CSVLogger logger(negative);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "CSVLogger(version=-1): version must be >= 0, or left unset to take the next "
                 "free one");
  }
  try {
    CSVLogger logger(options(0));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "CSVLogger(flush_logs_every_n_steps=0): must be at least 1 (1 writes every "
                 "call)");
  }
}

TEST_F(CSVLoggerTest, UnwritableSaveDirIsAConfigError) {
  write_text(root_ / "blocker", "a file where a directory should be");
  CSVLoggerOptions opts = options();
  opts.save_dir = (root_ / "blocker").string();
  CSVLogger logger(opts);
  try {
    logger.log_metrics({{"loss", 1.0}}, 0);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  fmt::format("CSVLogger could not create its log directory {}: ",
                              (root_ / "blocker" / "lightning_logs" / "version_0").string()),
                  0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace fulgur
