#pragma once
// compute(strategy) of Metric, MetricCollection and MultitaskWrapper: sync(), compute() and
// unsync() in a row, unsyncing also when compute() throws, so the local states come back.
namespace fulgur {
class Strategy;
}  // namespace fulgur

namespace fulgur::metrics {

template <typename Metrics>
auto synced_compute(Metrics& metrics, Strategy& strategy) {
  metrics.sync(strategy);
  try {
    auto value = metrics.compute();
    metrics.unsync();
    return value;
  } catch (...) {
    metrics.unsync();
    throw;
  }
}

}  // namespace fulgur::metrics
