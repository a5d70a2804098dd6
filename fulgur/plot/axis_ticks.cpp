#include "fulgur/plot/axis_ticks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fulgur::plot {
namespace {

// The smallest 1, 2 or 5 × 10^k that is at least `raw`.
double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    // The tolerance keeps 0.3/3 = 0.09999… from becoming a step of 0.2.
    if (factor * magnitude >= raw * (1 - 1e-9)) return factor * magnitude;
  }
  return 10 * magnitude;
}

}  // namespace

std::string tick_label(double value, double step) {
  // Multiples of the step computed in floating point come out as 0.30000000000000004 or -0.
  if (std::fabs(value) < step * 1e-6) value = 0;
  const double largest = std::max(std::fabs(value), step);
  if (largest >= 1e6 || step < 1e-4) {
    // Exponent form, with as many significant digits as the step needs.
    const int digits = std::max(1, static_cast<int>(std::floor(std::log10(largest))) -
                                       static_cast<int>(std::floor(std::log10(step))) + 1);
    return fmt::format("{:.{}g}", value, std::min(digits, 15));
  }
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", value, decimals);
}

AxisTicks linear_ticks(double min, double max, int target) {
  target = std::max(target, 2);
  if (max < min) std::swap(min, max);
  if (max - min <= std::max(std::fabs(min), std::fabs(max)) * 1e-12) {
    // One value: a range around it, so that its line sits mid-height.
    const double half = min == 0 ? 1.0 : std::fabs(min) * 0.1;
    min -= half;
    max += half;
  }
  const double step = nice_step((max - min) / target);
  const double first = std::floor(min / step + 1e-9);
  const double last = std::ceil(max / step - 1e-9);
  AxisTicks ticks;
  ticks.lo = first * step;
  ticks.hi = last * step;
  // The range is at least 1e-12 of the values' magnitude wide (above), so i stays far below
  // 2^53 and counts exactly; i * step, not a running sum, so nothing drifts.
  for (auto i = static_cast<int64_t>(first); i <= static_cast<int64_t>(last); ++i) {
    const double value = static_cast<double>(i) * step;
    ticks.values.push_back(value);
    ticks.labels.push_back(tick_label(value, step));
  }
  return ticks;
}

AxisTicks log_ticks(double min, double max) {
  if (max < min) std::swap(min, max);
  // Data lies within 1e±300, and widening to whole tick steps adds at most 5 decades: every
  // power of ten here is a normal double.
  int lo = std::clamp(static_cast<int>(std::floor(std::log10(min) + 1e-12)), -300, 300);
  int hi = std::clamp(static_cast<int>(std::ceil(std::log10(max) - 1e-12)), -300, 300);
  if (hi <= lo) {
    // One exact power of ten: a decade either side.
    --lo;
    ++hi;
  }
  const int every = std::max(1, (hi - lo + 5) / 6);  // at most ~7 decade ticks
  hi = lo + (hi - lo + every - 1) / every * every;   // the range ends on a tick
  const int decades = hi - lo;
  AxisTicks ticks;
  ticks.lo = std::pow(10.0, lo);
  ticks.hi = std::pow(10.0, hi);
  for (int e = lo; e <= hi; ++e) {
    const double decade = std::pow(10.0, e);
    if ((e - lo) % every == 0) {
      ticks.values.push_back(decade);
      ticks.labels.push_back(tick_label(decade, decade));
    }
    // On one or two decades the powers of ten alone would leave the axis nearly bare.
    if (decades <= 2 && e < hi) {
      for (double m : {2.0, 5.0}) {
        ticks.values.push_back(m * decade);
        ticks.labels.push_back(tick_label(m * decade, decade));
      }
    }
  }
  return ticks;
}

}  // namespace fulgur::plot
