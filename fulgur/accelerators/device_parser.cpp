#include "fulgur/accelerators/device_parser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <optional>
#include <set>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

constexpr const char* kAllowed =
    "a positive count (2), -1 for all, \"auto\", a string of ids (\"0,1\" or \"1,\") or a list "
    "of distinct ids ({0, 1})";

std::vector<int> first_n(int n) {
  std::vector<int> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

std::string machine_has(int available, const std::string& accelerator) {
  if (available <= 0) return fmt::format("this machine has no {} devices", accelerator);
  return fmt::format("this machine has {} {} device{}: {}", available, accelerator,
                     available == 1 ? "" : "s", format_ids(first_n(available)));
}

// A non-negative decimal integer, or nothing.
std::optional<int> parse_index(std::string text) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
  text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
  if (text.empty() || text.size() > 9) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoi(text);
}

ConfigError invalid(const Devices& devices, const std::string& why) {
  return ConfigError(fmt::format("devices={} {}; use {}", devices.to_string(), why, kAllowed));
}

std::vector<int> all_devices(const Devices& devices, int available,
                             const std::string& accelerator) {
  if (available <= 0) {
    throw ConfigError(fmt::format("devices={} asks for every {} device, but {}",
                                  devices.to_string(), accelerator,
                                  machine_has(available, accelerator)));
  }
  return first_n(available);
}

std::vector<int> count(const Devices& devices, int n, int available,
                       const std::string& accelerator) {
  if (n == -1) return all_devices(devices, available, accelerator);
  if (n == 0) throw invalid(devices, "selects no devices");
  if (n < 0) throw invalid(devices, "is negative (only -1, meaning all, is allowed)");
  if (n > available) {
    throw ConfigError(fmt::format("devices={} asks for {} {} device{}, but {}", devices.to_string(),
                                  n, accelerator, n == 1 ? "" : "s",
                                  machine_has(available, accelerator)));
  }
  return first_n(n);
}

std::vector<int> check_ids(const Devices& devices, std::vector<int> ids, int available,
                           const std::string& accelerator) {
  if (ids.empty()) throw invalid(devices, "selects no devices");
  for (int id : ids) {
    if (id < 0) throw invalid(devices, fmt::format("holds the negative id {}", id));
  }
  std::set<int> seen;
  for (int id : ids) {
    if (!seen.insert(id).second) {
      throw ConfigError(
          fmt::format("devices={}: device ids must be unique, but {} appears "
                      "more than once; list each device once",
                      devices.to_string(), id));
    }
  }
  for (int id : ids) {
    if (id >= available) {
      throw ConfigError(fmt::format("devices={} asks for {} device {}, but {}", devices.to_string(),
                                    accelerator, id, machine_has(available, accelerator)));
    }
  }
  return ids;
}

}  // namespace

std::string format_ids(const std::vector<int>& ids) {
  return fmt::format("[{}]", fmt::join(ids, ", "));
}

std::vector<int> parse_gpu_ids(const Devices& devices, int available,
                               const std::string& accelerator) {
  if (const auto* n = std::get_if<int>(&devices.value)) {
    return count(devices, *n, available, accelerator);
  }
  if (const auto* ids = std::get_if<std::vector<int>>(&devices.value)) {
    return check_ids(devices, *ids, available, accelerator);
  }
  const auto& text = std::get<std::string>(devices.value);
  if (text == "auto") return all_devices(devices, available, accelerator);
  if (text.find(',') != std::string::npos) {
    // "0,1" and "1," are id lists; empty pieces (a trailing comma) are ignored.
    std::vector<int> ids;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      std::string piece = text.substr(start, end - start);
      if (piece.find_first_not_of(" \t") != std::string::npos) {
        auto id = parse_index(piece);
        if (!id)
          throw invalid(devices, fmt::format("holds \"{}\", which is not a device id", piece));
        ids.push_back(*id);
      }
      start = end + 1;
    }
    return check_ids(devices, std::move(ids), available, accelerator);
  }
  auto stripped = text;
  stripped.erase(0, stripped.find_first_not_of(" \t"));
  if (stripped.rfind('-', 0) == 0) {
    auto rest = parse_index(stripped.substr(1));
    if (rest) return count(devices, -*rest, available, accelerator);
  }
  auto n = parse_index(text);
  if (!n) throw invalid(devices, "is not a number of devices nor a list of device ids");
  return count(devices, *n, available, accelerator);
}

}  // namespace fulgur
