// TorchCheckpointIO reading what Python's torch.save wrote (/usr/bin/python3, Debian's
// python3-torch): the shapes of data a Lightning checkpoint holds, each of which LibTorch's own
// unpickler rejects or misreads, and the classes that are code rather than data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "fulgur/errors.h"
#include "fulgur/io/python_unpickler.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "python.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

using ::testing::HasSubstr;

class PythonCheckpointTest : public testing::TempDirTest {
 protected:
  // Runs `body` in Python after `import torch, collections, argparse`, then torch.save(d, file).
  std::string save_in_python(const std::string& name, const std::string& body) {
    const std::string file = path(name);
    const std::string script = path(name + ".py");
    FILE* out = std::fopen(script.c_str(), "w");
    std::fprintf(out, "import torch, collections, argparse\n%s\ntorch.save(d, %s)\n", body.c_str(),
                 ("'" + file + "'").c_str());
    std::fclose(out);
    const std::string command = testing::python() + " " + script + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string output;
    char buffer[512];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
    EXPECT_EQ(::pclose(pipe), 0) << output;
    return file;
  }
  static c10::IValue at(const c10::IValue& dict, const std::string& key) {
    return dict.toGenericDict().at(key);
  }
  std::string load_error(const std::string& file) {
    try {
      TorchCheckpointIO().load_checkpoint(file);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "<no error>";
  }
};

TEST_F(PythonCheckpointTest, SingleItemDictsListsAndWideIntegers) {
  const auto file = save_in_python("small.pt", R"(
d = {'one': {'k': 1}, 'list1': [7], 'big': 2**40, 'neg': -2**40, 'minus1': -1, 'flag': True,
     'pi': 3.25, 'none': None, 'text': 'h\u00e9llo', 'pair': (0.9, 0.999), 'set': {5}})");
  const auto c = TorchCheckpointIO().load_checkpoint(file);
  EXPECT_EQ(c.at("one").toGenericDict().at("k").toInt(), 1);
  ASSERT_TRUE(c.at("list1").isList());
  EXPECT_EQ(c.at("list1").toList().get(0).toInt(), 7);
  EXPECT_EQ(c.at("big").toInt(), int64_t{1} << 40);
  EXPECT_EQ(c.at("neg").toInt(), -(int64_t{1} << 40));
  EXPECT_EQ(c.at("minus1").toInt(), -1);
  EXPECT_TRUE(c.at("flag").toBool());
  EXPECT_EQ(c.at("pi").toDouble(), 3.25);
  EXPECT_TRUE(c.at("none").isNone());
  EXPECT_EQ(c.at("text").toStringRef(), "h\xc3\xa9llo");
  ASSERT_TRUE(c.at("pair").isTuple());
  EXPECT_EQ(c.at("pair").toTupleRef().elements()[1].toDouble(), 0.999);
  EXPECT_EQ(c.at("set").toList().get(0).toInt(), 5);
}

TEST_F(PythonCheckpointTest, StateDictsOptimizerStatesAndSharedStorages) {
  const auto file = save_in_python("model.pt", R"(
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
o = torch.optim.Adam(m.parameters(), lr=0.01)
m(torch.ones(5, 3)).sum().backward()
o.step()
base = torch.arange(12.).reshape(3, 4)
d = {'state_dict': m.state_dict(), 'optimizer_states': [o.state_dict()],
     'view': base[1:, 1:3], 'same': base, 'half': torch.tensor([1.5, -2], dtype=torch.float16),
     'long': torch.tensor([2**40]), 'scalar': torch.tensor(4.0),
     'expected': torch.cat([p.detach().flatten() for p in m.parameters()])})");
  const auto c = TorchCheckpointIO().load_checkpoint(file);
  const auto sd = c.at("state_dict").toGenericDict();
  ASSERT_EQ(sd.size(), 4u);
  // In the Module's order, without the OrderedDict's `_metadata` attribute.
  std::vector<std::string> keys;
  std::vector<torch::Tensor> flat;
  for (const auto& e : sd) {
    keys.push_back(e.key().toStringRef());
    flat.push_back(e.value().toTensor().flatten());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  EXPECT_TRUE(torch::equal(torch::cat(flat), c.at("expected").toTensor()));
  EXPECT_EQ(sd.at("0.weight").toTensor().sizes(), (std::vector<int64_t>{4, 3}));

  const auto opt = c.at("optimizer_states").toList().get(0).toGenericDict();
  const auto state = opt.at("state").toGenericDict();
  EXPECT_EQ(state.size(), 4u);
  EXPECT_EQ(state.at(c10::IValue(int64_t{0})).toGenericDict().at("step").toTensor().item<float>(),
            1.0f);
  const auto group = c10::IValue(opt.at("param_groups").toList().get(0)).toGenericDict();
  EXPECT_EQ(group.at("lr").toDouble(), 0.01);
  EXPECT_EQ(group.at("betas").toTupleRef().elements()[0].toDouble(), 0.9);

  const auto view = c.at("view").toTensor();
  EXPECT_TRUE(torch::equal(view, torch::tensor({{5.f, 6.f}, {9.f, 10.f}})));
  EXPECT_EQ(view.storage().data(), c.at("same").toTensor().storage().data())
      << "a view and its base share one storage, as in Python";
  EXPECT_EQ(c.at("half").toTensor().dtype(), torch::kHalf);
  EXPECT_EQ(c.at("half").toTensor()[1].item<float>(), -2.0f);
  EXPECT_EQ(c.at("long").toTensor().item<int64_t>(), int64_t{1} << 40);
  EXPECT_EQ(c.at("scalar").toTensor().dim(), 0);
}

TEST_F(PythonCheckpointTest, InstancesOfOtherDictClassesAreTheirItemsAndAttributes) {
  const auto file = save_in_python("hparams.pt", R"(
class AttributeDict(dict):
    pass
d = {'hyper_parameters': AttributeDict(lr=0.5, name='mlp'),
     'namespace': argparse.Namespace(hidden=32),
     'ordered': collections.OrderedDict([('a', 1)])})");
  const auto c = TorchCheckpointIO().load_checkpoint(file);
  EXPECT_EQ(at(c.at("hyper_parameters"), "lr").toDouble(), 0.5);
  EXPECT_EQ(at(c.at("hyper_parameters"), "name").toStringRef(), "mlp");
  EXPECT_EQ(at(c.at("namespace"), "hidden").toInt(), 32);
  EXPECT_EQ(at(c.at("ordered"), "a").toInt(), 1);
}

TEST_F(PythonCheckpointTest, CodeIsRefusedByName) {
  const auto file = save_in_python("code.pt", R"(
import fractions
d = {'x': fractions.Fraction(1, 3)})");
  EXPECT_THAT(load_error(file),
              HasSubstr("cannot read checkpoint " + file +
                        ": its pickle calls fractions.Fraction; only data (dicts, lists, "
                        "numbers, strings, tensors) is read from a Python checkpoint"));
}

// Damaged pickles reach the reader only past the zip's checksums, so damage them here: every
// change of a real checkpoint's pickle must read or fail with an exception, never crash.
TEST_F(PythonCheckpointTest, DamagedPicklesFailCleanly) {
  const auto file = save_in_python("damaged.pt", R"(
m = torch.nn.Linear(3, 2)
d = {'state_dict': m.state_dict(), 'list': [1], 'one': {'k': (1, 2.5, None)}, 'big': 2**40})");
  caffe2::serialize::PyTorchStreamReader archive(file);
  const auto [data, size] = archive.getRecord("data.pkl");
  const auto* bytes = static_cast<const uint8_t*>(data.get());
  ASSERT_TRUE(unpickle_python(bytes, size, archive).isGenericDict());
  std::mt19937 rng(11);
  int read = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<uint8_t> damaged(bytes, bytes + size);
    if (trial % 4 == 0) {
      damaged.resize(rng() % size);
    } else {
      for (int flips = 1 + trial % 3; flips > 0; --flips) {
        damaged[rng() % size] = static_cast<uint8_t>(rng());
      }
    }
    try {
      unpickle_python(damaged.data(), damaged.size(), archive);
      ++read;
    } catch (const std::exception&) {
      ++refused;
    }
  }
  EXPECT_EQ(read + refused, 4000);
  EXPECT_GT(refused, 1000);
}

// A pickle can make a list that holds itself (through its memo); a checkpoint never does.
TEST_F(PythonCheckpointTest, ACycleIsRefused) {
  const auto file = save_in_python("cycle.pt", R"(
inner = []
inner.append(inner)
d = {'x': inner})");
  EXPECT_THAT(load_error(file), HasSubstr("its pickle holds a container that contains itself"));
  // Also one the pickle builds and drops: c10's containers are reference counted, a cycle would
  // never be freed. (A list holding itself, popped, then an empty dict.)
  const std::string dropped = path("dropped.pt");
  {
    // Bytes of pickle protocol 2: ] q0 h0 a 0 } .
    const std::string make = testing::python() +
                             " -c \"import torch, io, zipfile; torch.save({}, '" + dropped +
                             "'); z = zipfile.ZipFile('" + dropped +
                             "'); names = z.namelist(); recs = {n: z.read(n) for n in names}; "
                             "z.close(); pkl = [n for n in names if n.endswith('data.pkl')][0]; "
                             "recs[pkl] = b'\\x80\\x02]q\\x00h\\x00a0}.'; "
                             "z = zipfile.ZipFile('" + dropped + "', 'w'); "
                             "[z.writestr(n, recs[n]) for n in names]; z.close()\"";
    ASSERT_EQ(std::system(make.c_str()), 0);
  }
  EXPECT_THAT(load_error(dropped), HasSubstr("its pickle holds a container that contains itself"));
}

}  // namespace
}  // namespace fulgur
