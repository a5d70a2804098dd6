#pragma once
// Serialized TensorBoard Events for what fulgur's TensorBoardLogger writes, shaped as PyTorch's
// SummaryWriter shapes them (torch.utils.tensorboard.summary), so TensorBoard shows a fulgur
// run as it shows a Lightning one. This is the only place that touches the generated protobuf
// classes; everything else passes serialized bytes. Strings that are not valid UTF-8 have the
// bad bytes replaced by U+FFFD: TensorBoard's Python reader rejects a whole record otherwise.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fulgur/hparams.h"

namespace fulgur::tensorboard {

// The clock Events carry: seconds since the Unix epoch, as Python's time.time().
double wall_time_now();

// The first record of every event file: file_version "brain.Event:2" at step 0.
std::string file_version_event(double wall_time);

// One Event at `step` with a simple_value (32-bit, TensorBoard's scalar type) per tag.
std::string scalars_event(double wall_time, int64_t step,
                          const std::vector<std::pair<std::string, double>>& scalars);

// SummaryWriter.add_text: plugin "text", a DT_STRING tensor of shape [1] holding `text`, under
// the tag "<tag>/text_summary".
std::string text_event(double wall_time, int64_t step, const std::string& tag,
                       const std::string& text);

// torch.utils.tensorboard.summary.hparams: three Events at step 0 for the hparams plugin, in
// the order Lightning writes them: the experiment (each hparam's name and type, the metrics'
// tags), session_start_info (the values) and session_end_info (STATUS_SUCCESS). Numbers and
// booleans become numbers (torch tests for int before bool), strings stay strings.
std::vector<std::string> hparams_events(double wall_time, const HParams& params,
                                        const std::vector<std::string>& metric_tags);

}  // namespace fulgur::tensorboard
