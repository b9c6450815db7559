// Compact JSON indented as kubectl prints -o json, however the text is cut into pieces.
#include "model/json_indent.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace planter {
namespace {

TEST(JsonIndent, IndentsAsKubectlAndKeepsStringsAndEmptiesAsTheyAre) {
  const std::string compact =
      R"({"a":[],"b":{},"c":"x{,}:\"[y]\\","d":[1,{"e":null}],"f":"caf\u00e9"})";
  const std::string expected = R"({
    "a": [],
    "b": {},
    "c": "x{,}:\"[y]\\",
    "d": [
        1,
        {
            "e": null
        }
    ],
    "f": "caf\u00e9"
})"
                               "\n";
  EXPECT_EQ(indent_json(compact), expected);
  // Cut anywhere, byte by byte: the same text.
  std::string out;
  JsonIndenter indenter([&out](std::string_view t) { out.append(t); });
  for (char c : compact) indenter(std::string_view(&c, 1));
  indenter.finish();
  EXPECT_EQ(out, expected);
  EXPECT_EQ(boost::json::parse(out), boost::json::parse(compact));
}

}  // namespace
}  // namespace planter
