#include "fulgur/plot/xml_text.h"

#include <gtest/gtest.h>

#include <string>

namespace fulgur::plot {
namespace {

TEST(XmlEscape, MarkupCharactersBecomeReferences) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("plain_key-1/pg2"), "plain_key-1/pg2");
  EXPECT_EQ(xml_escape(""), "");
}

TEST(XmlEscape, WhitespaceSurvivesAttributeNormalisation) {
  EXPECT_EQ(xml_escape("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
}

TEST(XmlEscape, ValidUtf8IsKept) {
  EXPECT_EQ(xml_escape("δ-loss ≤ 1 🙂"), "δ-loss ≤ 1 🙂");
}

TEST(XmlEscape, WhatXmlCannotHoldBecomesAReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escape(std::string("a\0b", 3)), "a" + fffd + "b");  // NUL
  EXPECT_EQ(xml_escape("a\x1b[0mb"), "a" + fffd + "[0mb");          // an ANSI escape
  EXPECT_EQ(xml_escape("\xff"), fffd);                              // not UTF-8
  EXPECT_EQ(xml_escape("ab\xC3"), "ab" + fffd);                     // cut mid-character
  EXPECT_EQ(xml_escape("\xC0\xAF"), fffd + fffd);                   // overlong '/'
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), fffd + fffd + fffd);        // a UTF-16 surrogate
  EXPECT_EQ(xml_escape("\xEF\xBF\xBE"), fffd);                      // U+FFFE
}

TEST(TruncateUtf8, CutsWholeCharactersAndMarksTheCut) {
  EXPECT_EQ(truncate_utf8("train_loss", 20), "train_loss");
  EXPECT_EQ(truncate_utf8("train_loss", 10), "train_loss");
  EXPECT_EQ(truncate_utf8("train_loss", 6), "train…");
  EXPECT_EQ(truncate_utf8("δδδδ", 3), "δδ…");
  EXPECT_EQ(truncate_utf8("abc", 0), "");
}

}  // namespace
}  // namespace fulgur::plot
