#include "fulgur/loggers/tensorboard/summaries.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <chrono>
#include <limits>
#include <string_view>
#include <variant>

#include "fulgur/errors.h"
#include "fulgur/loggers/tensorboard/event.pb.h"

namespace fulgur::tensorboard {
namespace {

namespace pb = fulgur::tensorboard::proto;

// TensorBoard's names (tensorboard/plugins/hparams/metadata.py, plugins/text).
constexpr const char* kFileVersion = "brain.Event:2";
constexpr const char* kTextPlugin = "text";
constexpr const char* kTextTagSuffix = "/text_summary";
constexpr const char* kHParamsPlugin = "hparams";
constexpr const char* kExperimentTag = "_hparams_/experiment";
constexpr const char* kSessionStartInfoTag = "_hparams_/session_start_info";
constexpr const char* kSessionEndInfoTag = "_hparams_/session_end_info";
constexpr int kPluginDataVersion = 0;

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Length of the well-formed UTF-8 sequence at the start of `s` (0 when there is none), by
// the rules Python's decoder applies: no overlong forms, surrogates or code points past
// U+10FFFF.
size_t utf8_sequence_length(std::string_view s) {
  auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t length = utf8_sequence_length(text);
    if (length == 0) {
      out += kReplacementCharacter;
      length = 1;
    } else {
      out += text.substr(0, length);
    }
    text.remove_prefix(length);
  }
  return out;
}

// Deterministic, so a map (the hparams) is written in key order and the same call always
// produces the same bytes.
std::string serialize(const google::protobuf::MessageLite& message) {
  // Also caches the sizes SerializeWithCachedSizes relies on.
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw ConfigError(fmt::format(
        "TensorBoardLogger cannot write a record of {} bytes: protobuf messages are limited to "
        "2 GiB; log less at once (a shorter text)",
        size));
  }
  std::string bytes;
  bytes.reserve(size);
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
  }
  return bytes;
}

pb::Event event_at(double wall_time, int64_t step) {
  pb::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  return event;
}

std::string hparams_event(double wall_time, const std::string& tag,
                          const pb::HParamsPluginData& content) {
  pb::Event event = event_at(wall_time, 0);
  pb::Summary::Value* value = event.mutable_summary()->add_value();
  value->set_tag(tag);
  pb::SummaryMetadata::PluginData* plugin = value->mutable_metadata()->mutable_plugin_data();
  plugin->set_plugin_name(kHParamsPlugin);
  plugin->set_content(serialize(content));
  return serialize(event);
}

}  // namespace

double wall_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string file_version_event(double wall_time) {
  pb::Event event = event_at(wall_time, 0);
  event.set_file_version(kFileVersion);
  return serialize(event);
}

std::string scalars_event(double wall_time, int64_t step,
                          const std::vector<std::pair<std::string, double>>& scalars) {
  pb::Event event = event_at(wall_time, step);
  pb::Summary* summary = event.mutable_summary();
  for (const auto& [tag, number] : scalars) {
    pb::Summary::Value* value = summary->add_value();
    value->set_tag(valid_utf8(tag));
    value->set_simple_value(static_cast<float>(number));
  }
  return serialize(event);
}

std::string text_event(double wall_time, int64_t step, const std::string& tag,
                       const std::string& text) {
  pb::Event event = event_at(wall_time, step);
  pb::Summary::Value* value = event.mutable_summary()->add_value();
  value->set_tag(valid_utf8(tag + kTextTagSuffix));
  pb::TextPluginData content;
  content.set_version(0);
  pb::SummaryMetadata::PluginData* plugin = value->mutable_metadata()->mutable_plugin_data();
  plugin->set_plugin_name(kTextPlugin);
  plugin->set_content(serialize(content));
  pb::TensorProto* tensor = value->mutable_tensor();
  tensor->set_dtype(pb::DT_STRING);
  tensor->mutable_tensor_shape()->add_dim()->set_size(1);
  tensor->add_string_val(valid_utf8(text));
  return serialize(event);
}

std::vector<std::string> hparams_events(double wall_time, const HParams& params,
                                        const std::vector<std::string>& metric_tags) {
  pb::HParamsPluginData experiment;
  experiment.set_version(kPluginDataVersion);
  pb::HParamsPluginData start;
  start.set_version(kPluginDataVersion);
  auto* values = start.mutable_session_start_info()->mutable_hparams();
  for (const auto& [key, value] : params) {
    const std::string name = valid_utf8(key);
    pb::HParamInfo* info = experiment.mutable_experiment()->add_hparam_infos();
    info->set_name(name);
    pb::HParamValue& stored = (*values)[name];
    if (const auto* text = std::get_if<std::string>(&value)) {
      info->set_type(pb::DATA_TYPE_STRING);
      stored.set_string_value(valid_utf8(*text));
    } else {
      info->set_type(pb::DATA_TYPE_FLOAT64);
      stored.set_number_value(std::visit(
          [](const auto& v) -> double {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
              return 0;  // handled above
            else
              return static_cast<double>(v);
          },
          value));
    }
  }
  for (const std::string& tag : metric_tags) {
    experiment.mutable_experiment()->add_metric_infos()->mutable_name()->set_tag(valid_utf8(tag));
  }
  pb::HParamsPluginData end;
  end.set_version(kPluginDataVersion);
  end.mutable_session_end_info()->set_status(pb::STATUS_SUCCESS);

  return {hparams_event(wall_time, kExperimentTag, experiment),
          hparams_event(wall_time, kSessionStartInfoTag, start),
          hparams_event(wall_time, kSessionEndInfoTag, end)};
}

}  // namespace fulgur::tensorboard
