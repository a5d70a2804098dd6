#include "fulgur/plot/axis_ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace fulgur::plot {
namespace {

using Labels = std::vector<std::string>;

TEST(LinearTicks, StepsByOneTwoOrFiveAndWidensToWholeSteps) {
  AxisTicks t = linear_ticks(0.3, 2.3, 5);  // raw step 0.4 -> 0.5
  EXPECT_DOUBLE_EQ(t.lo, 0.0);
  EXPECT_DOUBLE_EQ(t.hi, 2.5);
  EXPECT_EQ(t.labels, (Labels{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5"}));
  ASSERT_EQ(t.values.size(), 6u);
  EXPECT_DOUBLE_EQ(t.values[3], 1.5);

  t = linear_ticks(0, 1000, 5);  // raw 200 -> 200
  EXPECT_EQ(t.labels, (Labels{"0", "200", "400", "600", "800", "1000"}));

  t = linear_ticks(3, 97, 5);  // raw 18.8 -> 20
  EXPECT_DOUBLE_EQ(t.lo, 0);
  EXPECT_DOUBLE_EQ(t.hi, 100);
  EXPECT_EQ(t.labels, (Labels{"0", "20", "40", "60", "80", "100"}));

  t = linear_ticks(0.61, 0.79, 5);  // raw 0.036 -> 0.05
  EXPECT_EQ(t.labels, (Labels{"0.60", "0.65", "0.70", "0.75", "0.80"}));
}

TEST(LinearTicks, NegativeRangesAndNoMinusZero) {
  const AxisTicks t = linear_ticks(-1.2, 3.4, 5);  // raw 0.92 -> 1
  EXPECT_DOUBLE_EQ(t.lo, -2);
  EXPECT_DOUBLE_EQ(t.hi, 4);
  EXPECT_EQ(t.labels, (Labels{"-2", "-1", "0", "1", "2", "3", "4"}));
  const AxisTicks small = linear_ticks(-0.3, 0.3, 6);  // 0.1 steps: -0.3 + 3 * 0.1 is not 0
  EXPECT_EQ(small.labels, (Labels{"-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"}));
}

TEST(LinearTicks, OneValueGetsARangeAroundIt) {
  AxisTicks t = linear_ticks(5, 5, 5);  // 5 ± 0.5, raw step 0.2
  EXPECT_DOUBLE_EQ(t.lo, 4.4);
  EXPECT_DOUBLE_EQ(t.hi, 5.6);
  EXPECT_EQ(t.labels, (Labels{"4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"}));
  t = linear_ticks(0, 0, 4);  // 0 ± 1, raw step 0.5
  EXPECT_EQ(t.labels, (Labels{"-1.0", "-0.5", "0.0", "0.5", "1.0"}));
}

TEST(LinearTicks, TinyAndHugeNumbersUseExponents) {
  AxisTicks t = linear_ticks(1e-6, 4e-6, 3);  // raw 1e-6
  EXPECT_EQ(t.labels, (Labels{"1e-06", "2e-06", "3e-06", "4e-06"}));
  t = linear_ticks(0, 3e7, 3);
  EXPECT_EQ(t.labels, (Labels{"0", "1e+07", "2e+07", "3e+07"}));
  t = linear_ticks(1e7, 1.2e7, 4);  // 0.5e6 steps need two significant digits
  EXPECT_EQ(t.labels, (Labels{"1e+07", "1.05e+07", "1.1e+07", "1.15e+07", "1.2e+07"}));
}

TEST(LinearTicks, ManyTicksDoNotDrift) {
  const AxisTicks t = linear_ticks(0, 1, 10);
  ASSERT_EQ(t.values.size(), 11u);
  EXPECT_EQ(t.labels[3], "0.3");
  EXPECT_EQ(t.values[7], 7 * 0.1);  // i * step exactly, not a running sum
}

TEST(LogTicks, DecadesAndTwoAndFiveOnANarrowRange) {
  AxisTicks t = log_ticks(0.01, 0.05);
  EXPECT_DOUBLE_EQ(t.lo, 0.01);
  EXPECT_DOUBLE_EQ(t.hi, 0.1);
  EXPECT_EQ(t.labels, (Labels{"0.01", "0.02", "0.05", "0.1"}));

  t = log_ticks(3, 700);  // three decades: powers of ten alone
  EXPECT_DOUBLE_EQ(t.lo, 1);
  EXPECT_DOUBLE_EQ(t.hi, 1000);
  EXPECT_EQ(t.labels, (Labels{"1", "10", "100", "1000"}));

  t = log_ticks(1, 64);
  EXPECT_EQ(t.labels, (Labels{"1", "2", "5", "10", "20", "50", "100"}));
}

TEST(LogTicks, WideRangesSkipDecadesAndEndOnATick) {
  AxisTicks t = log_ticks(1e-8, 1);  // 8 decades: every second
  EXPECT_DOUBLE_EQ(t.lo, 1e-8);
  EXPECT_DOUBLE_EQ(t.hi, 1);
  EXPECT_EQ(t.labels, (Labels{"1e-08", "1e-06", "0.0001", "0.01", "1"}));
  t = log_ticks(2e-9, 0.5);  // 9 decades, every second: the axis ends at 10, a tick
  EXPECT_DOUBLE_EQ(t.lo, 1e-9);
  EXPECT_DOUBLE_EQ(t.hi, 10);
  EXPECT_EQ(t.labels, (Labels{"1e-09", "1e-07", "1e-05", "0.001", "0.1", "10"}));
}

TEST(LogTicks, OnePowerOfTenGetsADecadeEitherSide) {
  const AxisTicks t = log_ticks(0.1, 0.1);
  EXPECT_DOUBLE_EQ(t.lo, 0.01);
  EXPECT_DOUBLE_EQ(t.hi, 1);
  EXPECT_EQ(t.labels, (Labels{"0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1"}));
}

TEST(LogTicks, ExtremeRangesStayFinite) {
  const AxisTicks t = log_ticks(1e-300, 1e300);
  EXPECT_EQ(t.lo, 1e-300);
  EXPECT_EQ(t.hi, 1e300);
  EXPECT_EQ(t.values.size(), 7u);
  for (double v : t.values) EXPECT_TRUE(std::isfinite(v) && v > 0) << v;
}

}  // namespace
}  // namespace fulgur::plot
