// Optimizer state in torch.optim's state_dict layout: a state saved through a checkpoint file and
// loaded into a fresh optimizer continues training bitwise like the original; states that do not
// fit raise CheckpointError and change nothing; and Python's torch.optim, given fulgur's
// checkpoint, continues training exactly as fulgur did.
#include "fulgur/optim/optimizer_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>

#include "fulgur/compat/optim.h"
#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"
#include "fulgur/io/torch_checkpoint_io.h"
#include "project_paths.h"
#include "python.h"
#include "temp_dir.h"

namespace fulgur {
namespace {

namespace fs = std::filesystem;
namespace optim = torch::optim;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kSource[] = "epoch=1-step=6.ckpt";
constexpr int kSteps = 3;

// Linear(4, 8) - ReLU - Linear(8, 2); python_optimizer_continue.py's Net has the same names.
struct Net : torch::nn::Module {
  Net()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 2))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return fc2->forward(torch::relu(fc1->forward(x)));
  }
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

struct Data {
  torch::Tensor x = torch::randn({16, 4});
  torch::Tensor y = torch::randn({16, 2});
};

// `steps` optimizer steps on the same batch with MSE loss; returns the losses.
std::vector<double> train(Net& net, optim::Optimizer& optimizer, const Data& data, int steps) {
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(net.forward(data.x), data.y);
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

std::shared_ptr<Net> copy_of(Net& net) {
  auto copy = std::make_shared<Net>();
  torch::NoGradGuard no_grad;
  auto from = net.parameters();
  auto to = copy->parameters();
  for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  return copy;
}

using Groups = std::vector<std::vector<torch::Tensor>>;
Groups two_groups(Net& net) { return {net.fc1->parameters(), net.fc2->parameters()}; }
Groups one_group(Net& net) { return {net.parameters()}; }

std::vector<double> lrs(const optim::Optimizer& optimizer) {
  std::vector<double> out;
  for (const auto& group : optimizer.param_groups()) out.push_back(group.options().get_lr());
  return out;
}

// The first difference between two IValues (tensors bitwise), or "" when they are equal.
std::string difference(const c10::IValue& a, const c10::IValue& b, const std::string& at = "") {
  auto describe = [](const c10::IValue& v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  if (a.tagKind() != b.tagKind()) return at + ": " + a.tagKind() + " vs " + b.tagKind();
  if (a.isTensor()) {
    const auto& ta = a.toTensor();
    const auto& tb = b.toTensor();
    if (ta.sizes() != tb.sizes() || ta.scalar_type() != tb.scalar_type() || !torch::equal(ta, tb)) {
      return at + ": tensors differ";
    }
    return "";
  }
  if (a.isGenericDict()) {
    const auto da = a.toGenericDict();
    const auto db = b.toGenericDict();
    if (da.size() != db.size()) {
      return at + ": " + std::to_string(da.size()) + " vs " + std::to_string(db.size()) + " keys";
    }
    for (const auto& entry : da) {
      const std::string key = at + "/" + describe(entry.key());
      auto found = db.find(entry.key());
      if (found == db.end()) return key + ": missing";
      if (auto d = difference(entry.value(), found->value(), key); !d.empty()) return d;
    }
    return "";
  }
  if (a.isList() || a.isTuple()) {
    const auto va = a.isList() ? a.toList().vec() : a.toTupleRef().elements().vec();
    const auto vb = b.isList() ? b.toList().vec() : b.toTupleRef().elements().vec();
    if (va.size() != vb.size()) return at + ": lengths differ";
    for (size_t i = 0; i < va.size(); ++i) {
      if (auto d = difference(va[i], vb[i], at + "[" + std::to_string(i) + "]"); !d.empty()) {
        return d;
      }
    }
    return "";
  }
  if (a.isDouble())
    return a.toDouble() == b.toDouble() ? "" : at + ": " + describe(a) + " vs " + describe(b);
  return a == b ? "" : at + ": " + describe(a) + " vs " + describe(b);
}

// ---- the optimizer kinds: `alt` gives other hyperparameters everywhere, and other lr ----

using OptimizerPtr = std::unique_ptr<optim::Optimizer>;

template <typename Optimizer, typename Options>
OptimizerPtr make_optimizer(const Groups& groups, std::vector<Options> options) {
  std::vector<optim::OptimizerParamGroup> param_groups;
  for (size_t g = 0; g < groups.size(); ++g) {
    param_groups.emplace_back(groups[g], std::make_unique<Options>(options[g]));
  }
  return std::make_unique<Optimizer>(std::move(param_groups), options[0]);
}

// Builds the options of group g (groups get different learning rates).
template <typename Optimizer, typename Options>
std::function<OptimizerPtr(const Groups&, bool)> kind(
    std::function<Options(size_t g, bool alt)> options) {
  return [options](const Groups& groups, bool alt) {
    std::vector<Options> all;
    for (size_t g = 0; g < groups.size(); ++g) all.push_back(options(g, alt));
    return make_optimizer<Optimizer>(groups, all);
  };
}

struct Kind {
  std::string name;        // test name
  std::string torch_name;  // torch.optim class
  std::function<OptimizerPtr(const Groups&, bool alt)> make;
};

std::vector<Kind> kinds() {
  using optim::AdagradOptions, optim::AdamOptions, optim::AdamWOptions, optim::RMSpropOptions,
      optim::SGDOptions;
  return {
      {"SGD", "SGD", kind<optim::SGD, SGDOptions>([](size_t g, bool alt) {
         return alt ? SGDOptions(0.7).momentum(0.3).dampening(0.1)
                    : SGDOptions(0.05 / double(g + 1))
                          .momentum(0.9)
                          .nesterov(true)
                          .weight_decay(1e-2);
       })},
      {"SGDNoMomentum", "SGD", kind<optim::SGD, SGDOptions>([](size_t g, bool alt) {
         return alt ? SGDOptions(0.7).momentum(0.5) : SGDOptions(0.1 / double(g + 1));
       })},
      {"Adam", "Adam", kind<optim::Adam, AdamOptions>([](size_t g, bool alt) {
         return alt ? AdamOptions(0.5).betas({0.5, 0.6}).eps(1e-3).amsgrad(true)
                    : AdamOptions(1e-2 / double(g + 1))
                          .betas({0.8, 0.95})
                          .eps(1e-7)
                          .weight_decay(1e-3);
       })},
      {"AdamAmsgrad", "Adam", kind<optim::Adam, AdamOptions>([](size_t g, bool alt) {
         return alt ? AdamOptions(0.5) : AdamOptions(2e-2 / double(g + 1)).amsgrad(true);
       })},
      {"AdamW", "AdamW", kind<optim::AdamW, AdamWOptions>([](size_t g, bool alt) {
         return alt ? AdamWOptions(0.3).weight_decay(0).betas({0.1, 0.2})
                    : AdamWOptions(1e-2 / double(g + 1)).weight_decay(0.05);
       })},
      {"Adagrad", "Adagrad", kind<optim::Adagrad, AdagradOptions>([](size_t g, bool alt) {
         return alt ? AdagradOptions(0.9)
                    : AdagradOptions(0.1 / double(g + 1))
                          .lr_decay(0.01)
                          .weight_decay(1e-3)
                          .initial_accumulator_value(0.1)
                          .eps(1e-8);
       })},
      {"RMSprop", "RMSprop", kind<optim::RMSprop, RMSpropOptions>([](size_t g, bool alt) {
         return alt ? RMSpropOptions(0.4)
                    : RMSpropOptions(1e-2 / double(g + 1))
                          .momentum(0.9)
                          .centered(true)
                          .alpha(0.9)
                          .weight_decay(1e-3);
       })},
      {"RMSpropNoMomentum", "RMSprop", kind<optim::RMSprop, RMSpropOptions>([](size_t g, bool alt) {
         return alt ? RMSpropOptions(0.4).momentum(0.5).centered(true)
                    : RMSpropOptions(1e-2 / double(g + 1));
       })},
  };
}

const Kind& kind_named(const std::string& name) {
  static const auto all = kinds();
  for (const auto& k : all) {
    if (k.name == name) return k;
  }
  throw std::logic_error("no kind " + name);
}


// ---- 1. round trip through a checkpoint file, then continue training ----

class OptimizerStateRoundTrip : public testing::TempDirTest,
                                public ::testing::WithParamInterface<std::string> {
 protected:
  TorchCheckpointIO io_;
};

TEST_P(OptimizerStateRoundTrip, ContinuesBitwiseLikeTheOriginalAfterAFileRoundTrip) {
  const Kind& k = kind_named(GetParam());
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  const Data data;
  auto original = k.make(two_groups(*net), /*alt=*/false);
  train(*net, *original, data, kSteps);

  const auto saved = optimizer_state_dict(*original);
  auto ckpt = make_checkpoint_dict();
  c10::impl::GenericList states(c10::AnyType::get());
  states.push_back(saved);
  ckpt.insert("optimizer_states", states);
  io_.save_checkpoint(ckpt, path("opt.ckpt"));
  const c10::IValue loaded =
      io_.load_checkpoint(path("opt.ckpt")).at("optimizer_states").toList().get(0);
  EXPECT_EQ(difference(loaded, saved), "");

  auto resumed_net = copy_of(*net);
  auto resumed = k.make(two_groups(*resumed_net), /*alt=*/true);
  ASSERT_NE(lrs(*resumed), lrs(*original));
  ASSERT_NE(lrs(*original)[0], lrs(*original)[1]);
  load_optimizer_state_dict(*resumed, loaded, path("opt.ckpt"));
  EXPECT_EQ(lrs(*resumed), lrs(*original));
  // Every hyperparameter and state tensor, not only lr.
  EXPECT_EQ(difference(optimizer_state_dict(*resumed), saved), "");

  // Without the state, the same hyperparameters would take other steps (unless there is none).
  auto stateless_net = copy_of(*net);
  auto stateless = k.make(two_groups(*stateless_net), /*alt=*/false);
  const bool has_state = !saved.at("state").toGenericDict().empty();

  const auto before = copy_of(*net);
  const auto original_losses = train(*net, *original, data, kSteps);
  const auto resumed_losses = train(*resumed_net, *resumed, data, kSteps);
  train(*stateless_net, *stateless, data, kSteps);
  EXPECT_EQ(resumed_losses, original_losses);
  bool stateless_differs = false;
  const auto names = net->named_parameters();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name = names[i].key();
    EXPECT_TRUE(torch::equal(resumed_net->parameters()[i], net->parameters()[i])) << name;
    EXPECT_FALSE(torch::equal(before->parameters()[i], net->parameters()[i])) << name;
    stateless_differs |= !torch::equal(stateless_net->parameters()[i], net->parameters()[i]);
  }
  EXPECT_EQ(stateless_differs, has_state);
}

INSTANTIATE_TEST_SUITE_P(Kinds, OptimizerStateRoundTrip,
                         ::testing::Values("SGD", "SGDNoMomentum", "Adam", "AdamAmsgrad", "AdamW",
                                           "Adagrad", "RMSprop", "RMSpropNoMomentum"),
                         [](const auto& info) { return info.param; });

TEST(OptimizerStateLayout, NumbersParametersAcrossGroupsWithTorchOptimNames) {
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  const Data data;
  auto adam = kind_named("Adam").make(two_groups(*net), false);
  train(*net, *adam, data, 2);
  const auto saved = optimizer_state_dict(*adam);
  const auto groups = saved.at("param_groups").toList();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups.get(0).toGenericDict().at("params").toIntVector(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(groups.get(1).toGenericDict().at("params").toIntVector(), (std::vector<int64_t>{2, 3}));
  const auto g1 = groups.get(1).toGenericDict();
  EXPECT_DOUBLE_EQ(g1.at("lr").toDouble(), 5e-3);
  EXPECT_EQ(difference(g1.at("betas"), c10::ivalue::Tuple::create({0.8, 0.95})), "");
  const auto state = saved.at("state").toGenericDict();
  ASSERT_EQ(state.size(), 4u);
  const auto s3 = state.at(3).toGenericDict();
  EXPECT_EQ(s3.size(), 3u);  // no max_exp_avg_sq without amsgrad
  EXPECT_EQ(s3.at("step").toTensor().scalar_type(), torch::kFloat32);
  EXPECT_EQ(s3.at("step").toTensor().item<float>(), 2.0f);
  const auto& live = static_cast<const optim::AdamParamState&>(
      *adam->state().at(compat::optimizer_state_key(net->fc2->bias)));
  EXPECT_TRUE(torch::equal(s3.at("exp_avg").toTensor(), live.exp_avg()));
  EXPECT_TRUE(torch::equal(s3.at("exp_avg_sq").toTensor(), live.exp_avg_sq()));
  EXPECT_EQ(s3.at("exp_avg_sq").toTensor().sizes(), net->fc2->bias.sizes());
}

// ---- 2. states that do not fit ----

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "<no error>";
}

class OptimizerStateErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(0);
    net_ = std::make_shared<Net>();
    target_ = kind_named("Adam").make(two_groups(*net_), false);
    train(*net_, *target_, data_, 2);
    // A state that fits, from another run: other lr, other step count, other moments.
    donor_net_ = copy_of(*net_);
    donor_ = kind_named("Adam").make(two_groups(*donor_net_), true);
    train(*donor_net_, *donor_, data_, 4);
  }

  // Deep copy of the donor's state, free to edit.
  c10::impl::GenericDict donor_state() const {
    return c10::IValue(optimizer_state_dict(*donor_)).deepcopy().toGenericDict();
  }

  // Both check and load raise `message`, and the target keeps its hyperparameters and state.
  void expect_rejected(const c10::IValue& state, const std::string& message) {
    const auto state_before = c10::IValue(optimizer_state_dict(*target_)).deepcopy();
    const auto lrs_before = lrs(*target_);
    ASSERT_NE(difference(state_before, optimizer_state_dict(*donor_)), "");
    EXPECT_EQ(error_of([&] { check_optimizer_state_dict(*target_, state, kSource); }), message);
    EXPECT_EQ(error_of([&] { load_optimizer_state_dict(*target_, state, kSource); }), message);
    EXPECT_EQ(lrs(*target_), lrs_before);
    EXPECT_EQ(difference(optimizer_state_dict(*target_), state_before), "");
  }

  const Data data_;
  std::shared_ptr<Net> net_, donor_net_;
  OptimizerPtr target_, donor_;
};

