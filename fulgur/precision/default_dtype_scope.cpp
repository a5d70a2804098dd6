#include "fulgur/precision/default_dtype_scope.h"

#include <c10/core/DefaultDtype.h>

namespace fulgur {

DefaultDtypeScope::DefaultDtypeScope(caffe2::TypeMeta dtype) : previous_(c10::get_default_dtype()) {
  c10::set_default_dtype(dtype);
}

DefaultDtypeScope::~DefaultDtypeScope() { c10::set_default_dtype(previous_); }

}  // namespace fulgur
