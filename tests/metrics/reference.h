#pragma once
// Helpers for the metric tests' scikit-learn references: tensors written as Python literals
// (shortest round-trip text, so Python reads the same doubles), and a script prologue that
// imports numpy and sklearn. run_python and number_rows come from tests/optim.
#include <ATen/ATen.h>
#include <fmt/format.h>

#include <string>

#include "optim/python_reference.h"

namespace fulgur::testing {

// A tensor as a nested Python list (floats for floating tensors, ints otherwise).
inline std::string py(const at::Tensor& tensor) {
  const auto t = tensor.detach().to(at::kCPU).contiguous();
  if (t.dim() == 0) {
    return t.is_floating_point() ? python_float(t.item<double>())
                                 : std::to_string(t.item<int64_t>());
  }
  std::string text = "[";
  for (int64_t i = 0; i < t.size(0); ++i) text += (i ? ", " : "") + py(t[i]);
  return text + "]";
}

inline std::string sklearn_prologue() {
  return "import numpy as np\n"
         "import warnings\n"
         "warnings.simplefilter('ignore')\n"
         "from sklearn import metrics as M\n"
         "def out(*values):\n"
         "    print(' '.join(repr(float(v)) for v in np.ravel(np.asarray(values, dtype=float))))\n";
}

// The metric's value(s) as doubles, row-major.
inline std::vector<double> values(const at::Tensor& tensor) {
  const auto t = tensor.detach().to(at::kCPU, at::kDouble).contiguous().reshape({-1});
  return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

}  // namespace fulgur::testing

namespace fulgur::testing {

// One value to check: what the metric computed, and the Python expression of the reference.
struct Check {
  std::string what;
  at::Tensor value;
  std::string python;
};

// Runs `setup` then prints each check's expression, in one Python process; each metric value
// must equal its reference element by element within `tolerance`.
inline void expect_reference(const std::string& setup, const std::vector<Check>& checks,
                             double tolerance = 1e-6) {
  std::string script = sklearn_prologue() + setup;
  for (const auto& c : checks) script += "out(" + c.python + ")\n";
  const auto rows = number_rows(run_python(script));
  ASSERT_EQ(rows.size(), checks.size()) << script;
  for (size_t i = 0; i < checks.size(); ++i) {
    const auto mine = values(checks[i].value);
    ASSERT_EQ(mine.size(), rows[i].size()) << checks[i].what;
    for (size_t j = 0; j < mine.size(); ++j) {
      EXPECT_NEAR(mine[j], rows[i][j], tolerance)
          << checks[i].what << " [" << j << "]  reference: " << checks[i].python;
    }
  }
}

}  // namespace fulgur::testing
