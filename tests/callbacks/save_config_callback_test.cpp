// SaveConfigCallback: the configuration lands in the run's log directory once, is never written
// over an earlier run's file unless asked, and a refusal stops the run before it trains.
#include "fulgur/callbacks/save_config_callback.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fulgur/errors.h"
#include "fulgur/loggers/csv_logger.h"
#include "fulgur/trainer.h"
#include "integration/files_in.h"
#include "temp_dir.h"
#include "trainer/recording.h"

namespace fs = std::filesystem;

namespace fulgur::testing {
namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SaveConfigCallbackTest : public TempDirTest {
 protected:
  // Two training steps with `callback`, logging as `logger` says, under dir_.
  TrainerOptions options(std::shared_ptr<SaveConfigCallback> callback,
                         LoggerFlag logger = false) const {
    TrainerOptions o = quiet({.callbacks = {std::move(callback)}, .max_steps = 2});
    o.logger = std::move(logger);
    o.default_root_dir = dir_.string();
    return o;
  }
  int64_t fit(std::shared_ptr<SaveConfigCallback> callback, LoggerFlag logger = false) {
    Calls calls;
    RecordingModule module(calls);
    Trainer trainer(options(std::move(callback), std::move(logger)));
    trainer.fit(module);
    return trainer.global_step();
  }
  std::shared_ptr<CSVLogger> csv_logger() const {
    return std::make_shared<CSVLogger>(CSVLoggerOptions{.save_dir = dir_.string()});
  }
};

TEST_F(SaveConfigCallbackTest, WritesTheConfigIntoEachRunsLogDir) {
  fit(std::make_shared<SaveConfigCallback>("trainer:\n  max_steps: 2\n"), csv_logger());
  fit(std::make_shared<SaveConfigCallback>("trainer:\n  max_steps: 3\n"), csv_logger());
  EXPECT_EQ(read_text(dir_ / "lightning_logs" / "version_0" / "config.yaml"),
            "trainer:\n  max_steps: 2\n");
  EXPECT_EQ(read_text(dir_ / "lightning_logs" / "version_1" / "config.yaml"),
            "trainer:\n  max_steps: 3\n");
}

TEST_F(SaveConfigCallbackTest, WithoutALoggerWritesIntoDefaultRootDir) {
  EXPECT_EQ(fit(std::make_shared<SaveConfigCallback>("a: 1\n")), 2);
  EXPECT_EQ(read_text(dir_ / "config.yaml"), "a: 1\n");
}

TEST_F(SaveConfigCallbackTest, RefusesToOverwriteAnEarlierRunsConfigBeforeTraining) {
  fit(std::make_shared<SaveConfigCallback>("first: 1\n"));
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(options(std::make_shared<SaveConfigCallback>("second: 2\n")));
  try {
    trainer.fit(module);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string expected = "SaveConfigCallback expected " + (dir_ / "config.yaml").string() +
                                 " to NOT exist. Aborting to avoid overwriting results of a "
                                 "previous run.";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    EXPECT_NE(std::string(e.what()).find(".save_config_kwargs = {.overwrite = true}"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(trainer.global_step(), 0);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "Module.training_step"), 0);
  EXPECT_EQ(read_text(dir_ / "config.yaml"), "first: 1\n");
}

TEST_F(SaveConfigCallbackTest, OverwriteAndConfigFilenameOptions) {
  fit(std::make_shared<SaveConfigCallback>("first: 1\n"));
  fit(std::make_shared<SaveConfigCallback>("second: 2\n",
                                           SaveConfigCallbackOptions{.overwrite = true}));
  EXPECT_EQ(read_text(dir_ / "config.yaml"), "second: 2\n");
  fit(std::make_shared<SaveConfigCallback>(
      "third: 3\n", SaveConfigCallbackOptions{.config_filename = "run.yaml"}));
  EXPECT_EQ(read_text(dir_ / "run.yaml"), "third: 3\n");
  EXPECT_EQ(read_text(dir_ / "config.yaml"), "second: 2\n");
  // No temporary file is left beside them.
  EXPECT_EQ(files_in(dir_), (std::vector<fs::path>{dir_ / "config.yaml", dir_ / "run.yaml"}));
}

TEST_F(SaveConfigCallbackTest, OneTrainerSavesOnceAcrossStages) {
  Calls calls;
  RecordingModule module(calls);
  Trainer trainer(options(std::make_shared<SaveConfigCallback>("once: 1\n")));
  trainer.fit(module);
  // The file exists now; the same callback does not refuse its own file.
  EXPECT_NO_THROW(trainer.validate(module));
  EXPECT_EQ(read_text(dir_ / "config.yaml"), "once: 1\n");
}

TEST_F(SaveConfigCallbackTest, AnUnwritableDirectoryIsAClearError) {
  std::ofstream(dir_ / "file") << "x";
  Calls calls;
  RecordingModule module(calls);
  TrainerOptions below = options(std::make_shared<SaveConfigCallback>("a: 1\n"));
  below.default_root_dir = (dir_ / "file" / "below").string();
  Trainer trainer(below);
  try {
    trainer.fit(module);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " +
                                         (dir_ / "file" / "below" / "config.yaml").string()),
              std::string::npos)
        << e.what();
  }
}

TEST_F(SaveConfigCallbackTest, AnEmptyFilenameIsAConfigError) {
  EXPECT_THROW(SaveConfigCallback("a: 1\n", {.config_filename = ""}), ConfigError);
}

}  // namespace
}  // namespace fulgur::testing
