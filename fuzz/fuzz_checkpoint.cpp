// fuzz-checkpoint: TorchCheckpointIO::load_checkpoint on arbitrary files, then what a restore
// does next with the dict: check and load a model's state_dict from it. A file that is not a
// valid checkpoint must be a CheckpointError, never a crash, an abort or another exception.
#include <torch/torch.h>

#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/errors.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fuzz/fuzz_input_file.h"
#include "fuzz/tiny_net.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fulgur::fuzz::write_fuzz_input(data, size, ".ckpt");
  try {
    fulgur::TorchCheckpointIO io;
    const auto checkpoint = io.load_checkpoint(path);
    if (checkpoint.contains("state_dict")) {
      const auto state = checkpoint.at("state_dict");
      // As CheckpointConnector::restore_model: a state_dict that is not a dict is rejected first.
      if (!state.isGenericDict()) throw fulgur::CheckpointError("state_dict is not a dict");
      fulgur::fuzz::TinyNet net;
      fulgur::CheckpointConnector::load_module_state_dict(net, state.toGenericDict(),
                                                          /*strict=*/true, path);
    }
  } catch (const fulgur::CheckpointError&) {
  } catch (const std::exception& e) {
    fulgur::fuzz::report_escape("load_checkpoint", e);
  }
  return 0;
}