TEST_F(OptimizerStateErrors, ValidStatePassesTheCheckUnchangedAndLoads) {
  const auto state_before = c10::IValue(optimizer_state_dict(*target_)).deepcopy();
  EXPECT_EQ(error_of([&] { check_optimizer_state_dict(*target_, donor_state(), kSource); }),
            "<no error>");
  EXPECT_EQ(difference(optimizer_state_dict(*target_), state_before), "");
  EXPECT_EQ(error_of([&] { load_optimizer_state_dict(*target_, donor_state(), kSource); }),
            "<no error>");
  EXPECT_EQ(lrs(*target_), lrs(*donor_));
  EXPECT_EQ(difference(optimizer_state_dict(*target_), optimizer_state_dict(*donor_)), "");
}

TEST_F(OptimizerStateErrors, AnotherKindOfOptimizer) {
  auto sgd = kind_named("SGD").make(two_groups(*donor_net_), false);
  train(*donor_net_, *sgd, data_, 1);
  expect_rejected(optimizer_state_dict(*sgd),
                  "epoch=1-step=6.ckpt: optimizer state, param group 0 (Adam): no \"betas\"; the "
                  "state was saved from another kind of optimizer");

  // And the other way round.
  auto sgd_net = copy_of(*net_);
  auto into_sgd = kind_named("SGD").make(two_groups(*sgd_net), false);
  train(*sgd_net, *into_sgd, data_, 1);
  const auto sgd_before = c10::IValue(optimizer_state_dict(*into_sgd)).deepcopy();
  EXPECT_EQ(error_of([&] { load_optimizer_state_dict(*into_sgd, donor_state(), kSource); }),
            "epoch=1-step=6.ckpt: optimizer state, param group 0 (SGD): no \"momentum\"; the "
            "state was saved from another kind of optimizer");
  EXPECT_EQ(difference(optimizer_state_dict(*into_sgd), sgd_before), "");
}

