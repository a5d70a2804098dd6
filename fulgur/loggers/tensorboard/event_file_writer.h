#pragma once
// EventFileWriter: one TensorBoard event file in an existing directory, named as TensorBoard
// names it, events.out.tfevents.<unix seconds, 10 digits>.<hostname>.<pid>.<n><suffix>, where
// n counts up from 0 until the name is free. Its first record, the file_version event, is on
// disk when the constructor returns. Later events are framed as TFRecords and buffered in
// memory; the buffer is appended in one write, so the file always ends with a whole record,
// when it holds `max_queue` events, when an event arrives `flush_secs` or more after the last
// write, on flush() and on destruction. There is no timer thread: the loggers are called
// regularly from the training loop, and an error then surfaces as an exception at the call.
#include <chrono>
#include <string>
#include <string_view>

namespace fulgur::tensorboard {

struct EventFileWriterOptions {
  int max_queue = 10;       // >= 1
  double flush_secs = 120;  // >= 0; 0 writes every event at once
  std::string filename_suffix;
};

class EventFileWriter {
 public:
  // `owner` names the logger in error messages. Raises Error when the file cannot be created.
  EventFileWriter(const std::string& dir, EventFileWriterOptions options, std::string owner);
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;
  // Flushes; an error then goes to stderr, since a destructor cannot throw.
  ~EventFileWriter();

  // Queues one serialized Event.
  void add(std::string_view event);
  // Appends what is queued; on failure it stays queued for the next try.
  void flush();
  const std::string& path() const { return path_; }

 private:
  EventFileWriterOptions options_;
  std::string owner_;
  std::string path_;
  std::string pending_;  // framed records not yet in the file
  int pending_events_ = 0;
  std::chrono::steady_clock::time_point last_flush_;
};

}  // namespace fulgur::tensorboard
