#include "fulgur/connectors/data_connector.h"

#include <cmath>

#include <fmt/format.h>

#include "fulgur/data/data_loader.h"
#include "fulgur/data/data_module.h"
#include "fulgur/errors.h"
#include "fulgur/loops/hooks.h"
#include "fulgur/strategies/strategy.h"
#include "fulgur/trainer.h"

namespace fulgur {

std::shared_ptr<DataLoader> DataConnector::request(const std::string& stage,
                                                   std::shared_ptr<DataLoader> given) {
  auto loader = given;
  if (!loader) {
    const std::string fx = stage + "_dataloader";
    if (trainer_.datamodule() != nullptr) {
      loader = hooks::datamodule(trainer_, fx.c_str(), [&](DataModule& dm) {
        if (stage == "train") return dm.train_dataloader();
        if (stage == "val") return dm.val_dataloader();
        if (stage == "test") return dm.test_dataloader();
        return dm.predict_dataloader();
      });
    } else {
      loader = hooks::module(trainer_, fx.c_str(), [&](Module& m) {
        if (stage == "train") return m.train_dataloader();
        if (stage == "val") return m.val_dataloader();
        if (stage == "test") return m.test_dataloader();
        return m.predict_dataloader();
      });
    }
  }
  if (loader && trainer_.world_size() > 1) {
    // Lightning's distributed sampler: each rank reads its own shard of one shared order.
    // Training shards are even, so every rank runs the same number of steps; evaluation shards
    // never repeat a sample, so metrics count each one once.
    auto& options = loader->mutable_options();
    options.num_replicas = trainer_.world_size();
    options.rank = trainer_.global_rank();
    options.even_shards = stage == "train";
  }
  // Page-locked batches let the host-to-device copy run asynchronously, as Lightning's
  // pin_memory advice for CUDA.
  if (loader && trainer_.strategy().root_device().is_cuda()) {
    loader->mutable_options().pin_memory = true;
  }
  return loader;
}

int64_t DataConnector::limit_batches(int64_t available, const BatchCount& limit,
                                     const std::string& flag) {
  if (limit.is_fraction()) {
    const double f = std::get<double>(limit.value);
    if (!(f >= 0.0 && f <= 1.0)) {
      throw ConfigError(fmt::format(
          "{}={} is not valid: a fraction must be within [0.0, 1.0] (or give an int count)", flag,
          f));
    }
    const auto n = static_cast<int64_t>(std::floor(available * f));
    if (f > 0.0 && n == 0 && available > 0) {
      throw ConfigError(fmt::format(
          "You requested to check {} of the dataloader but {} * {} < 1. Please increase the "
          "`{}` argument. Try at least `{}={}`",
          f, f, available, flag, flag, 1.0 / static_cast<double>(available)));
    }
    return n;
  }
  const int64_t count = std::get<int64_t>(limit.value);
  if (count < 0) {
    throw ConfigError(fmt::format("{}={} is not valid: a batch count must be >= 0", flag, count));
  }
  return std::min(count, available);
}

BatchCount DataConnector::effective_limit(const std::string& stage) const {
  const auto& o = trainer_.options();
  if (o.fast_dev_run.batches > 0) return BatchCount(o.fast_dev_run.batches);
  const bool overfit =
      o.overfit_batches.is_fraction() ? std::get<double>(o.overfit_batches.value) > 0
                                      : std::get<int64_t>(o.overfit_batches.value) > 0;
  if (overfit && (stage == "train" || stage == "val")) return o.overfit_batches;
  if (stage == "train") return o.limit_train_batches;
  if (stage == "val") return o.limit_val_batches;
  if (stage == "test") return o.limit_test_batches;
  return o.limit_predict_batches;
}

}  // namespace fulgur