TEST_F(OptimizerStateErrors, DifferentNumberOfParamGroups) {
  auto single = kind_named("Adam").make(one_group(*donor_net_), false);
  train(*donor_net_, *single, data_, 1);
  expect_rejected(optimizer_state_dict(*single),
                  "epoch=1-step=6.ckpt: optimizer state, top level: it has 1 param group(s), the "
                  "optimizer has 2");
}

TEST_F(OptimizerStateErrors, DifferentNumberOfParameters) {
  // Group 0 fits; group 1 has an extra parameter.
  auto extra = torch::zeros({2}, torch::requires_grad());
  auto groups = two_groups(*donor_net_);
  groups[1].push_back(extra);
  auto wider = kind_named("Adam").make(groups, true);
  train(*donor_net_, *wider, data_, 1);
  expect_rejected(optimizer_state_dict(*wider),
                  "epoch=1-step=6.ckpt: optimizer state, param group 1: it has 3 parameter(s), the "
                  "optimizer's group has 2");
}

TEST_F(OptimizerStateErrors, StateTensorOfTheWrongShape) {
  // The last parameter's (fc2.bias, shape 2): everything before it would load.
  auto state = donor_state();
  state.at("state").toGenericDict().at(3).toGenericDict().insert_or_assign("exp_avg_sq",
                                                                           torch::ones({1, 2}));
  expect_rejected(state,
                  "epoch=1-step=6.ckpt: optimizer state, parameter 1 of param group 1: "
                  "\"exp_avg_sq\" has shape 1x2 but the parameter has shape 2");

  auto transposed = donor_state();
  transposed.at("state").toGenericDict().at(0).toGenericDict().insert_or_assign(
      "exp_avg", torch::ones({4, 8}));
  expect_rejected(transposed,
                  "epoch=1-step=6.ckpt: optimizer state, parameter 0 of param group 0: "
                  "\"exp_avg\" has shape 4x8 but the parameter has shape 8x4");
}

