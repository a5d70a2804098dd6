// Edit distance and the "did you mean" choice.
#include "fulgur/cli/suggest.h"

#include <gtest/gtest.h>

namespace fulgur {
namespace {

TEST(Suggest, EditDistanceCountsInsertDeleteSubstitute) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("max_epoch", "max_epochs"), 1u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("mni", "min"), 1u);  // a swap is one typo
  EXPECT_EQ(edit_distance("abc", "ca"), 3u);
}

TEST(Suggest, PicksTheNearestPlausibleCandidate) {
  const std::vector<std::string> keys = {"trainer.max_epochs", "trainer.min_epochs",
                                         "trainer.max_steps", "model.lr"};
  EXPECT_EQ(closest_match("trainer.max_epoch", keys), "trainer.max_epochs");
  EXPECT_EQ(closest_match("trainer.max_step", keys), "trainer.max_steps");
  EXPECT_EQ(closest_match("trainer.mni_epochs", keys), "trainer.min_epochs");
  EXPECT_EQ(closest_match("completely.unrelated", keys), "");
}

TEST(Suggest, MatchesAKeyGivenWithoutOrWithTheWrongSection) {
  const std::vector<std::string> keys = {"trainer.max_epochs", "model.lr", "data.batch_size"};
  EXPECT_EQ(closest_match("max_epochs", keys), "trainer.max_epochs");
  EXPECT_EQ(closest_match("trainer.lr", keys), "model.lr");
  EXPECT_EQ(closest_match("model.batch_size", keys), "data.batch_size");
}

}  // namespace
}  // namespace fulgur
