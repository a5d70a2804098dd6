#pragma once
// fulgur::DataModule — Lightning's LightningDataModule: everything about the data in one place.
// A loader hook returning nullptr means "this stage has no data".
#include <memory>
#include <string>

#include <ATen/core/ivalue.h>

#include "fulgur/data/data_loader.h"
#include "fulgur/hparams.h"

namespace fulgur {

class DataModule {
 public:
  virtual ~DataModule() = default;
  // Download or unpack; called once per node before setup.
  virtual void prepare_data() {}
  // Build datasets for `stage` ("fit", "validate", "test", "predict").
  virtual void setup(const std::string& stage) { (void)stage; }
  virtual void teardown(const std::string& stage) { (void)stage; }
  virtual std::shared_ptr<DataLoader> train_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> val_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> test_dataloader() { return nullptr; }
  virtual std::shared_ptr<DataLoader> predict_dataloader() { return nullptr; }
  // Name under which this module's state is stored in checkpoints.
  virtual std::string name() const { return "DataModule"; }
  // State stored in checkpoints under name(); None (the default) stores nothing.
  virtual c10::IValue state_dict() { return c10::IValue(); }
  virtual void load_state_dict(const c10::IValue& state) { (void)state; }

  // Hyperparameters, as LightningDataModule's save_hyperparameters: the tuner's batch-size
  // finder reads and writes `batch_size` here when the Module's hparams lack it.
  void save_hyperparameters(HParams hparams) { hparams_ = std::move(hparams); }
  const HParams& hparams() const { return hparams_; }

 private:
  HParams hparams_;
};

}  // namespace fulgur
