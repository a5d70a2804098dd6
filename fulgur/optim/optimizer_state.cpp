#include "fulgur/optim/optimizer_state.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/optim.h>

#include <map>
#include <optional>
#include <memory>
#include <typeinfo>

#include "fulgur/compat/optim.h"
#include "fulgur/errors.h"
#include "fulgur/io/checkpoint_io.h"

namespace fulgur {
namespace {

using Dict = c10::impl::GenericDict;
using torch::optim::OptimizerOptions;
using torch::optim::OptimizerParamState;

// Reads values out of a saved dict, raising CheckpointError that says where the value was
// expected (`source`, then `where`, e.g. "param group 0").
struct Reader {
  const std::string& source;
  std::string where;

  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError(fmt::format("{}: optimizer state, {}: {}", source, where, what));
  }
  const c10::IValue& at(const Dict& d, const char* key) const {
    auto it = d.find(key);
    if (it == d.end()) {
      fail(fmt::format("no \"{}\"; the state was saved from another kind of optimizer", key));
    }
    return it->value();
  }
  double number(const Dict& d, const char* key) const {
    const auto& v = at(d, key);
    if (v.isDouble()) return v.toDouble();
    if (v.isInt()) return static_cast<double>(v.toInt());
    if (v.isBool()) return v.toBool() ? 1.0 : 0.0;
    fail(fmt::format("\"{}\" is a {}, not a number", key, v.tagKind()));
  }
  bool flag(const Dict& d, const char* key) const {
    const auto& v = at(d, key);
    if (v.isBool()) return v.toBool();
    if (v.isInt()) return v.toInt() != 0;
    fail(fmt::format("\"{}\" is a {}, not a bool", key, v.tagKind()));
  }
  std::tuple<double, double> pair(const Dict& d, const char* key) const {
    const auto& v = at(d, key);
    std::vector<c10::IValue> items;
    if (v.isTuple()) items = v.toTupleRef().elements().vec();
    if (v.isList()) items = v.toList().vec();
    if (items.size() != 2 || !(items[0].isDouble() || items[0].isInt()) ||
        !(items[1].isDouble() || items[1].isInt())) {
      fail(fmt::format("\"{}\" is not a pair of numbers", key));
    }
    auto num = [](const c10::IValue& x) { return x.isDouble() ? x.toDouble() : double(x.toInt()); };
    return {num(items[0]), num(items[1])};
  }
  // Step counters: Python keeps Adam's as a float tensor, RMSprop's as an int.
  int64_t step(const Dict& d) const {
    const auto& v = at(d, "step");
    if (v.isInt()) return v.toInt();
    if (v.isDouble()) return static_cast<int64_t>(v.toDouble());
    if (v.isTensor() && v.toTensor().numel() == 1) return v.toTensor().item<double>();
    fail(fmt::format("\"step\" is a {}, not a count", v.tagKind()));
  }
  // A state tensor shaped like `param`, copied onto its device and dtype.
  torch::Tensor tensor(const Dict& d, const char* key, const torch::Tensor& param) const {
    const auto& v = at(d, key);
    if (!v.isTensor()) fail(fmt::format("\"{}\" is a {}, not a tensor", key, v.tagKind()));
    const auto& t = v.toTensor();
    if (t.sizes() != param.sizes()) {
      fail(fmt::format("\"{}\" has shape {} but the parameter has shape {}", key,
                       fmt::join(t.sizes(), "x"), fmt::join(param.sizes(), "x")));
    }
    return t.to(param.device(), param.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
  }
  bool has_tensor(const Dict& d, const char* key) const {
    auto it = d.find(key);
    return it != d.end() && it->value().isTensor();
  }
};

// torch.optim's defaults for the flags LibTorch does not have, so Python's step() finds them.
void insert_python_flags(Dict& g, bool differentiable, bool capturable, bool fused) {
  g.insert("maximize", false);
  g.insert("foreach", c10::IValue());
  if (capturable) g.insert("capturable", false);
  if (differentiable) g.insert("differentiable", false);
  if (fused) g.insert("fused", false);
}

c10::IValue float_step(int64_t step) {
  return torch::tensor(static_cast<float>(step), torch::kFloat32);
}

// ---- one codec per optimizer kind: torch.optim's names for LibTorch's options and state ----

struct Codec {
  const char* name;
  void (*write_group)(const OptimizerOptions&, Dict&);
  void (*read_group)(const Reader&, const Dict&, OptimizerOptions&);
  void (*write_state)(const OptimizerParamState&, Dict&);
  std::unique_ptr<OptimizerParamState> (*read_state)(const Reader&, const Dict&,
                                                     const torch::Tensor& param,
                                                     const OptimizerOptions&);
};

template <typename Options>
void write_adam_group(const OptimizerOptions& base, Dict& g, bool fused) {
  const auto& o = static_cast<const Options&>(base);
  g.insert("lr", o.lr());
  g.insert("betas", c10::ivalue::Tuple::create({std::get<0>(o.betas()), std::get<1>(o.betas())}));
  g.insert("eps", o.eps());
  g.insert("weight_decay", o.weight_decay());
  g.insert("amsgrad", o.amsgrad());
  insert_python_flags(g, /*differentiable=*/true, /*capturable=*/true, fused);
}

template <typename Options>
void read_adam_group(const Reader& r, const Dict& g, OptimizerOptions& base) {
  auto& o = static_cast<Options&>(base);
  o.lr(r.number(g, "lr")).betas(r.pair(g, "betas")).eps(r.number(g, "eps"));
  o.weight_decay(r.number(g, "weight_decay")).amsgrad(r.flag(g, "amsgrad"));
}

template <typename State>
void write_adam_state(const OptimizerParamState& base, Dict& s) {
  const auto& st = static_cast<const State&>(base);
  s.insert("step", float_step(st.step()));
  s.insert("exp_avg", st.exp_avg());
  s.insert("exp_avg_sq", st.exp_avg_sq());
  if (st.max_exp_avg_sq().defined()) s.insert("max_exp_avg_sq", st.max_exp_avg_sq());
}

template <typename State, typename Options>
std::unique_ptr<OptimizerParamState> read_adam_state(const Reader& r, const Dict& s,
                                                     const torch::Tensor& p,
                                                     const OptimizerOptions& options) {
  auto st = std::make_unique<State>();
  st->step(r.step(s)).exp_avg(r.tensor(s, "exp_avg", p)).exp_avg_sq(r.tensor(s, "exp_avg_sq", p));
  // LibTorch reads max_exp_avg_sq whenever amsgrad is on; Python only writes it then.
  if (r.has_tensor(s, "max_exp_avg_sq")) {
    st->max_exp_avg_sq(r.tensor(s, "max_exp_avg_sq", p));
  } else if (static_cast<const Options&>(options).amsgrad()) {
    st->max_exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
  }
  return st;
}

const Codec kSGD{
    "SGD",
    [](const OptimizerOptions& base, Dict& g) {
      const auto& o = static_cast<const torch::optim::SGDOptions&>(base);
      g.insert("lr", o.lr());
      g.insert("momentum", o.momentum());
      g.insert("dampening", o.dampening());
      g.insert("weight_decay", o.weight_decay());
      g.insert("nesterov", o.nesterov());
      insert_python_flags(g, /*differentiable=*/true, /*capturable=*/false, /*fused=*/false);
    },
    [](const Reader& r, const Dict& g, OptimizerOptions& base) {
      auto& o = static_cast<torch::optim::SGDOptions&>(base);
      o.lr(r.number(g, "lr")).momentum(r.number(g, "momentum"));
      o.dampening(r.number(g, "dampening")).weight_decay(r.number(g, "weight_decay"));
      o.nesterov(r.flag(g, "nesterov"));
    },
    [](const OptimizerParamState& base, Dict& s) {
      s.insert("momentum_buffer",
               static_cast<const torch::optim::SGDParamState&>(base).momentum_buffer());
    },
    [](const Reader& r, const Dict& s, const torch::Tensor& p,
       const OptimizerOptions&) -> std::unique_ptr<OptimizerParamState> {
      // Python keeps `momentum_buffer: None` for momentum 0, where LibTorch keeps no state.
      if (!r.has_tensor(s, "momentum_buffer")) return nullptr;
      auto st = std::make_unique<torch::optim::SGDParamState>();
      st->momentum_buffer(r.tensor(s, "momentum_buffer", p));
      return st;
    }};

const Codec kAdam{"Adam",
                  [](const OptimizerOptions& o, Dict& g) {
                    write_adam_group<torch::optim::AdamOptions>(o, g, /*fused=*/true);
                  },
                  read_adam_group<torch::optim::AdamOptions>,
                  write_adam_state<torch::optim::AdamParamState>,
                  read_adam_state<torch::optim::AdamParamState, torch::optim::AdamOptions>};

const Codec kAdamW{"AdamW",
                   [](const OptimizerOptions& o, Dict& g) {
                     write_adam_group<torch::optim::AdamWOptions>(o, g, /*fused=*/false);
                   },
                   read_adam_group<torch::optim::AdamWOptions>,
                   write_adam_state<torch::optim::AdamWParamState>,
                   read_adam_state<torch::optim::AdamWParamState, torch::optim::AdamWOptions>};

const Codec kAdagrad{
    "Adagrad",
    [](const OptimizerOptions& base, Dict& g) {
      const auto& o = static_cast<const torch::optim::AdagradOptions&>(base);
      g.insert("lr", o.lr());
      g.insert("lr_decay", o.lr_decay());
      g.insert("eps", o.eps());
      g.insert("weight_decay", o.weight_decay());
      g.insert("initial_accumulator_value", o.initial_accumulator_value());
      insert_python_flags(g, /*differentiable=*/false, /*capturable=*/false, /*fused=*/false);
    },
    [](const Reader& r, const Dict& g, OptimizerOptions& base) {
      auto& o = static_cast<torch::optim::AdagradOptions&>(base);
      o.lr(r.number(g, "lr")).lr_decay(r.number(g, "lr_decay")).eps(r.number(g, "eps"));
      o.weight_decay(r.number(g, "weight_decay"));
      o.initial_accumulator_value(r.number(g, "initial_accumulator_value"));
    },
    [](const OptimizerParamState& base, Dict& s) {
      const auto& st = static_cast<const torch::optim::AdagradParamState&>(base);
      s.insert("step", float_step(st.step()));
      s.insert("sum", st.sum());
    },
    [](const Reader& r, const Dict& s, const torch::Tensor& p,
       const OptimizerOptions&) -> std::unique_ptr<OptimizerParamState> {
      auto st = std::make_unique<torch::optim::AdagradParamState>();
      st->step(r.step(s)).sum(r.tensor(s, "sum", p));
      return st;
    }};

const Codec kRMSprop{
    "RMSprop",
    [](const OptimizerOptions& base, Dict& g) {
      const auto& o = static_cast<const torch::optim::RMSpropOptions&>(base);
      g.insert("lr", o.lr());
      g.insert("momentum", o.momentum());
      g.insert("alpha", o.alpha());
      g.insert("eps", o.eps());
      g.insert("centered", o.centered());
      g.insert("weight_decay", o.weight_decay());
      insert_python_flags(g, /*differentiable=*/true, /*capturable=*/false, /*fused=*/false);
    },
    [](const Reader& r, const Dict& g, OptimizerOptions& base) {
      auto& o = static_cast<torch::optim::RMSpropOptions&>(base);
      o.lr(r.number(g, "lr")).momentum(r.number(g, "momentum")).alpha(r.number(g, "alpha"));
      o.eps(r.number(g, "eps")).centered(r.flag(g, "centered"));
      o.weight_decay(r.number(g, "weight_decay"));
    },
    [](const OptimizerParamState& base, Dict& s) {
      const auto& st = static_cast<const torch::optim::RMSpropParamState&>(base);
      s.insert("step", st.step());
      s.insert("square_avg", st.square_avg());
      if (st.momentum_buffer().defined()) s.insert("momentum_buffer", st.momentum_buffer());
      if (st.grad_avg().defined()) s.insert("grad_avg", st.grad_avg());
    },
    [](const Reader& r, const Dict& s, const torch::Tensor& p,
       const OptimizerOptions& base) -> std::unique_ptr<OptimizerParamState> {
      const auto& o = static_cast<const torch::optim::RMSpropOptions&>(base);
      auto st = std::make_unique<torch::optim::RMSpropParamState>();
      st->step(r.step(s)).square_avg(r.tensor(s, "square_avg", p));
      if (o.momentum() > 0) st->momentum_buffer(r.tensor(s, "momentum_buffer", p));
      if (o.centered()) st->grad_avg(r.tensor(s, "grad_avg", p));
      return st;
    }};

// Exact types: AdamW is not an Adam in LibTorch, but a user subclass must not pass for its base.
const Codec* codec_for(const torch::optim::Optimizer& optimizer) {
  const auto& type = typeid(optimizer);
  if (type == typeid(torch::optim::SGD)) return &kSGD;
  if (type == typeid(torch::optim::Adam)) return &kAdam;
  if (type == typeid(torch::optim::AdamW)) return &kAdamW;
  if (type == typeid(torch::optim::Adagrad)) return &kAdagrad;
  if (type == typeid(torch::optim::RMSprop)) return &kRMSprop;
  return nullptr;
}

const Codec& require_codec(const torch::optim::Optimizer& optimizer, const std::string& action) {
  const Codec* codec = codec_for(optimizer);
  if (codec == nullptr) {
    throw CheckpointError(fmt::format(
        "cannot {} the state of optimizer {}: fulgur writes optimizer state in torch.optim's "
        "layout for SGD, Adam, AdamW, Adagrad and RMSprop; use one of them, or checkpoint with "
        "save_weights_only=true",
        action, c10::demangle(typeid(optimizer).name())));
  }
  return *codec;
}

// What a saved state dict says about each group: its dict, and its parameters' state dicts.
struct ParsedGroup {
  Dict group = make_checkpoint_dict();
  std::vector<std::optional<Dict>> param_states;
};

std::vector<ParsedGroup> parse(const torch::optim::Optimizer& optimizer, const c10::IValue& value,
                               const std::string& source) {
  Reader r{source, "top level"};
  if (!value.isGenericDict()) r.fail(fmt::format("a {}, not a dict", value.tagKind()));
  const auto top = value.toGenericDict();
  const auto& state_value = r.at(top, "state");
  const auto& groups_value = r.at(top, "param_groups");
  if (!state_value.isGenericDict() || !groups_value.isList()) {
    r.fail("\"state\" must be a dict and \"param_groups\" a list");
  }
  std::map<int64_t, Dict> states;
  for (const auto& entry : state_value.toGenericDict()) {
    if (!entry.key().isInt() || !entry.value().isGenericDict()) {
      r.fail("\"state\" must map parameter numbers to dicts");
    }
    states.emplace(entry.key().toInt(), entry.value().toGenericDict());
  }
  const auto groups = groups_value.toList();
  const auto& own_groups = optimizer.param_groups();
  if (groups.size() != own_groups.size()) {
    r.fail(fmt::format("it has {} param group(s), the optimizer has {}", groups.size(),
                       own_groups.size()));
  }
  std::vector<ParsedGroup> parsed(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    Reader gr{source, fmt::format("param group {}", g)};
    const c10::IValue item = groups.get(g);
    if (!item.isGenericDict()) gr.fail("not a dict");
    parsed[g].group = item.toGenericDict();
    const auto& params = gr.at(parsed[g].group, "params");
    if (!params.isList()) gr.fail("\"params\" is not a list");
    const auto ids = params.toList();
    const auto& own_params = own_groups[g].params();
    if (ids.size() != own_params.size()) {
      gr.fail(fmt::format("it has {} parameter(s), the optimizer's group has {}", ids.size(),
                          own_params.size()));
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      const c10::IValue id = ids.get(i);
      if (!id.isInt()) gr.fail("\"params\" must hold parameter numbers");
      auto found = states.find(id.toInt());
      parsed[g].param_states.push_back(found == states.end() ? std::nullopt
                                                             : std::optional(found->second));
    }
  }
  return parsed;
}

// Builds what load would install, raising before anything is changed.
struct Loaded {
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::vector<std::vector<std::unique_ptr<OptimizerParamState>>> states;
};

Loaded decode(const torch::optim::Optimizer& optimizer, const c10::IValue& value,
              const std::string& source) {
  const Codec& codec = require_codec(optimizer, "load");
  const auto parsed = parse(optimizer, value, source);
  Loaded out;
  for (size_t g = 0; g < parsed.size(); ++g) {
    const auto& own = optimizer.param_groups()[g];
    Reader gr{source, fmt::format("param group {} ({})", g, codec.name)};
    auto options = own.options().clone();
    codec.read_group(gr, parsed[g].group, *options);
    std::vector<std::unique_ptr<OptimizerParamState>> states;
    for (size_t i = 0; i < own.params().size(); ++i) {
      const auto& saved = parsed[g].param_states[i];
      Reader pr{source, fmt::format("parameter {} of param group {}", i, g)};
      states.push_back(saved ? codec.read_state(pr, *saved, own.params()[i], *options) : nullptr);
    }
    out.options.push_back(std::move(options));
    out.states.push_back(std::move(states));
  }
  return out;
}

}  // namespace

c10::impl::GenericDict optimizer_state_dict(const torch::optim::Optimizer& optimizer) {
  const Codec& codec = require_codec(optimizer, "save");
  c10::impl::GenericDict state(c10::IntType::get(), c10::AnyType::get());
  c10::impl::GenericList groups(c10::AnyType::get());
  int64_t index = 0;
  for (const auto& group : optimizer.param_groups()) {
    auto g = make_checkpoint_dict();
    codec.write_group(group.options(), g);
    c10::List<int64_t> ids;
    for (const auto& param : group.params()) {
      auto found = optimizer.state().find(compat::optimizer_state_key(param));
      if (found != optimizer.state().end()) {
        auto s = make_checkpoint_dict();
        codec.write_state(*found->second, s);
        state.insert(index, s);
      }
      ids.push_back(index++);
    }
    g.insert("params", ids);
    groups.push_back(g);
  }
  auto out = make_checkpoint_dict();
  out.insert("state", state);
  out.insert("param_groups", groups);
  return out;
}

void check_optimizer_state_dict(const torch::optim::Optimizer& optimizer, const c10::IValue& state,
                                const std::string& source) {
  decode(optimizer, state, source);
}

void load_optimizer_state_dict(torch::optim::Optimizer& optimizer, const c10::IValue& state,
                               const std::string& source) {
  Loaded loaded = decode(optimizer, state, source);
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].set_options(std::move(loaded.options[g]));
    for (size_t i = 0; i < groups[g].params().size(); ++i) {
      auto key = compat::optimizer_state_key(groups[g].params()[i]);
      if (loaded.states[g][i]) {
        optimizer.state()[key] = std::move(loaded.states[g][i]);
      } else {
        optimizer.state().erase(key);
      }
    }
  }
}

}  // namespace fulgur
