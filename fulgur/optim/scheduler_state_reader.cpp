#include "fulgur/optim/scheduler_state_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fulgur/errors.h"

namespace fulgur {

SchedulerStateReader::SchedulerStateReader(const c10::impl::GenericDict& state, std::string source,
                                           std::string scheduler)
    : state_(state), source_(std::move(source)), scheduler_(std::move(scheduler)) {}

void SchedulerStateReader::fail(const std::string& what) const {
  throw CheckpointError(fmt::format("{}: the state of scheduler {} {}", source_, scheduler_, what));
}

c10::IValue SchedulerStateReader::at(const char* key) const {
  auto it = state_.find(key);
  if (it == state_.end()) {
    fail(fmt::format("has no \"{}\"; was it saved from another scheduler?", key));
  }
  return it->value();
}

double SchedulerStateReader::number(const char* key) const {
  const c10::IValue v = at(key);
  if (v.isDouble()) return v.toDouble();
  if (v.isInt()) return static_cast<double>(v.toInt());
  fail(fmt::format("has a {} in \"{}\", not a number", v.tagKind(), key));
}

int64_t SchedulerStateReader::integer(const char* key) const {
  const c10::IValue v = at(key);
  if (!v.isInt()) fail(fmt::format("has a {} in \"{}\", not an int", v.tagKind(), key));
  return v.toInt();
}

bool SchedulerStateReader::flag(const char* key) const {
  const c10::IValue v = at(key);
  if (!v.isBool()) fail(fmt::format("has a {} in \"{}\", not a bool", v.tagKind(), key));
  return v.toBool();
}

std::string SchedulerStateReader::choice(const char* key,
                                         const std::vector<std::string>& allowed) const {
  const c10::IValue v = at(key);
  if (!v.isString()) fail(fmt::format("has a {} in \"{}\", not a string", v.tagKind(), key));
  const std::string& value = v.toStringRef();
  for (const std::string& option : allowed) {
    if (value == option) return value;
  }
  std::vector<std::string> quoted;
  for (const std::string& option : allowed) quoted.push_back(fmt::format("\"{}\"", option));
  fail(
      fmt::format("has \"{}\" in \"{}\"; expected one of {}", value, key, fmt::join(quoted, ", ")));
}

std::vector<double> SchedulerStateReader::numbers(const char* key, size_t count) const {
  const c10::IValue v = at(key);
  if (!v.isList()) fail(fmt::format("has a {} in \"{}\", not a list", v.tagKind(), key));
  std::vector<double> values;
  for (const c10::IValue& item : v.toListRef()) {
    if (!item.isDouble() && !item.isInt()) {
      fail(fmt::format("has a non-number in \"{}\"", key));
    }
    values.push_back(item.isDouble() ? item.toDouble() : static_cast<double>(item.toInt()));
  }
  if (values.size() != count) {
    fail(fmt::format("has {} values in \"{}\" for an optimizer with {} param groups", values.size(),
                     key, count));
  }
  return values;
}

std::vector<int64_t> SchedulerStateReader::integers(const char* key) const {
  const c10::IValue v = at(key);
  if (!v.isList()) fail(fmt::format("has a {} in \"{}\", not a list", v.tagKind(), key));
  std::vector<int64_t> values;
  for (const c10::IValue& item : v.toListRef()) {
    if (!item.isInt()) fail(fmt::format("has a non-int in \"{}\"", key));
    values.push_back(item.toInt());
  }
  return values;
}

c10::impl::GenericList SchedulerStateReader::list(const char* key) const {
  const c10::IValue v = at(key);
  if (!v.isList()) fail(fmt::format("has a {} in \"{}\", not a list", v.tagKind(), key));
  return v.toList();
}

c10::impl::GenericDict SchedulerStateReader::dict(const char* key) const {
  const c10::IValue v = at(key);
  if (!v.isGenericDict()) fail(fmt::format("has a {} in \"{}\", not a dict", v.tagKind(), key));
  return v.toGenericDict();
}

}  // namespace fulgur
