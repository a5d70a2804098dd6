#include "fulgur/fabric/fabric_data_loader.h"

namespace fulgur {

FabricDataLoader::FabricDataLoader(std::shared_ptr<DataLoader> loader, Transfer transfer)
    : loader_(std::move(loader)), transfer_(std::move(transfer)) {}

Batch& FabricDataLoader::Iterator::operator*() {
  if (!current_) current_ = transfer_ != nullptr ? (*transfer_)(*inner_) : *inner_;
  return *current_;
}

FabricDataLoader::Iterator& FabricDataLoader::Iterator::operator++() {
  current_.reset();
  ++inner_;
  return *this;
}

}  // namespace fulgur
