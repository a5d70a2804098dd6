#pragma once
// AcceleratorConnector: the only place where the user's hardware flags are interpreted
// (Lightning's `_AcceleratorConnector`). From `accelerator`, `devices`, `strategy`,
// `precision`, `plugins` and `num_nodes` it builds one Strategy that owns everything else.
// Any bad value or conflicting combination raises ConfigError naming the flag, the value and
// what is allowed.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fulgur/accelerators/devices.h"
#include "fulgur/connectors/flags.h"

namespace fulgur {

struct ConnectorOptions {
  AcceleratorFlag accelerator = "auto";
  StrategyFlag strategy = "auto";
  Devices devices = "auto";
  int num_nodes = 1;
  // `{}` keeps designated initializers that leave these out -Wextra clean.
  PrecisionFlag precision{};
  std::vector<Plugin> plugins{};
  // Batch statistics over every rank in fulgur::nn::SyncBatchNorm layers (parallel strategies).
  bool sync_batchnorm = false;
};

class AcceleratorConnector {
 public:
  explicit AcceleratorConnector(ConnectorOptions options);

  const std::shared_ptr<Strategy>& strategy() const { return strategy_; }
  // Resolved names, for messages and tests.
  const std::string& accelerator_name() const { return accelerator_name_; }
  const std::string& strategy_name() const { return strategy_name_; }
  const std::string& precision_name() const { return precision_name_; }
  const std::vector<int>& device_ids() const { return device_ids_; }
  int num_nodes() const { return num_nodes_; }

 private:
  std::shared_ptr<Strategy> strategy_;
  std::string accelerator_name_;
  std::string strategy_name_;
  std::string precision_name_;
  std::vector<int> device_ids_;
  int num_nodes_ = 1;
};

}  // namespace fulgur
