// Text <-> typed value for every option type the CLI binds.
#include "fulgur/cli/option_traits.h"

#include <gtest/gtest.h>

namespace fulgur {
namespace {

template <typename T>
T parse(const char* text) {
  return OptionTraits<T>::parse(std::string(text));
}

TEST(OptionTraits, BoolAcceptsYamlWordsCaseInsensitively) {
  EXPECT_TRUE(parse<bool>("true"));
  EXPECT_TRUE(parse<bool>("True"));
  EXPECT_TRUE(parse<bool>("yes"));
  EXPECT_TRUE(parse<bool>("1"));
  EXPECT_FALSE(parse<bool>("false"));
  EXPECT_FALSE(parse<bool>("OFF"));
  EXPECT_FALSE(parse<bool>("0"));
  EXPECT_THROW(parse<bool>("maybe"), OptionParseError);
  EXPECT_THROW(OptionTraits<bool>::parse(std::nullopt), OptionParseError);
}

TEST(OptionTraits, IntegersMustMatchWholly) {
  EXPECT_EQ(parse<int64_t>("42"), 42);
  EXPECT_EQ(parse<int64_t>("-1"), -1);
  EXPECT_EQ(parse<int64_t>("+7"), 7);
  EXPECT_EQ(parse<int64_t>(" 5 "), 5);
  EXPECT_THROW(parse<int64_t>("3x"), OptionParseError);
  EXPECT_THROW(parse<int64_t>("3.0"), OptionParseError);
  EXPECT_THROW(parse<int64_t>(""), OptionParseError);
  EXPECT_THROW(parse<int>("99999999999"), OptionParseError);
  EXPECT_THROW(parse<uint64_t>("-3"), OptionParseError);
  EXPECT_EQ(parse<uint64_t>("18446744073709551615"), UINT64_MAX);
}

TEST(OptionTraits, FloatsParseAndRenderRecognisably) {
  EXPECT_DOUBLE_EQ(parse<double>("1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(parse<double>("0.25"), 0.25);
  EXPECT_DOUBLE_EQ(parse<double>("2"), 2.0);
  EXPECT_THROW(parse<double>("fast"), OptionParseError);
  EXPECT_THROW(parse<double>("inf"), OptionParseError);
  EXPECT_EQ(render_float(1.0), "1.0");
  EXPECT_EQ(render_float(0.001), "0.001");
  EXPECT_EQ(render_float(0.25), "0.25");
  EXPECT_DOUBLE_EQ(parse<double>(render_float(1e-5).c_str()), 1e-5);
}

TEST(OptionTraits, BatchCountIntegerIsCountOtherwiseFraction) {
  BatchCount count = parse<BatchCount>("60");
  ASSERT_FALSE(count.is_fraction());
  EXPECT_EQ(std::get<int64_t>(count.value), 60);

  BatchCount one = parse<BatchCount>("1");
  ASSERT_FALSE(one.is_fraction());
  EXPECT_EQ(std::get<int64_t>(one.value), 1);

  BatchCount all = parse<BatchCount>("1.0");
  ASSERT_TRUE(all.is_fraction());
  EXPECT_DOUBLE_EQ(std::get<double>(all.value), 1.0);

  BatchCount quarter = parse<BatchCount>("0.25");
  ASSERT_TRUE(quarter.is_fraction());
  EXPECT_DOUBLE_EQ(std::get<double>(quarter.value), 0.25);

  EXPECT_TRUE(parse<BatchCount>("1e-1").is_fraction());
  EXPECT_THROW(parse<BatchCount>("1.5"), OptionParseError);
  EXPECT_THROW(parse<BatchCount>("-2"), OptionParseError);
  EXPECT_THROW(parse<BatchCount>("half"), OptionParseError);

  EXPECT_EQ(OptionTraits<BatchCount>::render(BatchCount(1.0)), "1.0");
  EXPECT_EQ(OptionTraits<BatchCount>::render(BatchCount(1)), "1");
  EXPECT_EQ(OptionTraits<BatchCount>::render(BatchCount(0.5)), "0.5");
}

TEST(OptionTraits, DevicesKeepLightningsForms) {
  EXPECT_EQ(std::get<std::string>(parse<Devices>("auto").value), "auto");
  EXPECT_EQ(std::get<int>(parse<Devices>("2").value), 2);
  EXPECT_EQ(std::get<int>(parse<Devices>("-1").value), -1);
  EXPECT_EQ(std::get<std::string>(parse<Devices>("0,1").value), "0,1");
  EXPECT_EQ(std::get<std::string>(parse<Devices>("1,").value), "1,");
  EXPECT_EQ(std::get<std::vector<int>>(parse<Devices>("[0, 1]").value), (std::vector<int>{0, 1}));
  EXPECT_TRUE(std::get<std::vector<int>>(parse<Devices>("[]").value).empty());
  EXPECT_THROW(parse<Devices>("gpu"), OptionParseError);
  EXPECT_THROW(parse<Devices>("-2"), OptionParseError);
  EXPECT_THROW(parse<Devices>("[0, x]"), OptionParseError);

  EXPECT_EQ(OptionTraits<Devices>::render(Devices(std::vector<int>{0, 1})), "[0, 1]");
  EXPECT_EQ(OptionTraits<Devices>::render(Devices("0,1")), "0,1");
  EXPECT_EQ(OptionTraits<Devices>::render(Devices(3)), "3");
}

TEST(OptionTraits, SaveLastIsBoolOrLink) {
  EXPECT_EQ(parse<SaveLast>("true"), SaveLast(true));
  EXPECT_EQ(parse<SaveLast>("false"), SaveLast(false));
  EXPECT_EQ(parse<SaveLast>("link"), SaveLast::link());
  EXPECT_EQ(OptionTraits<SaveLast>::parse(std::nullopt), SaveLast(false));  // Lightning's None
  EXPECT_THROW(parse<SaveLast>("symlink"), OptionParseError);
  EXPECT_EQ(OptionTraits<SaveLast>::render(SaveLast::link()), "link");
  EXPECT_EQ(OptionTraits<SaveLast>::render(SaveLast(true)), "true");
  EXPECT_EQ(OptionTraits<SaveLast>::render(SaveLast(false)), "false");
}

TEST(OptionTraits, FastDevRunIsBoolOrCount) {
  EXPECT_EQ(parse<FastDevRun>("true").batches, 1);
  EXPECT_EQ(parse<FastDevRun>("false").batches, 0);
  EXPECT_EQ(parse<FastDevRun>("5").batches, 5);
  EXPECT_THROW(parse<FastDevRun>("-1"), OptionParseError);
  EXPECT_EQ(OptionTraits<FastDevRun>::render(FastDevRun(false)), "false");
  EXPECT_EQ(OptionTraits<FastDevRun>::render(FastDevRun(true)), "true");
  EXPECT_EQ(OptionTraits<FastDevRun>::render(FastDevRun(5)), "5");
}

TEST(OptionTraits, OptionalAcceptsNull) {
  using Opt = std::optional<int64_t>;
  EXPECT_EQ(OptionTraits<Opt>::type_name(), "int|null");
  EXPECT_FALSE(OptionTraits<Opt>::parse(std::nullopt).has_value());
  EXPECT_FALSE(OptionTraits<Opt>::parse(std::string("null")).has_value());
  EXPECT_FALSE(OptionTraits<Opt>::parse(std::string("None")).has_value());
  EXPECT_EQ(OptionTraits<Opt>::parse(std::string("3")), 3);
  EXPECT_FALSE(OptionTraits<Opt>::render(std::nullopt).has_value());
  EXPECT_EQ(OptionTraits<Opt>::render(7), "7");
}

TEST(OptionTraits, MapsAreFlowMapsOfValues) {
  using Schedule = std::map<int64_t, int64_t>;
  EXPECT_EQ(OptionTraits<Schedule>::type_name(), "{int: int}");
  EXPECT_EQ(parse<Schedule>("{0: 1, 4: 2}"), (Schedule{{0, 1}, {4, 2}}));
  EXPECT_EQ(parse<Schedule>(" {4:2,0:1} "), (Schedule{{0, 1}, {4, 2}}));
  EXPECT_TRUE(parse<Schedule>("{}").empty());
  EXPECT_EQ(OptionTraits<Schedule>::render(Schedule{{4, 2}, {0, 1}}), "{0: 1, 4: 2}");
  EXPECT_EQ(OptionTraits<Schedule>::render(Schedule{}), "{}");
  EXPECT_EQ(OptionTraits<Schedule>::parse(OptionTraits<Schedule>::render(Schedule{{3, 8}})),
            (Schedule{{3, 8}}));
  using Weights = std::map<std::string, double>;
  EXPECT_EQ(OptionTraits<Weights>::type_name(), "{string: float}");

  const auto reason = [](const char* text) -> std::string {
    try {
      parse<Schedule>(text);
    } catch (const OptionParseError& e) {
      return e.what();
    }
    return "<no OptionParseError>";
  };
  EXPECT_EQ(reason("0: 1"), "write a map such as {0: 1, 4: 2}");
  EXPECT_EQ(reason("{0 1}"), "'0 1' is not a 'key: value' item");
  EXPECT_EQ(reason("{0: 1,}"), "'' is not a 'key: value' item");
  EXPECT_EQ(reason("{0: {1: 2}}"), "'0: {1: 2}' is not a 'key: value' item");
  EXPECT_EQ(reason("{a: 1}"), "bad key 'a': expected int");
  EXPECT_EQ(reason("{0: x}"), "bad value 'x' of key 0: expected int");
  EXPECT_EQ(reason("{1: 2, 1: 3}"), "key 1 is given twice");
  EXPECT_THROW(OptionTraits<Schedule>::parse(std::nullopt), OptionParseError);
}

}  // namespace
}  // namespace fulgur
