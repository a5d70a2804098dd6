#pragma once
// FashionMNISTDataModule — the data of the example. The 60 000 training images are split once,
// by a permutation drawn from a fixed seed, into train (55 000) and val (`val_size`, 5 000), so
// every run (any seed_everything, any subcommand) validates on the same images; the 10 000 test
// images serve `test` and `predict`. Pixels are standardised with the training set's mean and
// standard deviation. The training order is shuffled per epoch from `seed`.
#include <cstdint>
#include <memory>
#include <string>

#include "fulgur/data/data_module.h"
#include "fulgur/data/fashion_mnist.h"
#include "fulgur/data/tensor_dataset.h"

namespace fashion_mnist {

struct FashionMNISTDataConfig {
  std::string data_dir = fulgur::FashionMNIST::kDefaultDataDir;
  int64_t batch_size = 64;
  int num_workers = 1;
  int64_t val_size = 5000;
  // Shuffling seed of the training loader (the CLI sets it from seed_everything).
  uint64_t seed = 42;
};

class FashionMNISTDataModule : public fulgur::DataModule {
 public:
  // The split's seed: fixed, so that validation never sees training images of another run.
  static constexpr uint64_t kSplitSeed = 1234;

  explicit FashionMNISTDataModule(FashionMNISTDataConfig config = {});

  void setup(const std::string& stage) override;
  std::shared_ptr<fulgur::DataLoader> train_dataloader() override;
  std::shared_ptr<fulgur::DataLoader> val_dataloader() override;
  std::shared_ptr<fulgur::DataLoader> test_dataloader() override;
  std::shared_ptr<fulgur::DataLoader> predict_dataloader() override;
  std::string name() const override { return "FashionMNISTDataModule"; }

  const FashionMNISTDataConfig& config() const { return config_; }

 private:
  std::shared_ptr<fulgur::DataLoader> loader(std::shared_ptr<const fulgur::Dataset> dataset,
                                             bool shuffle) const;

  FashionMNISTDataConfig config_;
  std::shared_ptr<fulgur::TensorDataset> train_;
  std::shared_ptr<fulgur::TensorDataset> val_;
  std::shared_ptr<fulgur::TensorDataset> test_;
};

}  // namespace fashion_mnist
