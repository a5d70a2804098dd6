#pragma once
// Reads checkpoints that Python's torch.save wrote, Lightning's among them. LibTorch 1.13's
// unpickler reads only the pickles LibTorch itself writes: Python's single-item SETITEM and
// APPEND, its OrderedDict state dicts and its short LONG1 integers stop it. This reader takes
// the data a checkpoint holds (dicts, lists, tuples, numbers, strings, tensors) and nothing
// else: it never imports or runs anything a pickle names.
#include <cstddef>
#include <cstdint>

namespace c10 {
struct IValue;
}
namespace caffe2::serialize {
class PyTorchStreamReader;
}

namespace fulgur {

// The value of the archive's pickle `data` (`size` bytes, its "data.pkl"), with its tensors read
// from the archive's "data/<key>" records onto the CPU. Dicts and OrderedDicts become generic
// dicts, tuples tuples, sets lists; an instance of any other class becomes the dict of its items
// and attributes (Lightning's AttributeDict, argparse's Namespace). Throws std::runtime_error
// naming what it cannot read.
c10::IValue unpickle_python(const uint8_t* data, size_t size,
                            caffe2::serialize::PyTorchStreamReader& archive);

}  // namespace fulgur
