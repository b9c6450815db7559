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

// The string form a list request carries selects what the structured form does.
TEST(LabelSelector, StructuredFormAsAQueryString) {
  auto s = LabelSelector::from_json(boost::json::parse(
      R"({"matchLabels":{"part-of":"kp"},"matchExpressions":[
          {"key":"tier","operator":"In","values":["a","b"]},
          {"key":"old","operator":"DoesNotExist"},{"key":"zone","operator":"Exists"},
          {"key":"env","operator":"NotIn","values":["dev"]}]})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->str(), "part-of=kp,tier in (a,b),!old,zone,env notin (dev)");
  auto again = LabelSelector::parse(s->str());
  ASSERT_TRUE(again.ok()) << again.error().message;
  for (const Labels& l :
       std::vector<Labels>{{{"part-of", "kp"}, {"tier", "a"}, {"zone", "1"}},
                           {{"part-of", "kp"}, {"tier", "c"}, {"zone", "1"}},
                           {{"part-of", "kp"}, {"tier", "b"}, {"old", "y"}},
                           {{"part-of", "kp"}, {"tier", "b"}, {"zone", "1"}, {"env", "dev"}}})
    EXPECT_EQ(again->matches(l), s->matches(l));
  EXPECT_TRUE(s->matches({{"part-of", "kp"}, {"tier", "b"}, {"zone", "z"}, {"env", "prod"}}));
}

}  // namespace
}  // namespace planter
