#include "fulgur/loggers/tensorboard_logger.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fulgur/errors.h"
#include "project_paths.h"
#include "python.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;

// The independent reader: Python, its own CRC32C, and either python3-protobuf (classes that
// protoc generates from fulgur's event.proto) or a wire-format decoder of its own.
const std::string kReader = testing::source_dir() + "/tests/loggers/read_tfevents.py";
const std::string kProto = testing::source_dir() + "/fulgur/loggers/tensorboard/event.proto";

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

struct Output {
  int status;
  std::string text;
};

Output run(const std::string& command) {
  Output out{-1, ""};
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.text.append(buffer, n);
  int status = ::pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

bool python_protobuf_installed() {
  return run(testing::python() + " -c 'import google.protobuf' 2>/dev/null").status == 0;
}

// The reader's lines for `file`; fails the test when the reader rejects it.
std::string read_events(const std::string& file, const std::string& decoder = "wire") {
  Output out = run(fmt::format("{} '{}' --decoder {} --proto '{}' '{}'", testing::python(), kReader,
                               decoder, kProto, file));
  EXPECT_EQ(out.status, 0) << "the reader rejected " << file << ":\n" << out.text;
  return out.text;
}

std::vector<fs::path> event_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().starts_with("events.out.tfevents.")) {
      files.push_back(entry.path());
    }
  }
  return files;
}

class TensorBoardLoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "fulgur_tb_logger_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }
  TensorBoardLoggerOptions options() const {
    TensorBoardLoggerOptions opts;
    opts.save_dir = root_.string();
    return opts;
  }
  fs::path logs() const { return root_ / "lightning_logs"; }

  // Hyperparameters, metrics at several steps and a text, as a short run logs them.
  void log_a_run(TensorBoardLogger& logger) {
    logger.log_hyperparams({{"lr", 0.001},
                            {"batch_size", int64_t{64}},
                            {"optimizer", std::string("adam")},
                            {"use_amp", true}});
    logger.log_metrics({{"loss", 0.5}, {"epoch", 0}}, 0);
    logger.log_metrics({{"loss", 0.25}, {"epoch", 0}, {"acc", 0.1}, {"tiny", 1e-05}}, 50);
    logger.log_metrics({{"loss", 0.125},
                        {"epoch", 1},
                        {"nan", std::numeric_limits<double>::quiet_NaN()},
                        {"big", 3e38 * 10}},  // past float's range: inf, as float() makes it
                       1234567890123);
    logger.log_text("notes", "first run\nsecond line: ü", 1234567890123);
    logger.finalize("success");
  }

  static constexpr const char* kRunEvents =
      "file_version 0 brain.Event:2\n"
      "scalar 0 hp_metric -1\n"
      "hparams 0 _hparams_/experiment experiment hparams=batch_size:FLOAT64,lr:FLOAT64,"
      "optimizer:STRING,use_amp:FLOAT64 metrics=hp_metric\n"
      "hparams 0 _hparams_/session_start_info session_start_info batch_size=64.0 lr=0.001 "
      "optimizer='adam' use_amp=1.0\n"
      "hparams 0 _hparams_/session_end_info session_end_info status=STATUS_SUCCESS\n"
      "scalar 0 epoch 0\n"
      "scalar 0 loss 0.5\n"
      "scalar 50 acc 0.1\n"
      "scalar 50 epoch 0\n"
      "scalar 50 loss 0.25\n"
      "scalar 50 tiny 1e-05\n"
      "scalar 1234567890123 big inf\n"
      "scalar 1234567890123 epoch 1\n"
      "scalar 1234567890123 loss 0.125\n"
      "scalar 1234567890123 nan nan\n"
      "text 1234567890123 notes/text_summary 'first run\\nsecond line: ü'\n"
      "records 9\n";

  fs::path root_;
};

