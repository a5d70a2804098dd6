#include "fulgur/data/torch_dataset_adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fulgur/data/data_loader.h"

namespace fulgur {
namespace {

// Sample i is [i, i*i] with target i % 3.
class Squares : public torch::data::datasets::Dataset<Squares> {
 public:
  explicit Squares(size_t n) : n_(n) {}
  torch::data::Example<> get(size_t index) override {
    const auto i = static_cast<int64_t>(index);
    return {torch::tensor({i, i * i}), torch::tensor(i % 3)};
  }
  c10::optional<size_t> size() const override { return n_; }

 private:
  size_t n_;
};

// Examples without targets, as LibTorch's TensorDataset has.
class Unlabelled : public torch::data::datasets::Dataset<Unlabelled, torch::data::TensorExample> {
 public:
  torch::data::TensorExample get(size_t index) override {
    return torch::data::TensorExample(torch::full({2}, static_cast<float>(index)));
  }
  c10::optional<size_t> size() const override { return 4; }
};

// A stream-like dataset that cannot say how many samples it has.
class Unsized : public torch::data::datasets::Dataset<Unsized> {
 public:
  torch::data::Example<> get(size_t) override { return {}; }
  c10::optional<size_t> size() const override { return c10::nullopt; }
};

TEST(TorchDatasetAdapterTest, StacksSamplesIntoABatch) {
  auto dataset = from_torch_dataset(Squares(10));
  EXPECT_EQ(dataset->size(), 10);
  auto batch = dataset->get_batch({2, 5, 9});
  EXPECT_TRUE(torch::equal(batch.data, torch::tensor({{2, 4}, {5, 25}, {9, 81}}, torch::kLong)));
  EXPECT_TRUE(torch::equal(batch.target, torch::tensor({2, 2, 0}, torch::kLong)));
  EXPECT_THROW(dataset->get_batch({10}), DataError);
}

TEST(TorchDatasetAdapterTest, FeedsADataLoaderWithWorkers) {
  DataLoader loader(from_torch_dataset(Squares(10)),
                    {.batch_size = 4, .shuffle = true, .seed = 3, .num_workers = 2});
  std::vector<int64_t> seen;
  int64_t k = 0;
  for (auto& batch : loader) {
    auto expected = loader.batch_indices(k++);
    auto first = batch.data.select(1, 0).contiguous();
    std::vector<int64_t> got(first.data_ptr<int64_t>(), first.data_ptr<int64_t>() + first.numel());
    EXPECT_EQ(got, expected);
    EXPECT_TRUE(torch::equal(batch.data.select(1, 1), first * first));
    EXPECT_TRUE(torch::equal(batch.target, first.remainder(3)));
    seen.insert(seen.end(), got.begin(), got.end());
  }
  EXPECT_EQ(k, 3);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(TorchDatasetAdapterTest, ExamplesWithoutTargetsGiveAnUndefinedTarget) {
  auto dataset = from_torch_dataset(Unlabelled());
  auto batch = dataset->get_batch({3, 1});
  EXPECT_FALSE(batch.target.defined());
  EXPECT_TRUE(torch::equal(batch.data, torch::tensor({{3.f, 3.f}, {1.f, 1.f}})));
}

TEST(TorchDatasetAdapterTest, RejectsADatasetWithoutSize) {
  try {
    from_torch_dataset(Unsized());
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no known size"));
  }
}

}  // namespace
}  // namespace fulgur
