#include "fashion_mnist_data_module.h"

#include <fmt/format.h>

#include <numeric>
#include <random>

#include "fulgur/data/data_loader.h"
#include "fulgur/errors.h"

namespace fashion_mnist {
namespace {

// Fashion-MNIST's training-set pixel statistics (on [0, 1] pixels).
constexpr double kMean = 0.2860;
constexpr double kStd = 0.3530;

torch::Tensor standardise(const torch::Tensor& images) { return (images - kMean) / kStd; }

// Fisher-Yates over a std::mt19937_64, whose output the C++ standard fixes, so the split is the
// same with any standard library or LibTorch version.
std::vector<int64_t> fixed_permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 rng(seed);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

std::shared_ptr<fulgur::TensorDataset> subset(const fulgur::TensorDataset& full,
                                              const torch::Tensor& indices) {
  return std::make_shared<fulgur::TensorDataset>(standardise(full.data().index_select(0, indices)),
                                                 full.targets().index_select(0, indices));
}

}  // namespace

FashionMNISTDataModule::FashionMNISTDataModule(FashionMNISTDataConfig config)
    : config_(std::move(config)) {
  if (config_.batch_size < 1) {
    throw fulgur::ConfigError(
        fmt::format("data.batch_size must be at least 1, got {}", config_.batch_size));
  }
  if (config_.num_workers < 0) {
    throw fulgur::ConfigError(
        fmt::format("data.num_workers must not be negative, got {}", config_.num_workers));
  }
  // The loaders read the size from here, where the BatchSizeFinder writes what it found.
  save_hyperparameters({{"batch_size", config_.batch_size}});
}

void FashionMNISTDataModule::setup(const std::string& stage) {
  if ((stage == "fit" || stage == "validate") && !train_) {
    const fulgur::FashionMNIST full(config_.data_dir, fulgur::FashionMNIST::Split::Train);
    const int64_t n = full.size();
    if (config_.val_size < 1 || config_.val_size >= n) {
      throw fulgur::ConfigError(
          fmt::format("data.val_size must lie in [1, {}) for the {} training images, got {}", n, n,
                      config_.val_size));
    }
    const auto order = torch::tensor(fixed_permutation(n, kSplitSeed), torch::kLong);
    train_ = subset(full, order.slice(0, 0, n - config_.val_size));
    val_ = subset(full, order.slice(0, n - config_.val_size, n));
  }
  if ((stage == "test" || stage == "predict") && !test_) {
    const fulgur::FashionMNIST full(config_.data_dir, fulgur::FashionMNIST::Split::Test);
    test_ = std::make_shared<fulgur::TensorDataset>(standardise(full.data()), full.targets());
  }
}

std::shared_ptr<fulgur::DataLoader> FashionMNISTDataModule::loader(
    std::shared_ptr<const fulgur::Dataset> dataset, bool shuffle) const {
  if (!dataset) return nullptr;
  const auto batch_size = std::get<int64_t>(hparams().at("batch_size"));
  return std::make_shared<fulgur::DataLoader>(
      std::move(dataset), fulgur::DataLoaderOptions{.batch_size = batch_size,
                                                    .shuffle = shuffle,
                                                    .seed = config_.seed,
                                                    .num_workers = config_.num_workers});
}

std::shared_ptr<fulgur::DataLoader> FashionMNISTDataModule::train_dataloader() {
  return loader(train_, true);
}

std::shared_ptr<fulgur::DataLoader> FashionMNISTDataModule::val_dataloader() {
  return loader(val_, false);
}

std::shared_ptr<fulgur::DataLoader> FashionMNISTDataModule::test_dataloader() {
  return loader(test_, false);
}

std::shared_ptr<fulgur::DataLoader> FashionMNISTDataModule::predict_dataloader() {
  return loader(test_, false);
}

}  // namespace fashion_mnist
