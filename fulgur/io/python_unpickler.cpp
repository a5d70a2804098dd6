#include "fulgur/io/python_unpickler.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace fulgur {
namespace {

using Dict = c10::impl::GenericDict;
using List = c10::impl::GenericList;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("its pickle " + what);
}

// One entry of the unpickler's stack. A class the pickle names stays a name until something
// calls it; an instance of a class this reader does not know is the dict of its items, to which
// BUILD adds its attributes.
struct Item {
  enum class Kind { kValue, kGlobal, kInstance };
  Kind kind = Kind::kValue;
  c10::IValue value;
  std::string global;  // "module.name" for kGlobal

  static Item of(c10::IValue v) { return {Kind::kValue, std::move(v), {}}; }
};

// The dtype of a storage class named in a tensor's persistent id ("torch.FloatStorage").
c10::ScalarType storage_dtype(const std::string& name) {
  static const std::map<std::string, c10::ScalarType> kTypes = {
      {"torch.FloatStorage", c10::kFloat},          {"torch.DoubleStorage", c10::kDouble},
      {"torch.HalfStorage", c10::kHalf},            {"torch.BFloat16Storage", c10::kBFloat16},
      {"torch.LongStorage", c10::kLong},            {"torch.IntStorage", c10::kInt},
      {"torch.ShortStorage", c10::kShort},          {"torch.CharStorage", c10::kChar},
      {"torch.ByteStorage", c10::kByte},            {"torch.BoolStorage", c10::kBool},
      {"torch.ComplexFloatStorage", c10::kComplexFloat},
      {"torch.ComplexDoubleStorage", c10::kComplexDouble},
      {"torch.UntypedStorage", c10::kByte},
  };
  const auto it = kTypes.find(name);
  if (it == kTypes.end()) fail("holds a tensor storage of unknown type " + name);
  return it->second;
}

std::vector<int64_t> int_tuple(const c10::IValue& v, const char* what) {
  if (!v.isTuple()) fail(fmt::format("gives a tensor {} that is not a tuple", what));
  std::vector<int64_t> out;
  for (const auto& e : v.toTupleRef().elements()) {
    if (!e.isInt()) fail(fmt::format("gives a tensor {} that is not all integers", what));
    out.push_back(e.toInt());
  }
  return out;
}

class Unpickler {
 public:
  Unpickler(const uint8_t* data, size_t size, caffe2::serialize::PyTorchStreamReader& archive)
      : data_(data), size_(size), archive_(archive) {}

  c10::IValue run() {
    try {
      while (true) {
        const uint8_t op = byte();
        if (op == '.') {  // STOP
          c10::IValue result = value(pop());
          check_acyclic();
          return result;
        }
        step(op);
      }
    } catch (...) {
      // Containers that hold each other (a pickle may build cycles through its memo) would
      // never be freed: empty every container made before failing.
      for (auto& c : containers_) {
        if (c.isGenericDict()) c.toGenericDict().clear();
        if (c.isList()) c.toList().clear();
      }
      throw;
    }
  }

 private:
  // Every mutable container is made here, so a failure can empty them all.
  Dict new_dict() {
    Dict d(c10::AnyType::get(), c10::AnyType::get());
    containers_.emplace_back(d);
    return d;
  }
  List new_list() {
    List l(c10::AnyType::get());
    containers_.emplace_back(l);
    return l;
  }