TEST_F(OptimizerStateErrors, StateThatIsNotADict) {
  auto state = donor_state();
  state.insert_or_assign("state", c10::List<int64_t>({0, 1, 2, 3}));
  expect_rejected(state,
                  "epoch=1-step=6.ckpt: optimizer state, top level: \"state\" must be a dict and "
                  "\"param_groups\" a list");
  expect_rejected(c10::IValue(torch::ones({2})),
                  "epoch=1-step=6.ckpt: optimizer state, top level: a Tensor, not a dict");
  auto no_state = donor_state();
  ASSERT_EQ(no_state.erase("state"), 1u);
  expect_rejected(no_state,
                  "epoch=1-step=6.ckpt: optimizer state, top level: no \"state\"; the state was "
                  "saved from another kind of optimizer");
}

struct MyAdam : optim::Adam {
  using optim::Adam::Adam;
};

TEST(OptimizerStateUnsupported, NamesTheSupportedKinds) {
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  optim::LBFGS lbfgs(net->parameters(), optim::LBFGSOptions(1));
  const std::string supported =
      ": fulgur writes optimizer state in torch.optim's layout for SGD, Adam, AdamW, Adagrad and "
      "RMSprop; use one of them, or checkpoint with save_weights_only=true";
  EXPECT_EQ(error_of([&] { optimizer_state_dict(lbfgs); }),
            "cannot save the state of optimizer torch::optim::LBFGS" + supported);
  auto adam = kind_named("Adam").make(one_group(*net), false);
  const auto adam_state = optimizer_state_dict(*adam);
  EXPECT_EQ(error_of([&] { load_optimizer_state_dict(lbfgs, adam_state, kSource); }),
            "cannot load the state of optimizer torch::optim::LBFGS" + supported);
  EXPECT_EQ(error_of([&] { check_optimizer_state_dict(lbfgs, adam_state, kSource); }),
            "cannot load the state of optimizer torch::optim::LBFGS" + supported);
  // A subclass may keep other state: it does not pass for its base.
  MyAdam mine(net->parameters(), optim::AdamOptions(1e-3));
  const auto error = error_of([&] { optimizer_state_dict(mine); });
  EXPECT_THAT(error, StartsWith("cannot save the state of optimizer "));
  EXPECT_THAT(error, EndsWith("MyAdam" + supported));
}

