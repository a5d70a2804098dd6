#include "fulgur/loggers/tensorboard/event_file_writer.h"

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "fulgur/loggers/file_writes.h"
#include "fulgur/loggers/tensorboard/summaries.h"
#include "fulgur/loggers/tensorboard/tfrecord.h"

namespace fulgur::tensorboard {
namespace {

std::string hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

EventFileWriter::EventFileWriter(const std::string& dir, EventFileWriterOptions options,
                                 std::string owner)
    : options_(std::move(options)), owner_(std::move(owner)) {
  const double now = wall_time_now();
  const std::string stem =
      fmt::format("events.out.tfevents.{:010d}.{}.{}.", static_cast<long long>(std::floor(now)),
                  hostname(), static_cast<long long>(::getpid()));
  // Another writer of this process may have taken the name within the same second.
  for (int counter = 0;; ++counter) {
    std::string candidate = (std::filesystem::path(dir) /
                             fmt::format("{}{}{}", stem, counter, options_.filename_suffix))
                                .string();
    if (create_new_file(candidate, owner_)) {
      path_ = std::move(candidate);
      break;
    }
  }
  append_tfrecord(pending_, file_version_event(now));
  pending_events_ = 1;
  flush();
}

EventFileWriter::~EventFileWriter() {
  try {
    flush();
  } catch (const std::exception& e) {
    // Losing events silently would be worse than a line on stderr.
    std::cerr << "fulgur: " << e.what() << '\n';
  }
}

void EventFileWriter::add(std::string_view event) {
  append_tfrecord(pending_, event);
  ++pending_events_;
  const auto since_flush = std::chrono::steady_clock::now() - last_flush_;
  if (pending_events_ >= options_.max_queue ||
      since_flush >= std::chrono::duration<double>(options_.flush_secs)) {
    flush();
  }
}

void EventFileWriter::flush() {
  if (!pending_.empty()) {
    append_to_file(path_, pending_, owner_);
    pending_.clear();
    pending_events_ = 0;
  }
  last_flush_ = std::chrono::steady_clock::now();
}

}  // namespace fulgur::tensorboard