TEST_F(TensorBoardLoggerTest, EventFileLivesInTheVersionDirectory) {
  TensorBoardLogger logger(options());
  EXPECT_EQ(logger.name(), "lightning_logs");
  EXPECT_EQ(logger.save_dir(), root_.string());
  EXPECT_EQ(logger.version(), "version_0");
  EXPECT_EQ(logger.log_dir(), (logs() / "version_0").string());
  EXPECT_EQ(logger.event_file(), "");
  logger.log_metrics({{"loss", 1.0}}, 0);

  std::vector<fs::path> files = event_files(logs() / "version_0");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(logger.event_file(), files[0].string());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const std::regex name(fmt::format(
      R"(events\.out\.tfevents\.(\d{{10}})\.{}\.{}\.0)",
      std::regex_replace(host, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"), ::getpid()));
  std::smatch match;
  const std::string file_name = files[0].filename().string();
  ASSERT_TRUE(std::regex_match(file_name, match, name)) << file_name;
  const long long seconds = std::stoll(match[1]);
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  EXPECT_LE(seconds, now);
  EXPECT_GT(seconds, now - 600);

  // The next logger takes the next version.
  TensorBoardLogger next(options());
  EXPECT_EQ(next.version(), "version_1");
  next.log_text("t", "x", 0);
  EXPECT_EQ(event_files(logs() / "version_1").size(), 1u);
}

TEST_F(TensorBoardLoggerTest, ReadsBackWithTheWireFormatDecoder) {
  TensorBoardLogger logger(options());
  log_a_run(logger);
  EXPECT_EQ(read_events(logger.event_file(), "wire"), kRunEvents);
}

TEST_F(TensorBoardLoggerTest, ReadsBackWithPythonProtobuf) {
  ASSERT_TRUE(python_protobuf_installed())
      << "python3-protobuf is not installed (scripts/install-deps installs it)";
  TensorBoardLogger logger(options());
  log_a_run(logger);
  EXPECT_EQ(read_events(logger.event_file(), "protobuf"), kRunEvents);
}

TEST_F(TensorBoardLoggerTest, HparamsYamlHasEverythingLoggedSoFar) {
  TensorBoardLogger logger(options());
  logger.log_hyperparams(
      {{"lr", 0.001}, {"batch_size", int64_t{64}}, {"flag", std::string("yes")}});
  logger.log_hyperparams({{"lr", 0.002}, {"ratio", 1.0}});  // merged, later wins
  logger.save();
  const fs::path yaml = logs() / "version_0" / "hparams.yaml";
  EXPECT_EQ(read_text(yaml),
            "batch_size: 64\n"
            "flag: \"yes\"\n"
            "lr: 0.002\n"
            "ratio: 1.0\n");
  // The event file records each call's own values, as Lightning's does.
  EXPECT_EQ(read_events(logger.event_file()),
            "file_version 0 brain.Event:2\n"
            "scalar 0 hp_metric -1\n"
            "hparams 0 _hparams_/experiment experiment hparams=batch_size:FLOAT64,flag:STRING,"
            "lr:FLOAT64 metrics=hp_metric\n"
            "hparams 0 _hparams_/session_start_info session_start_info batch_size=64.0 "
            "flag='yes' lr=0.001\n"
            "hparams 0 _hparams_/session_end_info session_end_info status=STATUS_SUCCESS\n"
            "scalar 0 hp_metric -1\n"
            "hparams 0 _hparams_/experiment experiment hparams=lr:FLOAT64,ratio:FLOAT64 "
            "metrics=hp_metric\n"
            "hparams 0 _hparams_/session_start_info session_start_info lr=0.002 ratio=1.0\n"
            "hparams 0 _hparams_/session_end_info session_end_info status=STATUS_SUCCESS\n"
            "records 9\n");
}

TEST_F(TensorBoardLoggerTest, HparamsWithGivenMetricsOrNone) {
  TensorBoardLoggerOptions opts = options();
  opts.default_hp_metric = false;
  TensorBoardLogger logger(opts);
  // No metrics and no default one: hparams.yaml only, as in Lightning.
  logger.log_hyperparams({{"lr", 0.1}});
  EXPECT_EQ(read_text(logs() / "version_0" / "hparams.yaml"), "lr: 0.1\n");
  logger.log_hyperparams({{"seed", int64_t{7}}}, {{"val_acc", 0.0}, {"val_loss", 2.0}});
  logger.save();
  EXPECT_EQ(read_text(logs() / "version_0" / "hparams.yaml"), "lr: 0.1\nseed: 7\n");
  EXPECT_EQ(read_events(logger.event_file()),
            "file_version 0 brain.Event:2\n"
            "scalar 0 val_acc 0\n"
            "scalar 0 val_loss 2\n"
            "hparams 0 _hparams_/experiment experiment hparams=seed:FLOAT64 "
            "metrics=val_acc,val_loss\n"
            "hparams 0 _hparams_/session_start_info session_start_info seed=7.0\n"
            "hparams 0 _hparams_/session_end_info session_end_info status=STATUS_SUCCESS\n"
            "records 5\n");
}

TEST_F(TensorBoardLoggerTest, PrefixJoinsMetricTagsWithADash) {
  TensorBoardLoggerOptions opts = options();
  opts.prefix = "train";
  TensorBoardLogger logger(opts);
  logger.log_hyperparams({});
  logger.log_metrics({{"loss", 0.5}, {"epoch", 0}}, 7);
  logger.log_text("notes", "no prefix here", 7);
  logger.save();
  // As Lightning: hp_metric is logged through log_metrics (prefixed), while the experiment
  // names it as given.
  EXPECT_EQ(read_events(logger.event_file()),
            "file_version 0 brain.Event:2\n"
            "scalar 0 train-hp_metric -1\n"
            "hparams 0 _hparams_/experiment experiment hparams= metrics=hp_metric\n"
            "hparams 0 _hparams_/session_start_info session_start_info\n"
            "hparams 0 _hparams_/session_end_info session_end_info status=STATUS_SUCCESS\n"
            "scalar 7 train-epoch 0\n"
            "scalar 7 train-loss 0.5\n"
            "text 7 notes/text_summary 'no prefix here'\n"
            "records 7\n");
}

TEST_F(TensorBoardLoggerTest, InvalidUtf8IsReplacedNotWrittenRaw) {
  TensorBoardLogger logger(options());
  logger.log_metrics({{"bad\xff-tag", 1.0}}, 1);
  logger.log_text("t\xc3", "caf\xc3\xa9 \xed\xa0\x80", 2);  // a lone lead byte, a surrogate
  logger.save();
  EXPECT_EQ(read_events(logger.event_file()),
            "file_version 0 brain.Event:2\n"
            "scalar 1 bad\xef\xbf\xbd-tag 1\n"
            "text 2 t\xef\xbf\xbd/text_summary 'caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd'\n"
            "records 3\n");
}

TEST_F(TensorBoardLoggerTest, EventsAreBufferedUntilMaxQueueOrSave) {
  TensorBoardLoggerOptions opts = options();
  opts.max_queue = 3;
  opts.flush_secs = 3600;
  TensorBoardLogger logger(opts);
  logger.log_metrics({{"loss", 1.0}}, 0);
  const fs::path file = logger.event_file();
  // The file_version record is written at once, so TensorBoard sees the run right away.
  const auto first = fs::file_size(file);
  EXPECT_GT(first, 0u);
  logger.log_metrics({{"loss", 2.0}}, 1);
  EXPECT_EQ(fs::file_size(file), first);
  logger.log_metrics({{"loss", 3.0}}, 2);  // the third queued event
  const auto three = fs::file_size(file);
  EXPECT_GT(three, first);
  logger.log_metrics({{"loss", 4.0}}, 3);
  EXPECT_EQ(fs::file_size(file), three);
  logger.save();
  EXPECT_GT(fs::file_size(file), three);
  EXPECT_EQ(read_events(file.string()),
            "file_version 0 brain.Event:2\n"
            "scalar 0 loss 1\n"
            "scalar 1 loss 2\n"
            "scalar 2 loss 3\n"
            "scalar 3 loss 4\n"
            "records 5\n");
}

TEST_F(TensorBoardLoggerTest, EventsAreWrittenOnceFlushSecsHavePassed) {
  TensorBoardLoggerOptions opts = options();
  opts.flush_secs = 0.2;
  TensorBoardLogger logger(opts);
  logger.log_metrics({{"loss", 1.0}}, 0);
  const fs::path file = logger.event_file();
  const auto first = fs::file_size(file);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  logger.log_metrics({{"loss", 2.0}}, 1);
  EXPECT_GT(fs::file_size(file), first);
  EXPECT_EQ(read_events(file.string()),
            "file_version 0 brain.Event:2\nscalar 0 loss 1\nscalar 1 loss 2\nrecords 3\n");

  TensorBoardLoggerOptions every = options();
  every.flush_secs = 0;
  TensorBoardLogger eager(every);
  eager.log_metrics({{"loss", 1.0}}, 0);
  EXPECT_EQ(read_events(eager.event_file()),
            "file_version 0 brain.Event:2\nscalar 0 loss 1\nrecords 2\n");
}

TEST_F(TensorBoardLoggerTest, DestructorWritesWhatIsBuffered) {
  std::string file;
  {
    TensorBoardLogger logger(options());
    logger.log_metrics({{"loss", 1.0}}, 0);
    file = logger.event_file();
  }
  EXPECT_EQ(read_events(file), "file_version 0 brain.Event:2\nscalar 0 loss 1\nrecords 2\n");
  EXPECT_EQ(read_text(logs() / "version_0" / "hparams.yaml"), "{}\n");
}

TEST_F(TensorBoardLoggerTest, AKilledWriterLeavesOnlyWholeRecords) {
  TensorBoardLoggerOptions opts = options();
  opts.max_queue = 2;
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      TensorBoardLogger logger(opts);
      for (int64_t step = 0;; ++step) logger.log_metrics({{"loss", 0.5 * step}}, step);
    } catch (...) {
    }
    ::_exit(1);
  }
  // Kill it mid-run, once it has written a good number of records.
  const fs::path dir = logs() / "version_0";
  bool grown = false;
  for (int i = 0; i < 1000 && !grown; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::vector<fs::path> files = event_files(dir);
    std::error_code ec;
    grown = files.size() == 1 && fs::file_size(files[0], ec) > 200000;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(grown) << "the child never wrote its events";
  ASSERT_TRUE(WIFSIGNALED(status));

  std::vector<fs::path> files = event_files(dir);
  ASSERT_EQ(files.size(), 1u);
  std::istringstream lines(read_events(files[0].string()));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "file_version 0 brain.Event:2");
  int64_t step = 0;
  while (std::getline(lines, line) && line.starts_with("scalar ")) {
    ASSERT_EQ(line, fmt::format("scalar {} loss {}", step, 0.5 * step)) << "record " << step;
    ++step;
  }
  EXPECT_EQ(line, fmt::format("records {}", step + 1));
  EXPECT_GT(step, 1000);
}

TEST_F(TensorBoardLoggerTest, AFailedWriteTearsNothingAndLosesNothing) {
  TensorBoardLoggerOptions opts = options();
  opts.max_queue = 4;
  // In a child, since the file size limit is per process: the limit cuts a write short midway
  // (as a full disk would), the logger reports it, and once there is room again save() writes
  // everything that was queued.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 1;
    try {
      ::signal(SIGXFSZ, SIG_IGN);
      TensorBoardLogger logger(opts);
      logger.log_metrics({{"loss", 0.0}}, 0);
      logger.save();
      rlimit limit{};
      ::getrlimit(RLIMIT_FSIZE, &limit);
      const rlim_t unlimited = limit.rlim_cur;
      limit.rlim_cur = static_cast<rlim_t>(fs::file_size(logger.event_file()) + 100);
      ::setrlimit(RLIMIT_FSIZE, &limit);
      int64_t step = 1;
      try {
        for (; step < 1000; ++step) logger.log_metrics({{"loss", 1.0 * step}}, step);
        code = 2;  // never failed
      } catch (const Error& e) {
        code = std::string(e.what()).starts_with("TensorBoardLogger could not append to ") &&
                       std::string(e.what()).find("File too large") != std::string::npos
                   ? 0
                   : 3;
        if (code == 0 && fs::file_size(logger.event_file()) + 1 > limit.rlim_cur) code = 4;
      }
      limit.rlim_cur = unlimited;
      ::setrlimit(RLIMIT_FSIZE, &limit);
      logger.save();
      std::printf("steps %lld\n", static_cast<long long>(step));
    } catch (...) {
      code = 5;
    }
    std::fflush(stdout);
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "1: setup failed, 2: no error, 3: wrong message, "
                                       "4: a torn record left behind, 5: save() failed";
  std::istringstream lines(read_events(event_files(logs() / "version_0").at(0).string()));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "file_version 0 brain.Event:2");
  int64_t step = 0;
  while (std::getline(lines, line) && line.starts_with("scalar ")) {
    ASSERT_EQ(line, fmt::format("scalar {} loss {}", step, step)) << "record " << step;
    ++step;
  }
  // Every event logged before and at the failing call, none lost.
  EXPECT_EQ(line, fmt::format("records {}", step + 1));
  EXPECT_GT(step, 4);
}

