#pragma once
// Reads the entries of a saved LR scheduler state that LRScheduler does not check itself
// (strings, flags, lists, nested states), for the schedulers' check_extra_state and
// load_extra_state. Anything missing or of the wrong kind is the CheckpointError that
// LRScheduler::load_state_dict raises: "<source>: the state of scheduler <name> <what>".
#include <ATen/core/Dict.h>
#include <ATen/core/List.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fulgur {

class SchedulerStateReader {
 public:
  // `scheduler` is the scheduler's name(). The reader holds its own handle on `state` (a Dict
  // is shared, not copied), so a temporary such as item.toGenericDict() is safe to pass.
  SchedulerStateReader(const c10::impl::GenericDict& state, std::string source,
                       std::string scheduler);

  [[noreturn]] void fail(const std::string& what) const;
  const std::string& source() const { return source_; }

  double number(const char* key) const;
  int64_t integer(const char* key) const;
  bool flag(const char* key) const;
  // One of `allowed`.
  std::string choice(const char* key, const std::vector<std::string>& allowed) const;
  // `count` numbers, one per param group.
  std::vector<double> numbers(const char* key, size_t count) const;
  std::vector<int64_t> integers(const char* key) const;
  c10::impl::GenericList list(const char* key) const;
  c10::impl::GenericDict dict(const char* key) const;

 private:
  c10::IValue at(const char* key) const;

  c10::impl::GenericDict state_;
  std::string source_;
  std::string scheduler_;
};

}  // namespace fulgur
