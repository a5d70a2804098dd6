#include "fulgur/metrics/text/text_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "fulgur/metrics/metric_error.h"

namespace fulgur::metrics {
namespace {

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

// Two rows of the dynamic programme: row[j] is the distance from a's first i tokens to b's
// first j.
template <typename Sequence>
int64_t levenshtein(const Sequence& a, const Sequence& b, int64_t substitution_cost) {
  std::vector<int64_t> previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int64_t replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : substitution_cost);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, replace});
    }
    std::swap(previous, row);
  }
  return previous[b.size()];
}

}  // namespace

std::u32string decode_utf8(const std::string& metric, const std::string& text) {
  const auto invalid = [&](size_t at) {
    return MetricError(fmt::format("{}: the text is not valid UTF-8 (byte {:#04x} at offset {})",
                                   metric, static_cast<unsigned char>(text[at]), at));
  };
  std::u32string points;
  points.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int extra = lead < 0x80           ? 0
                      : (lead >> 5) == 0x6  ? 1
                      : (lead >> 4) == 0xE  ? 2
                      : (lead >> 3) == 0x1E ? 3
                                            : -1;
    if (extra < 0) throw invalid(i);
    char32_t point = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= text.size()) throw invalid(i);
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next >> 6) != 0x2) throw invalid(i + k);
      point = (point << 6) | (next & 0x3F);
    }
    points.push_back(point);
    i += extra + 1;
  }
  return points;
}

std::vector<std::u32string> split_words(const std::u32string& text) {
  std::vector<std::u32string> words;
  auto begin = text.begin();
  while (true) {
    begin = std::find_if_not(begin, text.end(), is_space);
    if (begin == text.end()) return words;
    const auto end = std::find_if(begin, text.end(), is_space);
    words.emplace_back(begin, end);
    begin = end;
  }
}

int64_t edit_distance(const std::u32string& a, const std::u32string& b, int64_t substitution_cost) {
  return levenshtein(a, b, substitution_cost);
}

int64_t edit_distance(const std::vector<std::u32string>& a, const std::vector<std::u32string>& b,
                      int64_t substitution_cost) {
  return levenshtein(a, b, substitution_cost);
}

}  // namespace fulgur::metrics