TEST_F(TensorBoardLoggerTest, TwoWritersInOneDirectoryGetTheirOwnFiles) {
  TensorBoardLoggerOptions opts = options();
  opts.version = 3;
  TensorBoardLogger a(opts);
  TensorBoardLogger b(opts);
  a.log_metrics({{"a", 1.0}}, 0);
  b.log_metrics({{"b", 2.0}}, 0);
  a.save();
  b.save();
  ASSERT_NE(a.event_file(), b.event_file());
  EXPECT_EQ(fs::path(a.event_file()).parent_path(), logs() / "version_3");
  EXPECT_EQ(read_events(a.event_file()), "file_version 0 brain.Event:2\nscalar 0 a 1\nrecords 2\n");
  EXPECT_EQ(read_events(b.event_file()), "file_version 0 brain.Event:2\nscalar 0 b 2\nrecords 2\n");
}

TEST_F(TensorBoardLoggerTest, FilenameSuffixIsAppended) {
  TensorBoardLoggerOptions opts = options();
  opts.filename_suffix = ".fulgur";
  TensorBoardLogger logger(opts);
  logger.log_metrics({{"loss", 1.0}}, 0);
  EXPECT_TRUE(logger.event_file().ends_with(".0.fulgur")) << logger.event_file();
}

TEST_F(TensorBoardLoggerTest, AnUnusedLoggerLeavesNothingBehind) {
  {
    TensorBoardLogger logger(options());
    logger.save();
    logger.finalize("success");
  }
  EXPECT_FALSE(fs::exists(logs()));
}

