#pragma once
// Warnings (Lightning's rank_zero_warn): something works but probably not as the user meant.
// Printed to stderr as "fulgur: warning: <message>", by rank 0 only (the rank a launcher set
// in RANK, LOCAL_RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK; none set: this is rank 0).
#include <string>

namespace fulgur {

void warn(const std::string& message);

}  // namespace fulgur