  // A checkpoint is a tree: a container reached again while inside itself is refused (every
  // container made is checked, the result's and any the pickle built and dropped).
  void check_acyclic() {
    auto is_container = [](const c10::IValue& v) {
      return v.isGenericDict() || v.isList() || v.isTuple();
    };
    auto children_of = [](const c10::IValue& v) {
      std::vector<c10::IValue> out;
      if (v.isGenericDict()) {
        for (const auto& e : v.toGenericDict()) {
          out.push_back(e.key());
          out.push_back(e.value());
        }
      } else if (v.isList()) {
        const auto list = v.toList();
        for (size_t i = 0; i < list.size(); ++i) out.push_back(list.get(i));
      } else {
        for (const auto& e : v.toTupleRef().elements()) out.push_back(e);
      }
      return out;
    };
    struct Frame {
      const void* id;
      std::vector<c10::IValue> children;
      size_t next = 0;
    };
    std::unordered_map<const void*, bool> open;  // false once fully walked
    std::vector<Frame> path;
    auto enter = [&](const c10::IValue& v) {
      if (!is_container(v)) return;
      const void* id = v.internalToPointer();
      const auto [it, fresh] = open.emplace(id, true);
      if (!fresh) {
        if (it->second) fail("holds a container that contains itself");
        return;
      }
      path.push_back({id, children_of(v)});
    };
    for (const auto& root : containers_) {
      enter(root);
      while (!path.empty()) {
        if (path.back().next < path.back().children.size()) {
          const c10::IValue child = path.back().children[path.back().next++];
          enter(child);
        } else {
          open[path.back().id] = false;
          path.pop_back();
        }
      }
    }
  }

