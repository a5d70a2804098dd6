#include "fulgur/io/checkpoint_io.h"

namespace fulgur {

CheckpointDict make_checkpoint_dict() {
  return c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
}

}  // namespace fulgur