// ---- 3. Python's torch.optim continues fulgur's checkpoint ----

class PythonContinuesTraining : public testing::TempDirTest {
 protected:
  TorchCheckpointIO io_;
  // Trains a fresh Net kSteps with `k`, writes the checkpoint that python_optimizer_continue.py
  // reads, and continues kSteps more in C++ to record what Python must reproduce.
  void write_checkpoint(const Kind& k, bool two, const std::string& file) {
    torch::manual_seed(1);
    auto net = std::make_shared<Net>();
    const Data data;
    auto optimizer = k.make(two ? two_groups(*net) : one_group(*net), /*alt=*/false);
    train(*net, *optimizer, data, kSteps);

    auto ckpt = make_checkpoint_dict();
    ckpt.insert("optimizer", k.torch_name);
    ckpt.insert("state_dict", parameters(*net));
    c10::impl::GenericList states(c10::AnyType::get());
    // A deep copy: the state tensors change in place as training continues below.
    states.push_back(c10::IValue(optimizer_state_dict(*optimizer)).deepcopy());
    ckpt.insert("optimizer_states", states);
    ckpt.insert("x", data.x);
    ckpt.insert("y", data.y);
    {
      torch::NoGradGuard no_grad;
      ckpt.insert("expected_output", net->forward(data.x));
    }
    ckpt.insert("steps", int64_t{kSteps});
    ckpt.insert("expected_losses", c10::List<double>(train(*net, *optimizer, data, kSteps)));
    ckpt.insert("expected_params", parameters(*net));
    io_.save_checkpoint(ckpt, path(file));
  }

