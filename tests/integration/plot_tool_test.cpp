// Runs the real build/bin/fulgur on a metrics.csv that fulgur's CSVLogger wrote, and reads the
// SVG back with Python's xml.etree (a parser that is not ours): the panels, their series and
// how many points each drew, and the legends. Mistakes end in one line and the documented
// exit code.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "fulgur/loggers/csv_logger.h"
#include "integration/child_process.h"
#include "integration/files_in.h"
#include "project_paths.h"
#include "python.h"
#include "temp_dir.h"

namespace fulgur::testing {
namespace {

const std::string kTool = bin_dir() + "/fulgur";

// Prints, for each panel, its title and transform, then one line per drawn series element
// (name, tag, number of points) and per legend entry. Exits 1 on a parse error.
constexpr const char* kSummarise = R"PY(
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + 'svg', root.tag
print('size', root.get('width'), root.get('height'))
for g in root.findall(ns + 'g'):
    if g.get('class') != 'panel':
        continue
    title = [t.text for t in g.iter(ns + 'text') if t.get('class') == 'title']
    print('panel', title[0], g.get('transform'))
    for e in g.iter():
        if e.get('class') == 'series':
            n = len(e.get('points').split()) if e.tag == ns + 'polyline' else 1
            print('  series', e.get('data-series'), e.tag[len(ns):], n)
        elif e.get('class') == 'legend-entry':
            print('  legend', e.find(ns + 'text').text)
)PY";

class PlotTool : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_TRUE(fs::exists(kTool)) << kTool << " was not built";
  }

  struct Result {
    int exit_code;
    std::string out, err;
  };
  Result run(std::vector<std::string> args) {
    args.insert(args.begin(), kTool);
    ChildProcess child(args, dir_ / "out.txt", dir_ / "err.txt");
    const auto code = child.wait(std::chrono::seconds(60));
    return {code.value_or(-1), child.out(), child.err()};
  }
  // Python's reading of an SVG, one line per fact.
  std::string summary(const fs::path& svg) {
    const fs::path script = dir_ / "summarise.py";
    std::ofstream(script) << kSummarise;
    ChildProcess python({testing::python(), script.string(), svg.string()}, dir_ / "py.out",
                        dir_ / "py.err");
    EXPECT_EQ(python.wait(std::chrono::seconds(60)), 0) << python.err();
    return python.out();
  }
  // A run as CSVLogger logs it: 30 training steps (a NaN loss at step 12), validation at
  // steps 9, 19 and 29, the learning rate dropping tenfold at step 15.
  fs::path log_run() {
    CSVLogger logger({.save_dir = dir_.string(), .version = 0, .flush_logs_every_n_steps = 7});
    for (int step = 0; step < 30; ++step) {
      const double loss = step == 12 ? std::numeric_limits<double>::quiet_NaN() : 2.0 / (1 + step);
      logger.log_metrics(
          {{"train_loss", loss}, {"lr-SGD", step < 15 ? 0.1 : 0.01}, {"epoch", step / 10}}, step);
      if (step % 10 == 9) {
        logger.log_metrics({{"val_loss", 1.0 - step / 100.0},
                            {"val_acc", 0.5 + step / 100.0},
                            {"epoch", step / 10}},
                           step);
      }
    }
    logger.finalize("success");
    return dir_ / "lightning_logs" / "version_0";
  }
  static void expect_one_error_line(const Result& r) {
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
    EXPECT_EQ(r.err.rfind("fulgur: error: ", 0), 0u) << r.err;
  }
};

