// OptionSchema: binding, setting with error texts, YAML in and out, help lines.
#include "fulgur/cli/option_schema.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "fulgur/errors.h"

namespace fulgur {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no ConfigError>";
}

struct Fields {
  double lr = 1e-3;
  int64_t hidden = 128;
  std::string name = "cnn";
  bool flag = false;
  std::optional<int64_t> epochs;
  BatchCount limit = 1.0;
};

class OptionSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema.add("model.lr", f.lr, "learning rate");
    schema.add("model.hidden", f.hidden, "hidden units");
    schema.add("model.name", f.name, "a name");
    schema.add("flag", f.flag, "a switch");
    schema.add("trainer.max_epochs", f.epochs, "epochs");
    schema.add("trainer.limit_train_batches", f.limit, "limit");
  }
  Fields f;
  OptionSchema schema;
};

TEST_F(OptionSchemaTest, RecordsTypeAndDefaultAtBindTime) {
  const OptionSpec* lr = schema.find("model.lr");
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(lr->type, "float");
  EXPECT_EQ(lr->default_value, "0.001");
  schema.set("model.lr", "0.5");
  EXPECT_DOUBLE_EQ(f.lr, 0.5);
  EXPECT_EQ(lr->default_value, "0.001");  // the default stays what it was
  EXPECT_EQ(lr->current(), "0.5");
  EXPECT_EQ(schema.find("trainer.max_epochs")->type, "int|null");
  EXPECT_FALSE(schema.find("trainer.max_epochs")->default_value.has_value());
}

TEST_F(OptionSchemaTest, UnknownKeyNamesTheNearestKey) {
  EXPECT_EQ(error_of([&] { schema.set("trainer.max_epoch", "3"); }),
            "unknown option --trainer.max_epoch; did you mean --trainer.max_epochs?");
  EXPECT_EQ(error_of([&] { schema.set("trainer.max_epoch", "3", "config a.yaml"); }),
            "unknown option trainer.max_epoch in config a.yaml; did you mean trainer.max_epochs?");
  EXPECT_EQ(error_of([&] { schema.set("zzzzzzzz.qqqq", "3"); }),
            "unknown option --zzzzzzzz.qqqq; run with --help to list the options");
}

TEST_F(OptionSchemaTest, BadValueNamesKeyValueAndTypeAndKeepsTheField) {
  EXPECT_EQ(error_of([&] { schema.set("model.hidden", "many"); }),
            "invalid value 'many' for --model.hidden: expected int");
  EXPECT_EQ(f.hidden, 128);
  EXPECT_EQ(error_of([&] { schema.set("trainer.max_epochs", "3.5", "config b.yaml"); }),
            "invalid value '3.5' for trainer.max_epochs in config b.yaml: expected int|null");
  EXPECT_EQ(error_of([&] { schema.set("model.lr", std::nullopt); }),
            "invalid value null for --model.lr: expected float (null is not allowed here)");
  EXPECT_EQ(error_of([&] { schema.set("trainer.limit_train_batches", "1.5"); }),
            "invalid value '1.5' for --trainer.limit_train_batches: expected int|float (a "
            "fraction must lie in [0.0, 1.0]; write an integer for a count)");
  EXPECT_DOUBLE_EQ(std::get<double>(f.limit.value), 1.0);
}

TEST_F(OptionSchemaTest, DuplicateKeyIsRejected) {
  double other = 0;
  EXPECT_THROW(schema.add("model.lr", other, "again"), ConfigError);
}

TEST_F(OptionSchemaTest, YamlSetsNestedKeysNullsAndLists) {
  schema.set("trainer.max_epochs", "4");
  schema.set_from_yaml("model:\n  lr: 0.01\n  name: mlp\ntrainer:\n  max_epochs: null\nflag: yes\n",
                       "config c.yaml");
  EXPECT_DOUBLE_EQ(f.lr, 0.01);
  EXPECT_EQ(f.name, "mlp");
  EXPECT_FALSE(f.epochs.has_value());
  EXPECT_TRUE(f.flag);
  // An empty section is no error; a file with nothing in it sets nothing.
  schema.set_from_yaml("trainer:\n", "config d.yaml");
  schema.set_from_yaml("", "config e.yaml");
  EXPECT_EQ(error_of([&] {
              schema.set_from_yaml("model: [1, 2", "config f.yaml");
            }).rfind("config f.yaml is not valid YAML", 0),
            0u);
  EXPECT_EQ(error_of([&] { schema.set_from_yaml("- 1\n- 2\n", "config g.yaml"); }),
            "config g.yaml must hold a mapping such as 'trainer: {max_epochs: 3}'");
  EXPECT_EQ(error_of([&] { schema.set_from_yaml("model: {lrr: 0.1}", "config h.yaml"); }),
            "unknown option model.lrr in config h.yaml; did you mean model.lr?");
}