TEST_F(TensorBoardLoggerTest, BadOptionsAreConfigErrors) {
  auto expect_config_error = [](TensorBoardLoggerOptions opts, const std::string& message) {
    try {
      TensorBoardLogger logger(opts);
      ADD_FAILURE() << "expected ConfigError: " << message;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.what(), message);
    }
  };
  TensorBoardLoggerOptions version = options();
  version.version = -1;
  expect_config_error(version,
                      "TensorBoardLogger(version=-1): version must be >= 0, or left unset to take "
                      "the next free one");
  TensorBoardLoggerOptions queue = options();
  queue.max_queue = 0;
  expect_config_error(
      queue, "TensorBoardLogger(max_queue=0): must be at least 1 (1 writes every event at once)");
  TensorBoardLoggerOptions secs = options();
  secs.flush_secs = -1;
  expect_config_error(secs,
                      "TensorBoardLogger(flush_secs=-1): must be a finite number of seconds >= 0 "
                      "(0 writes every event at once)");
  secs.flush_secs = std::nan("");
  expect_config_error(secs,
                      "TensorBoardLogger(flush_secs=nan): must be a finite number of seconds >= 0 "
                      "(0 writes every event at once)");
}

TEST_F(TensorBoardLoggerTest, UnwritableSaveDirIsAConfigError) {
  write_text(root_ / "blocker", "a file where a directory should be");
  TensorBoardLoggerOptions opts = options();
  opts.save_dir = (root_ / "blocker").string();
  TensorBoardLogger logger(opts);
  try {
    logger.log_metrics({{"loss", 1.0}}, 0);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(
        fmt::format("TensorBoardLogger could not create its log directory {}: ",
                    (root_ / "blocker" / "lightning_logs" / "version_0").string())))
        << e.what();
  }
  // Nothing was half made, and the logger stays usable for a second try.
  EXPECT_EQ(logger.event_file(), "");
  EXPECT_THROW(logger.log_text("t", "x", 0), ConfigError);
}

TEST_F(TensorBoardLoggerTest, AVersionDirectoryThatCannotBeMadeIsAnError) {
  // A file where the version directory should be: no one, root included, can write there.
  fs::create_directories(logs());
  std::ofstream(logs() / "version_0") << "not a directory";
  TensorBoardLoggerOptions opts = options();
  opts.version = 0;
  TensorBoardLogger logger(opts);
  try {
    logger.log_metrics({{"loss", 1.0}}, 0);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("TensorBoardLogger could not create "))
        << e.what();
    EXPECT_NE(std::string(e.what()).find("version_0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fulgur