  static c10::impl::GenericDict parameters(Net& net) {
    auto out = make_checkpoint_dict();
    for (const auto& item : net.named_parameters()) {
      out.insert(item.key(), item.value().detach().clone());
    }
    return out;
  }

  // Runs the script on the files; returns its exit code and output.
  std::pair<int, std::string> run_python(const std::vector<std::string>& files) const {
    std::string command = testing::python() + " " + testing::source_dir() +
                          "/tests/optim/python_optimizer_continue.py";
    for (const auto& file : files) command += " '" + path(file) + "'";
    command += " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return {-1, "popen failed"};
    std::string output;
    char buffer[512];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
    const int status = ::pclose(pipe);
    std::cout << output;  // the measured differences, for the log
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
  }

  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  static void expect_ok_line(const std::string& line, const std::string& torch_name) {
    EXPECT_THAT(line, StartsWith(torch_name + ": outputs max diff "));
    EXPECT_THAT(line, EndsWith(" after 3 steps: OK"));
  }
};

TEST_F(PythonContinuesTraining, AdamFromAFulgurCheckpoint) {
  write_checkpoint(kind_named("Adam"), /*two=*/false, "adam.ckpt");
  const auto [code, output] = run_python({"adam.ckpt"});
  EXPECT_EQ(code, 0) << output;
  const auto got = lines(output);
  ASSERT_EQ(got.size(), 2u) << output;
  expect_ok_line(got[0], "Adam");
  EXPECT_EQ(got[1], "python torch.optim continued every checkpoint like fulgur");
}

TEST_F(PythonContinuesTraining, EveryKindWithTwoParamGroups) {
  std::vector<std::string> files;
  std::vector<std::string> torch_names;
  for (const auto& k : kinds()) {
    files.push_back(k.name + ".ckpt");
    torch_names.push_back(k.torch_name);
    write_checkpoint(k, /*two=*/true, files.back());
  }
  const auto [code, output] = run_python(files);
  EXPECT_EQ(code, 0) << output;
  const auto got = lines(output);
  ASSERT_EQ(got.size(), files.size() + 1) << output;
  for (size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    expect_ok_line(got[i], torch_names[i]);
  }
  EXPECT_EQ(got.back(), "python torch.optim continued every checkpoint like fulgur");
}

// The script must be able to fail: a checkpoint whose optimizer state lost its moments.
TEST_F(PythonContinuesTraining, ScriptReportsADifference) {
  write_checkpoint(kind_named("Adam"), /*two=*/false, "adam.ckpt");
  auto ckpt = io_.load_checkpoint(path("adam.ckpt"));
  auto state = ckpt.at("optimizer_states").toList().get(0).toGenericDict().at("state");
  for (const auto& entry : state.toGenericDict()) {
    entry.value().toGenericDict().insert_or_assign(
        "exp_avg_sq", torch::zeros_like(entry.value().toGenericDict().at("exp_avg_sq").toTensor()));
  }
  io_.save_checkpoint(ckpt, path("broken.ckpt"));
  const auto [code, output] = run_python({"broken.ckpt"});
  EXPECT_EQ(code, 1) << output;
  EXPECT_THAT(output, HasSubstr("Adam: outputs max diff "));
  EXPECT_THAT(output, HasSubstr("FAILED (losses "));
  EXPECT_THAT(output, HasSubstr("fc1.weight differs by "));
  EXPECT_THAT(output, HasSubstr("python torch.optim did NOT continue like fulgur"));
}

}  // namespace
}  // namespace fulgur