TEST_F(OptionSchemaTest, ToYamlRoundTrips) {
  schema.set("model.lr", "0.0003");
  schema.set("model.name", "");
  schema.set("trainer.limit_train_batches", "60");
  const std::string yaml = schema.to_yaml();
  EXPECT_NE(yaml.find("model:\n  lr: 0.0003\n  hidden: 128\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("max_epochs: null"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("limit_train_batches: 60"), std::string::npos) << yaml;

  Fields g;
  OptionSchema other;
  other.add("model.lr", g.lr, "");
  other.add("model.hidden", g.hidden, "");
  other.add("model.name", g.name, "");
  other.add("flag", g.flag, "");
  other.add("trainer.max_epochs", g.epochs, "");
  other.add("trainer.limit_train_batches", g.limit, "");
  other.set_from_yaml(yaml, "config round.yaml");
  EXPECT_EQ(other.to_yaml(), yaml);
  EXPECT_DOUBLE_EQ(g.lr, 0.0003);
  EXPECT_EQ(g.name, "");
  ASSERT_FALSE(g.limit.is_fraction());
  EXPECT_EQ(std::get<int64_t>(g.limit.value), 60);
}

TEST_F(OptionSchemaTest, StringsThatLookLikeOtherThingsSurviveYaml) {
  for (const char* text : {"null", "true", "3", "a: b", "#x", "[1]", "1.0"}) {
    schema.set("model.name", std::string(text));
    const std::string yaml = schema.to_yaml();
    f.name = "changed";
    schema.set_from_yaml(yaml, "config s.yaml");
    EXPECT_EQ(f.name, text) << yaml;
  }
}

TEST_F(OptionSchemaTest, HelpListsEveryKeyWithTypeAndDefault) {
  const std::string help = schema.help_table();
  EXPECT_NE(help.find("--model.lr"), std::string::npos);
  for (const auto& option : schema.options()) {
    const auto line_start = help.find("--" + option.key + " ");
    ASSERT_NE(line_start, std::string::npos) << option.key;
    const std::string line = help.substr(line_start, help.find('\n', line_start) - line_start);
    EXPECT_NE(line.find(option.type), std::string::npos) << line;
    EXPECT_NE(line.find("default: " + option.default_value.value_or("null")), std::string::npos)
        << line;
    EXPECT_NE(line.find(option.help), std::string::npos) << line;
  }
}

TEST_F(OptionSchemaTest, MoveToEndKeepsAKeyLast) {
  schema.move_to_end("model.lr");
  EXPECT_EQ(schema.options().back().key, "model.lr");
  EXPECT_EQ(schema.options().front().key, "model.hidden");
}

TEST_F(OptionSchemaTest, HelpTableTakesAnIndentAndAKeyPrefix) {
  OptionSchema args;
  int64_t patience = 3;
  args.add("patience", patience, "checks to wait");
  EXPECT_EQ(args.help_table("    ", ""), "    patience  int  default: 3  checks to wait\n");
  EXPECT_EQ(args.help_table(), "  --patience  int  default: 3  checks to wait\n");
}

// Records what the schema hands a structured option.
struct RecordingOption : StructuredOption {
  std::vector<std::string> calls;
  void set_text(const OptionText& text, const std::string& origin) override {
    calls.push_back("text " + text.value_or("<null>") + " @" + origin);
  }
  void set_yaml(const YAML::Node& value, const std::string& origin) override {
    calls.push_back("yaml " + YAML::Dump(value) + " @" + origin);
  }
  void append(const OptionText& text, const std::string& origin) override {
    calls.push_back("append " + text.value_or("<null>") + " @" + origin);
  }
  void set_sub(const std::string& sub, const OptionText& text, const std::string& origin) override {
    calls.push_back("sub " + sub + "=" + text.value_or("<null>") + " @" + origin);
  }
  void emit_yaml(YAML::Emitter& out) const override {
    out << YAML::Flow << YAML::BeginSeq << "x" << YAML::EndSeq;
  }
};

TEST_F(OptionSchemaTest, StructuredOptionsGetTheirValueWholeAndTheKeysBelow) {
  RecordingOption list;
  schema.add(OptionSpec{.key = "trainer.things",
                        .type = "list[Thing]",
                        .help = "things",
                        .default_value = std::nullopt,
                        .assign = [](const OptionText&) {},
                        .current = [] { return OptionText(); },
                        .structured = &list});
  EXPECT_TRUE(schema.accepts("trainer.things"));
  EXPECT_TRUE(schema.accepts("trainer.things+"));
  EXPECT_TRUE(schema.accepts("trainer.things.size"));
  EXPECT_TRUE(schema.accepts("trainer.things.init_args.size"));
  EXPECT_FALSE(schema.accepts("trainer.thingsx"));
  EXPECT_FALSE(schema.accepts("model.lr+"));

  schema.set("trainer.things", "A");
  schema.set("trainer.things+", "B");
  schema.set("trainer.things.size", "3");
  schema.set("trainer.things.init_args.size", std::nullopt, "config a.yaml");
  schema.set_from_yaml("trainer:\n  things:\n    - {class_path: C}\n  max_epochs: 2\n",
                       "config b.yaml");
  EXPECT_EQ(list.calls, (std::vector<std::string>{
                            "text A @",
                            "append B @",
                            "sub size=3 @",
                            "sub init_args.size=<null> @config a.yaml",
                            "yaml - {class_path: C} @config b.yaml",
                        }));
  EXPECT_EQ(f.epochs, 2);
  EXPECT_NE(schema.to_yaml().find("  things: [x]\n"), std::string::npos) << schema.to_yaml();

  EXPECT_EQ(error_of([&] { schema.set("trainer.max_epochs+", "3"); }),
            "option --trainer.max_epochs holds a single value; write --trainer.max_epochs=VALUE "
            "(+= only appends to lists)");
  EXPECT_EQ(error_of([&] { schema.set("trainer.thing+", "A"); }),
            "unknown option --trainer.thing+; did you mean --trainer.things+?");
  EXPECT_EQ(error_of([&] { schema.set("trainer.thing+", "A", "config c.yaml"); }),
            "unknown option trainer.thing+ in config c.yaml; did you mean trainer.things+?");
}

}  // namespace
}  // namespace fulgur
