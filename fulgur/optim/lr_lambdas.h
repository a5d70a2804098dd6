#pragma once
// The functions LambdaLR and MultiplicativeLR call with the period, one per param group, and
// their place in a saved state. PyTorch saves `lr_lambdas` as one entry per function: None for a
// plain function, the attributes of a callable object otherwise; C++ functions have no
// attributes to save, so fulgur writes and accepts None only.
#include <ATen/core/Dict.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fulgur {

class SchedulerStateReader;

// The factor for period `epoch`.
using LrLambda = std::function<double(int64_t epoch)>;

// One function per param group: `lambdas` itself when it has one per group, or its single
// function for every group. Raises ConfigError (naming `scheduler`) for another count or an
// empty function.
std::vector<LrLambda> lr_lambdas_per_group(const std::string& scheduler,
                                           std::vector<LrLambda> lambdas, size_t groups);

void save_lr_lambdas(c10::impl::GenericDict& state, size_t count);
// Fails through `reader` unless "lr_lambdas" holds `count` Nones.
void check_lr_lambdas(const SchedulerStateReader& reader, size_t count);

}  // namespace fulgur
