// Writes the seeds of fuzz/corpus/checkpoint into the folder given (no .ckpt suffix: the
// repo's .gitignore drops those): a checkpoint of fuzz_checkpoint.cpp's TinyNet as the Trainer
// writes them (state_dict, epoch, global_step, fulgur_version), one whose weight has the wrong
// shape, and one whose state_dict is a list.
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "fulgur/connectors/checkpoint_connector.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "fuzz/tiny_net.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  fulgur::TorchCheckpointIO io;
  fulgur::fuzz::TinyNet net;

  auto checkpoint = fulgur::make_checkpoint_dict();
  checkpoint.insert("state_dict", fulgur::CheckpointConnector::module_state_dict(net));
  checkpoint.insert("epoch", int64_t{3});
  checkpoint.insert("global_step", int64_t{120});
  checkpoint.insert("fulgur_version", std::string("0.1.0"));
  io.save_checkpoint(checkpoint, dir + "/model");

  auto wrong_shape = fulgur::CheckpointConnector::module_state_dict(net);
  wrong_shape.insert_or_assign("fc.weight", torch::zeros({4, 3}));
  checkpoint.insert_or_assign("state_dict", wrong_shape);
  io.save_checkpoint(checkpoint, dir + "/wrong_shape");

  c10::impl::GenericList not_a_dict(c10::AnyType::get());
  not_a_dict.push_back(torch::ones({2}));
  checkpoint.insert_or_assign("state_dict", not_a_dict);
  io.save_checkpoint(checkpoint, dir + "/state_dict_not_a_dict");
  return 0;
}
