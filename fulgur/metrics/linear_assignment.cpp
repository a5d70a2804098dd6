#include "fulgur/metrics/linear_assignment.h"

#include <ATen/ATen.h>

#include <limits>

namespace fulgur::metrics {

std::vector<int64_t> max_weight_assignment(const at::Tensor& weights) {
  const int64_t n = weights.size(0);
  // Maximizing the weights is minimizing their negation. Rows and columns are counted from 1:
  // column 0 is where each new row starts its search for an augmenting path.
  const auto cost_tensor = (-weights).to(at::kCPU, at::kDouble).contiguous();
  const double* cost = cost_tensor.data_ptr<double>();
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<double> row_potential(n + 1, 0.0), column_potential(n + 1, 0.0);
  std::vector<int64_t> row_of_column(n + 1, 0), previous_column(n + 1, 0);
  for (int64_t row = 1; row <= n; ++row) {
    row_of_column[0] = row;
    int64_t column = 0;
    std::vector<double> slack(n + 1, kInfinity);
    std::vector<bool> visited(n + 1, false);
    // Grow a tree of tight edges from `row` until it reaches a free column, moving the
    // potentials by the smallest slack each time no tight edge is left.
    do {
      visited[column] = true;
      const int64_t from = row_of_column[column];
      double delta = kInfinity;
      int64_t next = 0;
      for (int64_t j = 1; j <= n; ++j) {
        if (visited[j]) continue;
        const double reduced =
            cost[(from - 1) * n + (j - 1)] - row_potential[from] - column_potential[j];
        if (reduced < slack[j]) {
          slack[j] = reduced;
          previous_column[j] = column;
        }
        if (slack[j] < delta) {
          delta = slack[j];
          next = j;
        }
      }
      for (int64_t j = 0; j <= n; ++j) {
        if (visited[j]) {
          row_potential[row_of_column[j]] += delta;
          column_potential[j] -= delta;
        } else {
          slack[j] -= delta;
        }
      }
      column = next;
    } while (row_of_column[column] != 0);
    // Flip the path: each column on it takes the row of the column before it.
    do {
      const int64_t before = previous_column[column];
      row_of_column[column] = row_of_column[before];
      column = before;
    } while (column != 0);
  }
  std::vector<int64_t> column_of_row(n);
  for (int64_t j = 1; j <= n; ++j) column_of_row[row_of_column[j] - 1] = j - 1;
  return column_of_row;
}

}  // namespace fulgur::metrics
