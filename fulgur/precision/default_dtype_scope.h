#pragma once
// The default dtype (of tensors created without one) set for one forward pass and restored
// after it: the "-true" precisions make what a step creates match the model's dtype.
#include <c10/util/typeid.h>

#include "fulgur/precision/precision.h"

namespace fulgur {

class DefaultDtypeScope : public ForwardScope {
 public:
  explicit DefaultDtypeScope(caffe2::TypeMeta dtype);
  ~DefaultDtypeScope() override;
  DefaultDtypeScope(const DefaultDtypeScope&) = delete;
  DefaultDtypeScope& operator=(const DefaultDtypeScope&) = delete;

 private:
  caffe2::TypeMeta previous_;
};

}  // namespace fulgur