TEST_F(PlotTool, PlotsEveryCurveOfARun) {
  const fs::path version = log_run();
  const Result r = run({"plot", version.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path svg = version / "metrics.svg";
  EXPECT_EQ(r.out, "fulgur: 4 panels from 33 rows written to " + svg.string() + "\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(summary(svg),
            "size 800 1156\n"
            "panel train_loss translate(0 36)\n"
            "  series train_loss polyline 12\n"  // steps 0-11, the NaN at 12 a gap, 13-29
            "  series train_loss polyline 17\n"
            "  legend train_loss\n"
            "panel val_loss translate(0 316)\n"
            "  series val_loss polyline 3\n"
            "  legend val_loss\n"
            "panel val_acc translate(0 596)\n"
            "  series val_acc polyline 3\n"
            "  legend val_acc\n"
            "panel lr-SGD translate(0 876)\n"
            "  series lr-SGD polyline 30\n"
            "  legend lr-SGD\n");
  // Nothing else appeared next to the table (the temporary file was renamed into place).
  std::vector<std::string> files;
  for (const auto& file : files_in(version)) files.push_back(file.filename());
  EXPECT_EQ(files, (std::vector<std::string>{"hparams.yaml", "metrics.csv", "metrics.svg"}));
}

TEST_F(PlotTool, OutputKeysAndGroupsFromFlags) {
  const fs::path version = log_run();
  const fs::path out = dir_ / "chosen.svg";
  const Result r = run({"plot", (version / "metrics.csv").string(), "-o", out.string(), "--keys",
                        "val_loss,train_loss,lr-SGD", "--by-group", "--width", "600"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "fulgur: 2 panels from 33 rows written to " + out.string() + "\n");
  EXPECT_FALSE(fs::exists(version / "metrics.svg"));
  EXPECT_EQ(summary(out),
            "size 600 596\n"
            "panel loss translate(0 36)\n"
            "  series val_loss polyline 3\n"  // within a group, in the order asked for
            "  series train_loss polyline 12\n"
            "  series train_loss polyline 17\n"
            "  legend val_loss\n"
            "  legend train_loss\n"
            "panel learning rate translate(0 316)\n"
            "  series lr-SGD polyline 30\n"
            "  legend lr-SGD\n");
}

TEST_F(PlotTool, HelpListsTheCommand) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("plot"), std::string::npos) << r.out;
  const Result plot_help = run({"plot", "--help"});
  EXPECT_EQ(plot_help.exit_code, 0);
  EXPECT_NE(plot_help.out.find("-o,--output"), std::string::npos) << plot_help.out;
}

TEST_F(PlotTool, UsageMistakesExitWithTwo) {
  Result r = run({"plto", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "fulgur: error: unknown command \"plto\"; the commands are: plot (see fulgur "
            "--help)\n");
  r = run({});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r);
  r = run({"plot", dir_.string(), "--colour"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("--colour"), std::string::npos) << r.err;

  const fs::path version = log_run();
  r = run({"plot", version.string(), "-k", "train_los"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "fulgur: error: " + (version / "metrics.csv").string() +
                       " has no column \"train_los\"; its metrics are: lr-SGD, train_loss, "
                       "val_acc, val_loss\n");
}

TEST_F(PlotTool, BadFilesExitWithOneAndNameTheFile) {
  Result r = run({"plot", (dir_ / "missing").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "fulgur: error: cannot read " + (dir_ / "missing").string() +
                       ": No such file or directory\n");

  const fs::path ragged = dir_ / "ragged.csv";
  std::ofstream(ragged) << "loss,step\n1.0,0\n0.5\n";
  r = run({"plot", ragged.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "fulgur: error: " + ragged.string() + ":3: 1 cell, but the header has 2 columns\n");
  EXPECT_FALSE(fs::exists(dir_ / "ragged.svg"));

  // The logger's root instead of a run: the message names the runs it holds.
  log_run();
  r = run({"plot", (dir_ / "lightning_logs").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "fulgur: error: " + (dir_ / "lightning_logs").string() +
                       " has no metrics.csv; it holds runs in version_0; give one of them, e.g. " +
                       (dir_ / "lightning_logs" / "version_0").string() + "\n");

  r = run({"plot", (dir_ / "lightning_logs" / "version_0").string(), "-o",
           (dir_ / "no_dir" / "x.svg").string()});
  EXPECT_EQ(r.exit_code, 1);
  expect_one_error_line(r);
  EXPECT_NE(r.err.find("no_dir/x.svg"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fulgur::testing
