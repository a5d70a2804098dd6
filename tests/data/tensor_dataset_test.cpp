#include "fulgur/data/tensor_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;

// 10 samples of 3 features: sample i is [3i, 3i+1, 3i+2]; target i is 100 + i.
TensorDataset make_dataset() {
  return TensorDataset(torch::arange(30, torch::kFloat).view({10, 3}), torch::arange(100, 110));
}

TEST(TensorDatasetTest, ConsecutiveIndicesAreZeroCopyViews) {
  auto ds = make_dataset();
  auto batch = ds.get_batch({4, 5, 6});
  ASSERT_EQ(batch.data.sizes(), (std::vector<int64_t>{3, 3}));
  // A narrow view: same storage, starting at sample 4.
  EXPECT_EQ(batch.data.data_ptr<float>(), ds.data().data_ptr<float>() + 4 * 3);
  EXPECT_EQ(batch.target.data_ptr<int64_t>(), ds.targets().data_ptr<int64_t>() + 4);
  EXPECT_TRUE(batch.data.is_alias_of(ds.data()));
  EXPECT_TRUE(torch::equal(batch.data, torch::arange(12, 21, torch::kFloat).view({3, 3})));
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({104, 105, 106}, torch::kLong)));
}

TEST(TensorDatasetTest, ShuffledIndicesAreGatheredIntoNewStorage) {
  auto ds = make_dataset();
  auto batch = ds.get_batch({7, 2, 9});
  EXPECT_FALSE(batch.data.is_alias_of(ds.data()));
  EXPECT_FALSE(batch.target.is_alias_of(ds.targets()));
  EXPECT_TRUE(torch::equal(
      batch.data, torch::tensor({{21.f, 22.f, 23.f}, {6.f, 7.f, 8.f}, {27.f, 28.f, 29.f}})));
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({107, 102, 109}, torch::kLong)));
}

TEST(TensorDatasetTest, DescendingRunIsNotMistakenForConsecutive) {
  auto ds = make_dataset();
  auto batch = ds.get_batch({3, 2, 1});
  EXPECT_FALSE(batch.data.is_alias_of(ds.data()));
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({103, 102, 101}, torch::kLong)));
}

TEST(TensorDatasetTest, SingleIndexAndWholeDatasetAreViews) {
  auto ds = make_dataset();
  auto one = ds.get_batch({9});
  EXPECT_TRUE(one.data.is_alias_of(ds.data()));
  EXPECT_EQ(one.target.item<int64_t>(), 109);
  std::vector<int64_t> all(10);
  std::iota(all.begin(), all.end(), 0);
  auto whole = ds.get_batch(all);
  EXPECT_EQ(whole.data.data_ptr(), ds.data().data_ptr());
  EXPECT_EQ(whole.data.size(0), 10);
}

TEST(TensorDatasetTest, UndefinedTargetsStayUndefined) {
  TensorDataset ds(torch::arange(5, torch::kFloat), torch::Tensor());
  EXPECT_EQ(ds.size(), 5);
  auto view = ds.get_batch({1, 2});
  EXPECT_FALSE(view.target.defined());
  EXPECT_TRUE(torch::equal(view.data, torch::tensor({1.f, 2.f})));
  auto gathered = ds.get_batch({4, 0});
  EXPECT_FALSE(gathered.target.defined());
  EXPECT_TRUE(torch::equal(gathered.data, torch::tensor({4.f, 0.f})));
}

TEST(TensorDatasetTest, EmptyIndicesGiveAnEmptyBatch) {
  auto ds = make_dataset();
  auto batch = ds.get_batch({});
  EXPECT_EQ(batch_size_of(batch), 0);
  EXPECT_EQ(batch.data.sizes(), (std::vector<int64_t>{0, 3}));
}

TEST(TensorDatasetTest, RejectsUndefinedData) {
  try {
    TensorDataset ds(torch::Tensor(), torch::arange(3));
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("data tensor is undefined"));
  }
}

TEST(TensorDatasetTest, RejectsMismatchedFirstDimensionNamingBothSizes) {
  try {
    TensorDataset ds(torch::zeros({100, 2}), torch::zeros({99}));
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("data has 100 samples but targets has 99"));
  }
}

TEST(TensorDatasetTest, OutOfRangeIndexIsADataError) {
  auto ds = make_dataset();
  try {
    ds.get_batch({3, 10});
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sample index 10 is out of range [0, 10)"));
  }
  EXPECT_THROW(ds.get_batch({-1}), DataError);
}

}  // namespace
}  // namespace fulgur
