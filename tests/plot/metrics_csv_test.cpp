#include "fulgur/plot/metrics_csv.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "fulgur/errors.h"
#include "fulgur/loggers/csv_logger.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
using Values = std::vector<double>;

// The DataError `text` raises, or "" when it parses.
std::string error_of(const std::string& text, const std::string& source = "run/metrics.csv") {
  try {
    MetricsCsv::parse(text, source);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(MetricsCsv, ColumnsWithEmptyCellsSkipped) {
  const MetricsCsv table = MetricsCsv::parse(
      "epoch,lr-SGD,step,train_loss,val_acc\n"
      "0,0.1,0,2.5,\n"
      "0,,1,2.25,\n"
      "0,0.05,2,,0.5\n"
      "1,,3,1.75,\n",
      "m.csv");
  EXPECT_EQ(table.source(), "m.csv");
  EXPECT_EQ(table.rows(), 4u);
  EXPECT_EQ(table.steps(), (Values{0, 1, 2, 3}));
  EXPECT_EQ(table.keys(), (std::vector<std::string>{"lr-SGD", "train_loss", "val_acc"}));
  ASSERT_TRUE(table.has_epoch());
  EXPECT_EQ(table.epoch().steps, (Values{0, 1, 2, 3}));
  EXPECT_EQ(table.epoch().values, (Values{0, 0, 0, 1}));
  const MetricPoints* loss = table.find("train_loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->steps, (Values{0, 1, 3}));
  EXPECT_EQ(loss->values, (Values{2.5, 2.25, 1.75}));
  EXPECT_EQ(table.find("lr-SGD")->steps, (Values{0, 2}));
  EXPECT_EQ(table.find("lr-SGD")->values, (Values{0.1, 0.05}));
  EXPECT_EQ(table.find("val_acc")->steps, (Values{2}));
  EXPECT_EQ(table.find("epoch"), nullptr);  // not a metric column
  EXPECT_EQ(table.find("step"), nullptr);
  EXPECT_EQ(table.find("nope"), nullptr);
}

TEST(MetricsCsv, NanAndInfAreValuesNotErrors) {
  const MetricsCsv table = MetricsCsv::parse("loss,step\nnan,0\ninf,1\n-inf,2\n+1.5e-3,3\n", "m");
  const Values& v = table.find("loss")->values;
  ASSERT_EQ(v.size(), 4u);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[3], 1.5e-3);
  EXPECT_FALSE(table.has_epoch());
  EXPECT_TRUE(table.epoch().steps.empty());
}

TEST(MetricsCsv, QuotedNamesCrlfBomAndBlankLines) {
  const MetricsCsv table = MetricsCsv::parse(
      "\xEF\xBB\xBF\"a,b\",\"say \"\"hi\"\"\",step\r\n"
      "1,2,0\r\n"
      "\r\n"
      "3,,1\r\n",
      "m");
  EXPECT_EQ(table.keys(), (std::vector<std::string>{"a,b", "say \"hi\""}));
  EXPECT_EQ(table.find("a,b")->values, (Values{1, 3}));
  EXPECT_EQ(table.find("say \"hi\"")->values, (Values{2}));
  EXPECT_EQ(table.rows(), 2u);
}

TEST(MetricsCsv, HeaderOnlyHasNoRows) {
  const MetricsCsv table = MetricsCsv::parse("loss,step\n", "m");
  EXPECT_EQ(table.rows(), 0u);
  EXPECT_EQ(table.keys(), std::vector<std::string>{"loss"});
  EXPECT_TRUE(table.find("loss")->steps.empty());
}

class MetricsCsvFile : public testing::TempDirTest {};

TEST_F(MetricsCsvFile, ReadsWhatCSVLoggerWrites) {
  {
    CSVLogger logger({.save_dir = dir_.string(), .version = 0});
    for (int step = 0; step < 6; ++step) {
      std::map<std::string, double> metrics = {{"train_loss", 2.0 / (step + 1)},
                                               {"epoch", step / 3}};
      if (step == 2) metrics["train_loss"] = std::numeric_limits<double>::quiet_NaN();
      logger.log_metrics(metrics, step);
      if (step % 3 == 2) logger.log_metrics({{"val_acc", 0.25 * step}, {"epoch", step / 3}}, step);
    }
    logger.log_metrics({{"a,b", 1.0}}, 6);  // a new key that needs quotes: the file is rewritten
  }
  const MetricsCsv table =
      MetricsCsv::read((dir_ / "lightning_logs" / "version_0" / "metrics.csv").string());
  EXPECT_EQ(table.keys(), (std::vector<std::string>{"a,b", "train_loss", "val_acc"}));
  EXPECT_EQ(table.rows(), 9u);
  EXPECT_EQ(table.steps(), (Values{0, 1, 2, 2, 3, 4, 5, 5, 6}));
  const MetricPoints& loss = *table.find("train_loss");
  EXPECT_EQ(loss.steps, (Values{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(loss.values[0], 2.0);
  EXPECT_EQ(loss.values[1], 1.0);
  EXPECT_TRUE(std::isnan(loss.values[2]));
  EXPECT_EQ(loss.values[5], 2.0 / 6);  // full precision survives the round trip
  EXPECT_EQ(table.find("val_acc")->steps, (Values{2, 5}));
  EXPECT_EQ(table.find("val_acc")->values, (Values{0.5, 1.25}));
  EXPECT_EQ(table.find("a,b")->steps, (Values{6}));
  EXPECT_EQ(table.epoch().values, (Values{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST_F(MetricsCsvFile, MissingFileNamesIt) {
  const std::string path = (dir_ / "metrics.csv").string();
  try {
    MetricsCsv::read(path);
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("cannot read {}: No such file or directory", path));
  }
}

TEST(MetricsCsvErrors, EmptyFile) {
  EXPECT_EQ(error_of(""),
            "run/metrics.csv is empty; a metrics.csv starts with a header line naming its "
            "columns, `step` among them");
  EXPECT_EQ(error_of("\n\n"), error_of(""));
}

TEST(MetricsCsvErrors, NoStepColumn) {
  EXPECT_EQ(error_of("loss,epoch\n1,0\n"),
            "run/metrics.csv:1: no `step` column (the header has: loss, epoch); is this a "
            "CSVLogger metrics.csv?");
}

TEST(MetricsCsvErrors, DuplicateColumn) {
  EXPECT_EQ(error_of("loss,step,loss\n"),
            "run/metrics.csv:1: column \"loss\" appears twice in the header");
}

TEST(MetricsCsvErrors, RaggedRowsNameTheirLine) {
  EXPECT_EQ(error_of("loss,step,val\n1,0,\n2,1\n"),
            "run/metrics.csv:3: 2 cells, but the header has 3 columns");
  EXPECT_EQ(error_of("loss,step\n1,0,5\n"),
            "run/metrics.csv:2: 3 cells, but the header has 2 columns");
  EXPECT_EQ(error_of("loss,step\n\n\n7\n"),  // blank lines still count
            "run/metrics.csv:4: 1 cell, but the header has 2 columns");
  // A quoted header cell spanning two lines: rows are numbered by the file's lines.
  EXPECT_EQ(error_of("\"two\nlines\",step\n1,0\n1\n"),
            "run/metrics.csv:4: 1 cell, but the header has 2 columns");
}

TEST(MetricsCsvErrors, CellsThatAreNotNumbers) {
  EXPECT_EQ(error_of("loss,step\n0.5,0\nabc,1\n"),
            "run/metrics.csv:3: column \"loss\": \"abc\" is not a number");
  EXPECT_EQ(error_of("loss,step\n0.5,zero\n"),
            "run/metrics.csv:2: column \"step\": \"zero\" is not a number");
  EXPECT_EQ(error_of("loss,step\n0,5,0\n"),  // a decimal comma shows up as a ragged row
            "run/metrics.csv:2: 3 cells, but the header has 2 columns");
  EXPECT_EQ(error_of("loss,step\n1.5x,0\n"),
            "run/metrics.csv:2: column \"loss\": \"1.5x\" is not a number");
  EXPECT_EQ(error_of("epoch,loss,step\nfirst,1,0\n"),
            "run/metrics.csv:2: column \"epoch\": \"first\" is not a number");
}

TEST(MetricsCsvErrors, StepMustBeThereAndFinite) {
  EXPECT_EQ(error_of("loss,step\n0.5,\n"),
            "run/metrics.csv:2: the `step` cell is empty; every row needs a step");
  EXPECT_EQ(error_of("loss,step\n0.5,nan\n"),
            "run/metrics.csv:2: the step is \"nan\"; steps are whole numbers");
}

TEST(MetricsCsvErrors, UnclosedQuote) {
  EXPECT_EQ(error_of("loss,step\n\"1,0\n2,1\n"),
            "run/metrics.csv:2: a quoted cell is not closed before the end of the file; the file "
            "is cut short or not a CSV");
}

TEST(MetricsCsvErrors, BinaryGarbageIsAnErrorNotACrash) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 256);
  EXPECT_NE(error_of(garbage), "");
  EXPECT_NE(error_of(std::string("step\n\0\n", 7)), "");
}

}  // namespace
}  // namespace fulgur
