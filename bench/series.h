#pragma once
// Repeated measurements of one quantity, summarised as the benchmark tables print them.
#include <algorithm>
#include <vector>

namespace fulgur::bench {

struct Series {
  std::vector<double> values;
  double median() const {
    auto v = values;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    if (n == 0) return 0;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double min() const { return values.empty() ? 0 : *std::min_element(values.begin(), values.end()); }
  double max() const { return values.empty() ? 0 : *std::max_element(values.begin(), values.end()); }
};

}  // namespace fulgur::bench
