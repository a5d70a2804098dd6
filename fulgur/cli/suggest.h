#pragma once
// "Did you mean" for mistyped keys and subcommands: the candidate nearest to a word by edit
// distance, when it is near enough to be a plausible typo.
#include <cstddef>
#include <string>
#include <vector>

namespace fulgur {

// Edit distance: insert, delete, substitute or swap two neighbours, each costing 1.
size_t edit_distance(const std::string& a, const std::string& b);

// The nearest candidate, or "" when none is within a typo's reach (about a third of the word's
// length, at least 2 edits). For dotted keys a candidate whose last component equals the word's
// last component also counts ("max_epochs" → "trainer.max_epochs").
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace fulgur
