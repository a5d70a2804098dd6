#pragma once
// The variables launchers and schedulers set (torchrun, SLURM, Open MPI, fulgur's own launcher).
// Unset and empty mean the same; a value that is not what it must be is a ConfigError naming the
// variable and its value.
#include <optional>
#include <string>

namespace fulgur::env {

std::optional<std::string> get(const char* name);
// The variable as an integer >= `minimum`, or `fallback` when unset.
int get_int(const char* name, int fallback, int minimum);
// The same, for a variable that `environment` (e.g. "SLURM") always sets.
int require_int(const char* name, int minimum, const char* environment);

}  // namespace fulgur::env
