// ComponentRegistry and ComponentList on a registry of their own (not the CLI's): names and
// aliases, entries read from YAML and text, labels, YAML written back, help, and that a failed
// config value leaves the list as it was.
#include "fulgur/cli/component_list.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "fulgur/cli/component_registry.h"
#include "fulgur/errors.h"

namespace fulgur {
namespace {

struct Widget {
  int64_t size = 1;
  std::string color = "red";
};

struct WidgetOptions {
  int64_t size = 1;
  std::string color = "red";
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no ConfigError>";
}

class ComponentListTest : public ::testing::Test {
 protected:
  ComponentListTest() : registry("widget") {
    registry.add<WidgetOptions>(
        "Widget", "a thing with a size",
        [](OptionSchema& a, WidgetOptions& o) {
          a.add("size", o.size, "how big");
          a.add("color", o.color, "what color");
        },
        [](const WidgetOptions& o) -> std::shared_ptr<Widget> {
          if (o.size < 0) throw ConfigError("Widget(size) must be >= 0");
          return std::make_shared<Widget>(Widget{o.size, o.color});
        });
    struct None {};
    registry.add<None>(
        "Gizmo", "a thing without init args", [](OptionSchema&, None&) {},
        [](const None&) { return std::make_shared<Widget>(); });
    registry.add_alias("Gadget", "Widget");
  }

  ComponentRegistry<Widget> registry;
};

TEST_F(ComponentListTest, RegistryNamesAliasesAndFreshArgs) {
  EXPECT_EQ(registry.kind(), "widget");
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"Gadget", "Gizmo", "Widget"}));
  EXPECT_EQ(registry.make_args("Nope"), nullptr);
  auto args = registry.make_args("Gadget");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->class_name(), "Widget");
  EXPECT_EQ(args->init_args().find("size")->default_value, "1");
  args->init_args().set("size", "4");
  EXPECT_EQ(registry.build(*args)->size, 4);
  // Every request gets its own options.
  EXPECT_EQ(registry.build(*registry.make_args("Widget"))->size, 1);

  ComponentArgs stranger("Stranger", "not from a registry");
  EXPECT_EQ(error_of([&] { registry.build(stranger); }), "Stranger is not a widget class");
}

TEST_F(ComponentListTest, ReadsEntriesAndWritesThemBack) {
  ComponentList list({.key = "things"}, registry);
  EXPECT_EQ(list.option_spec("h").type, "list[Widget]");
  list.set_yaml(YAML::Load("- class_path: a.b.Widget\n  init_args: {size: 3}\n"
                           "- class_path: Gizmo\n"),
                "config a.yaml");
  ASSERT_EQ(list.entries().size(), 2u);
  EXPECT_EQ(list.entries()[0].name, "Widget");
  EXPECT_EQ(list.label(1), "things[1]");
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "things" << YAML::Value;
  list.emit_yaml(out);
  out << YAML::EndMap;
  const std::string yaml = out.c_str();
  EXPECT_EQ(yaml,
            "things:\n"
            "  - class_path: Widget\n"
            "    init_args:\n"
            "      size: 3\n"
            "      color: red\n"
            "  - class_path: Gizmo");

  ComponentList again({.key = "things"}, registry);
  again.set_yaml(YAML::Load(yaml)["things"], "config b.yaml");
  ASSERT_EQ(again.entries().size(), 2u);
  EXPECT_EQ(again.entries()[0].args->init_args().find("size")->current(), "3");

  list.set_text(std::nullopt, "");
  EXPECT_TRUE(list.entries().empty());
  list.set_text("Gadget", "");
  ASSERT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(list.entries()[0].name, "Widget");
  list.set_text("[]", "");
  EXPECT_TRUE(list.entries().empty());
}

TEST_F(ComponentListTest, AFailedValueLeavesTheListAsItWas) {
  ComponentList list({.key = "things"}, registry);
  list.set_yaml(YAML::Load("[{class_path: Widget, init_args: {size: 2}}]"), "config a.yaml");
  EXPECT_EQ(error_of([&] {
              list.set_yaml(YAML::Load("[{class_path: Gizmo}, {class_path: Widgt}]"),
                            "config b.yaml");
            }),
            "unknown widget class 'Widgt' for things[1] in config b.yaml; did you mean Widget? "
            "Registered widgets: Gadget, Gizmo, Widget");
  ASSERT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(list.entries()[0].args->init_args().find("size")->current(), "2");
  EXPECT_EQ(error_of([&] { list.set_sub("size", "big", ""); }),
            "invalid value 'big' for things[0].init_args.size: expected int");
  EXPECT_EQ(list.entries()[0].args->init_args().find("size")->current(), "2");
  EXPECT_EQ(error_of([&] {
              list.append("Gizmo", "");
              list.set_sub("size", "1", "");
            }),
            "Gizmo has no init arg 'size' (things[1]); it takes no init args");
}

TEST_F(ComponentListTest, BoolFormWritesALoneEntryAsAMap) {
  ComponentList list({.key = "logger", .accepts_bool = true, .default_enabled = false}, registry);
  EXPECT_EQ(list.option_spec("h").type, "bool|Widget|list[Widget]");
  EXPECT_EQ(list.option_spec("h").default_value, "false");
  EXPECT_FALSE(list.enabled());
  list.set_text("true", "");
  EXPECT_TRUE(list.enabled());
  EXPECT_TRUE(list.entries().empty());
  list.set_text("Widget", "");
  EXPECT_EQ(list.label(0), "logger");
  list.set_sub("color", "blue", "");
  list.append("Gizmo", "");
  EXPECT_EQ(list.label(0), "logger[0]");
  list.set_yaml(YAML::Load("{class_path: Widget, init_args: {size: 5}}"), "config a.yaml");
  YAML::Emitter out;
  list.emit_yaml(out);
  EXPECT_EQ(std::string(out.c_str()), "class_path: Widget\ninit_args:\n  size: 5\n  color: red");
  list.set_yaml(YAML::Load("[]"), "config b.yaml");
  EXPECT_FALSE(list.enabled());
  list.set_yaml(YAML::Load("~"), "config c.yaml");
  EXPECT_TRUE(list.enabled());
  list.reset();
  EXPECT_FALSE(list.enabled());
}

TEST_F(ComponentListTest, HelpListsEachClassWithItsInitArgs) {
  ComponentList list({.key = "things"}, registry);
  EXPECT_EQ(list.catalog_help(),
            "  Gadget  (another name for Widget)\n"
            "  Gizmo  a thing without init args\n"
            "      (no init args)\n"
            "  Widget  a thing with a size\n"
            "      size   int     default: 1    how big\n"
            "      color  string  default: red  what color\n");
}

}  // namespace
}  // namespace fulgur