  // ---- reading the stream
  uint8_t byte() {
    if (pos_ >= size_) fail("ends before its STOP opcode");
    return data_[pos_++];
  }
  const uint8_t* take(size_t n) {
    if (n > size_ - pos_) fail(fmt::format("ends inside an argument at byte {}", pos_));
    const uint8_t* at = data_ + pos_;
    pos_ += n;
    return at;
  }
  uint64_t unsigned_le(size_t n) {
    const uint8_t* p = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
    return v;
  }
  // LONG1/LONG4: a little-endian two's-complement integer of `n` bytes.
  int64_t signed_le(uint64_t n) {
    if (n > 8) fail(fmt::format("holds an integer of {} bytes, wider than 64 bits", n));
    if (n == 0) return 0;
    uint64_t v = unsigned_le(n);
    if (n < 8 && (v >> (8 * n - 1)) != 0) v |= ~uint64_t{0} << (8 * n);
    return static_cast<int64_t>(v);
  }
  std::string text(size_t n) {
    const uint8_t* p = take(n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  std::string line() {
    const void* end = std::memchr(data_ + pos_, '\n', size_ - pos_);
    if (end == nullptr) fail("ends inside a text argument");
    const size_t n = static_cast<size_t>(static_cast<const uint8_t*>(end) - (data_ + pos_));
    std::string s = text(n);
    ++pos_;
    return s;
  }

  // ---- the stack
  void push(Item item) { stack_.push_back(std::move(item)); }
  void push(c10::IValue v) { stack_.push_back(Item::of(std::move(v))); }
  Item pop() {
    if (stack_.size() <= floor()) fail("pops more than it pushed");
    Item item = std::move(stack_.back());
    stack_.pop_back();
    return item;
  }
  Item& top() {
    if (stack_.size() <= floor()) fail("changes a value it never pushed");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<Item> pop_mark() {
    if (marks_.empty()) fail("ends a group it never started (no MARK)");
    const size_t from = marks_.back();
    marks_.pop_back();
    std::vector<Item> items(std::make_move_iterator(stack_.begin() + static_cast<long>(from)),
                            std::make_move_iterator(stack_.end()));
    stack_.resize(from);
    return items;
  }
  // What a stack entry is as data: a class that was never called stands as its name.
  static c10::IValue value(const Item& item) {
    return item.kind == Item::Kind::kGlobal ? c10::IValue(item.global) : item.value;
  }
  static std::vector<c10::IValue> values(const std::vector<Item>& items) {
    std::vector<c10::IValue> out;
    out.reserve(items.size());
    for (const auto& i : items) out.push_back(value(i));
    return out;
  }
  Dict dict_at_top() {
    Item& t = top();
    if (!t.value.isGenericDict()) fail("sets an item of something that is not a dict");
    return t.value.toGenericDict();
  }
  List list_at_top() {
    Item& t = top();
    if (!t.value.isList()) fail("appends to something that is not a list");
    return t.value.toList();
  }
  // DICT and SETITEMS: key, value, key, value, ...
  void set_items(Dict d, const std::vector<Item>& items) {
    if (items.size() % 2 != 0) fail("sets dict items from an odd number of values");
    for (size_t i = 0; i < items.size(); i += 2) {
      d.insert_or_assign(value(items[i]), value(items[i + 1]));
    }
  }
  void memo_put(uint64_t index) { memo_[index] = top(); }
  void memo_get(uint64_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end()) fail(fmt::format("reads memo entry {}, which it never stored", index));
    push(it->second);
  }

  void step(uint8_t op) {
    switch (op) {
      case 0x80: take(1); break;  // PROTO
      case 0x95: take(8); break;  // FRAME
      case '(': marks_.push_back(stack_.size()); break;
      case '0':  // POP: a value, or the MARK when nothing was pushed after it
        if (stack_.size() == floor() && !marks_.empty()) {
          marks_.pop_back();
        } else {
          pop();
        }
        break;
      case '1': pop_mark(); break;
      case '2': push(top()); break;
      case 'N': push(c10::IValue()); break;
      case 0x88: push(c10::IValue(true)); break;
      case 0x89: push(c10::IValue(false)); break;
      case 'K': push(c10::IValue(static_cast<int64_t>(unsigned_le(1)))); break;
      case 'M': push(c10::IValue(static_cast<int64_t>(unsigned_le(2)))); break;
      case 'J': push(c10::IValue(static_cast<int64_t>(static_cast<int32_t>(unsigned_le(4))))); break;
      case 0x8a: push(c10::IValue(signed_le(unsigned_le(1)))); break;
      case 0x8b: push(c10::IValue(signed_le(unsigned_le(4)))); break;
      case 'I': {
        const std::string s = line();
        if (s == "01" || s == "00") {
          push(c10::IValue(s == "01"));
        } else {
          push(c10::IValue(static_cast<int64_t>(std::stoll(s))));
        }
        break;
      }
      case 'L': push(c10::IValue(static_cast<int64_t>(std::stoll(line())))); break;
      case 'F': push(c10::IValue(std::stod(line()))); break;
      case 'G': {
        const uint8_t* p = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian
        double d;
        std::memcpy(&d, &bits, sizeof d);
        push(c10::IValue(d));
        break;
      }
      case 0x8c: case 'U': case 'C': push(c10::IValue(text(unsigned_le(1)))); break;
      case 'X': case 'T': case 'B': push(c10::IValue(text(unsigned_le(4)))); break;
      case 0x8d: case 0x8e: push(c10::IValue(text(unsigned_le(8)))); break;
      case '}': push(c10::IValue(new_dict())); break;
      case 'd': {
        const auto items = pop_mark();
        Dict d = new_dict();
        set_items(d, items);
        push(c10::IValue(d));
        break;
      }
      case 's': {
        const Item v = pop();
        const Item k = pop();
        dict_at_top().insert_or_assign(value(k), value(v));
        break;
      }
      case 'u': {
        const auto items = pop_mark();
        set_items(dict_at_top(), items);
        break;
      }
      case ']': case 0x8f: push(c10::IValue(new_list())); break;  // lists and sets
      case 'l': case 0x91: {                                         // LIST, FROZENSET
        List l = new_list();
        for (auto& v : values(pop_mark())) l.push_back(std::move(v));
        push(c10::IValue(l));
        break;
      }
      case 'a': {
        const Item v = pop();
        list_at_top().push_back(value(v));
        break;
      }
      case 'e': case 0x90: {  // APPENDS, ADDITEMS
        const auto items = pop_mark();
        List l = list_at_top();
        for (auto& v : values(items)) l.push_back(std::move(v));
        break;
      }
      case ')': push(c10::IValue(c10::ivalue::Tuple::create({}))); break;
      case 't': push(c10::IValue(c10::ivalue::Tuple::create(values(pop_mark())))); break;
      case 0x85: case 0x86: case 0x87: {
        std::vector<Item> items(op - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop();
        push(c10::IValue(c10::ivalue::Tuple::create(values(items))));
        break;
      }
      case 'q': memo_put(unsigned_le(1)); break;
      case 'r': memo_put(unsigned_le(4)); break;
      case 'p': memo_put(std::stoull(line())); break;
      case 0x94: memo_put(memo_.size()); break;
      case 'h': memo_get(unsigned_le(1)); break;
      case 'j': memo_get(unsigned_le(4)); break;
      case 'g': memo_get(std::stoull(line())); break;
      case 'c': {
        std::string module = line();
        // Protocol 2 spells Python 3's builtins with their Python 2 module name.
        if (module == "__builtin__") module = "builtins";
        push(Item{Item::Kind::kGlobal, {}, module + "." + line()});
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        const c10::IValue name = value(pop());
        const c10::IValue module = value(pop());
        if (!name.isString() || !module.isString()) fail("names a class with something not text");
        push(Item{Item::Kind::kGlobal, {}, module.toStringRef() + "." + name.toStringRef()});
        break;
      }
      case 'R': {
        const c10::IValue args = value(pop());
        const Item callable = pop();
        if (callable.kind != Item::Kind::kGlobal) fail("calls something that is not a function");
        if (!args.isTuple()) fail("calls " + callable.global + " without an argument tuple");
        push(call(callable.global, args.toTupleRef().elements().vec()));
        break;
      }
      case 0x81: case 0x92: {  // NEWOBJ, NEWOBJ_EX: cls.__new__(cls, *args)
        if (op == 0x92) pop();  // kwargs
        pop();                  // args
        const Item cls = pop();
        if (cls.kind != Item::Kind::kGlobal) fail("makes an instance of something not a class");
        push(Item{Item::Kind::kInstance, c10::IValue(new_dict()), {}});
        break;
      }
      case 'b': {  // BUILD: an instance's attributes; anything else keeps no state here
        const c10::IValue state = value(pop());
        Item& target = top();
        if (target.kind != Item::Kind::kInstance) break;
        Dict d = target.value.toGenericDict();
        auto merge = [&](const c10::IValue& part) {
          if (!part.isGenericDict()) return;
          for (const auto& e : part.toGenericDict()) d.insert_or_assign(e.key(), e.value());
        };
        if (state.isTuple()) {
          for (const auto& part : state.toTupleRef().elements()) merge(part);
        } else {
          merge(state);
        }
        break;
      }
      case 'Q': push(persistent_load(value(pop()))); break;
      default:
        fail(fmt::format("holds opcode 0x{:02x} at byte {}, which a checkpoint's data never needs",
                         op, pos_ - 1));
    }
  }

  // REDUCE: the few callables torch.save's data pickles use; anything else is code, not data.
  c10::IValue call(const std::string& name, std::vector<c10::IValue> args) {
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      return rebuild_tensor(args);
    }
    if (name == "torch._utils._rebuild_parameter" ||
        name == "torch._utils._rebuild_parameter_with_state") {
      if (args.empty() || !args[0].isTensor()) fail("rebuilds a parameter without its tensor");
      return args[0];
    }
    if (name == "torch._utils._rebuild_from_type_v2") {  // (function, type, args, state)
      if (args.size() < 3 || !args[0].isString() || !args[2].isTuple()) {
        fail("rebuilds a tensor subclass with malformed arguments");
      }
      if (args[0].toStringRef() == name) fail("rebuilds a tensor subclass from itself");
      return call(args[0].toStringRef(), args[2].toTupleRef().elements().vec());
    }
    if (name == "collections.OrderedDict" || name == "builtins.dict") {
      Dict d = new_dict();
      if (!args.empty() && args[0].isList()) {
        for (const auto& pair : args[0].toList()) {
          const c10::IValue p = pair;
          if (!p.isTuple() || p.toTupleRef().elements().size() != 2) {
            fail("builds a dict from something that is not pairs");
          }
          d.insert_or_assign(p.toTupleRef().elements()[0], p.toTupleRef().elements()[1]);
        }
      }
      return c10::IValue(d);
    }
    if (name == "builtins.set" || name == "builtins.frozenset" || name == "torch.Size") {
      return args.empty() ? c10::IValue(new_list()) : args[0];
    }
    if (name == "_codecs.encode" && !args.empty() && args[0].isString()) return args[0];
    if (name == "torch.device" && !args.empty() && args[0].isString()) {
      std::string device = args[0].toStringRef();
      if (args.size() > 1 && args[1].isInt()) device += ":" + std::to_string(args[1].toInt());
      return c10::IValue(c10::Device(device));
    }
    fail("calls " + name +
         "; only data (dicts, lists, numbers, strings, tensors) is read from a Python checkpoint");
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks):
  // a view of the storage; requires_grad and hooks are the training run's, not data.
  c10::IValue rebuild_tensor(const std::vector<c10::IValue>& args) {
    if (args.size() < 4 || !args[0].isTensor() || !args[1].isInt()) {
      fail("rebuilds a tensor with malformed arguments");
    }
    const at::Tensor flat = args[0].toTensor();
    const int64_t offset = args[1].toInt();
    const auto sizes = int_tuple(args[2], "size");
    const auto strides = int_tuple(args[3], "stride");
    if (sizes.size() != strides.size()) fail("rebuilds a tensor whose size and stride disagree");
    int64_t last = offset;  // the last element the view reaches
    bool empty = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] < 0 || strides[i] < 0) fail("rebuilds a tensor with a negative size or stride");
      if (sizes[i] == 0) empty = true;
      int64_t reach = 0;  // (size - 1) * stride: the farthest step along this dimension
      if (sizes[i] > 0 && (__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) ||
                           __builtin_add_overflow(last, reach, &last))) {
        fail("rebuilds a tensor larger than any storage");
      }
    }
    if (offset < 0 || (!empty && last >= flat.numel())) {
      fail(fmt::format("rebuilds a tensor past the end of its storage ({} elements)", flat.numel()));
    }
    return at::empty({0}, flat.options()).set_(flat.storage(), offset, sizes, strides);
  }

  // BINPERSID: ("storage", storage class, key, location, numel); the bytes are the archive's
  // "data/<key>" record. Every tensor is read onto the CPU, as torch.load(map_location="cpu").
  c10::IValue persistent_load(const c10::IValue& pid) {
    if (!pid.isTuple()) fail("refers to a persistent object that is not a tuple");
    const auto& e = pid.toTupleRef().elements();
    if (e.size() < 3 || !e[0].isString() || e[0].toStringRef() != "storage" ||
        !e[1].isString() || !e[2].isString()) {
      fail("refers to a persistent object that is not a tensor storage");
    }
    const std::string key = e[2].toStringRef();
    if (auto it = storages_.find(key); it != storages_.end()) return it->second;
    const c10::ScalarType dtype = storage_dtype(e[1].toStringRef());
    auto [bytes, nbytes] = archive_.getRecord("data/" + key);
    const size_t element = c10::elementSize(dtype);
    if (nbytes % element != 0) {
      fail(fmt::format("stores {} bytes for storage {}, not a whole number of {}", nbytes, key,
                       c10::toString(dtype)));
    }
    c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, std::move(bytes),
                         /*allocator=*/nullptr, /*resizable=*/false);
    const auto numel = static_cast<int64_t>(nbytes / element);
    at::Tensor flat = at::empty({0}, at::TensorOptions().dtype(dtype)).set_(storage, 0, {numel}, {1});
    storages_.emplace(key, flat);
    return flat;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  caffe2::serialize::PyTorchStreamReader& archive_;
  std::vector<Item> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Item> memo_;
  std::unordered_map<std::string, at::Tensor> storages_;
  std::vector<c10::IValue> containers_;
};

}  // namespace

c10::IValue unpickle_python(const uint8_t* data, size_t size,
                            caffe2::serialize::PyTorchStreamReader& archive) {
  return Unpickler(data, size, archive).run();
}

}  // namespace fulgur
