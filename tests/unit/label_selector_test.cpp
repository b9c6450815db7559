#include "model/label_selector.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace planter {
namespace {

bool matches(const std::string& sel, const Labels& labels) {
  auto s = LabelSelector::parse(sel);
  EXPECT_TRUE(s.ok()) << sel;
  return s.ok() && s->matches(labels);
}

TEST(LabelSelector, StringForms) {
  Labels edge{{"tier", "edge"}, {"region", "eu"}, {"gpu", "yes"}};
  EXPECT_TRUE(matches("", edge));
  EXPECT_TRUE(matches("tier=edge", edge));
  EXPECT_TRUE(matches("tier==edge", edge));
  EXPECT_FALSE(matches("tier!=edge", edge));
  EXPECT_TRUE(matches("tier=edge,region in (eu, us)", edge));
  EXPECT_FALSE(matches("region notin (eu)", edge));
  EXPECT_TRUE(matches("gpu", edge));
  EXPECT_FALSE(matches("!gpu", edge));
  EXPECT_TRUE(matches("!fpga", edge));
  EXPECT_FALSE(matches("tier=core", edge));
}

TEST(LabelSelector, RejectsNonsense) {
  EXPECT_FALSE(LabelSelector::parse("a in b").ok());
  EXPECT_FALSE(LabelSelector::parse("a,,b").ok());
  EXPECT_FALSE(LabelSelector::parse("a within (b)").ok());
}

TEST(LabelSelector, StructuredForm) {
  auto v = boost::json::parse(
      R"({"matchLabels":{"a":"1"},"matchExpressions":[{"key":"b","operator":"NotIn","values":["x"]}]})");
  auto s = LabelSelector::from_json(v);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->matches({{"a", "1"}}));
  EXPECT_FALSE(s->matches({{"a", "1"}, {"b", "x"}}));
  EXPECT_FALSE(s->matches({{"a", "2"}}));
}

}  // namespace
}  // namespace planter
