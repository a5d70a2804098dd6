#pragma once
// Axis ranges and tick marks a person reads at a glance. A linear axis steps by 1, 2 or 5
// times a power of ten and its range widens to whole steps; a log axis ticks at powers of ten
// (every second, third… decade on a wide range; 2 and 5 in between on a narrow one). Labels
// use as few digits as the step needs ("0.25", not "0.250000"), and exponents only for very
// large or small numbers ("1e-05").
#include <string>
#include <vector>

namespace fulgur::plot {

struct AxisTicks {
  double lo = 0;  // the axis range; every data value lies within it
  double hi = 1;
  std::vector<double> values;  // ascending, within [lo, hi]
  std::vector<std::string> labels;
};

// The data's minimum and maximum, finite and within ±1e300; the axis covers them. An empty
// range (one value) widens around it. About `target` ticks.
AxisTicks linear_ticks(double min, double max, int target = 5);

// Both in [1e-300, 1e300]. The range widens to whole decades.
AxisTicks log_ticks(double min, double max);

// A tick label for `value` on an axis stepping by `step`.
std::string tick_label(double value, double step);

}  // namespace fulgur::plot
