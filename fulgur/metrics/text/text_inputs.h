#pragma once
// What the text metrics share: UTF-8 text as code points (so "é" is one character, as in
// Python), words split on whitespace as Python's str.split(), and the Levenshtein distance.
#include <cstdint>
#include <string>
#include <vector>

namespace fulgur::metrics {

// The code points of UTF-8 text; MetricError naming `metric` for bytes that are not UTF-8.
std::u32string decode_utf8(const std::string& metric, const std::string& text);

// The words of `text`, split on runs of whitespace (Python's str.isspace() characters), with
// none at either end.
std::vector<std::u32string> split_words(const std::u32string& text);

// The fewest insertions and deletions (cost 1) and substitutions (cost `substitution_cost`)
// that turn `a` into `b`, over characters or over words.
int64_t edit_distance(const std::u32string& a, const std::u32string& b,
                      int64_t substitution_cost = 1);
int64_t edit_distance(const std::vector<std::u32string>& a, const std::vector<std::u32string>& b,
                      int64_t substitution_cost = 1);

}  // namespace fulgur::metrics
