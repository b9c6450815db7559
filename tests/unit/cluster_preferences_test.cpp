// Preferences of a choice of clusters (fit/cluster_preferences.h, plan/cluster_preferences.h):
// each term's share of a score, and every malformed term named.
#include "fit/cluster_preferences.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fit/cluster_choice.h"
#include "plan/cluster_preferences.h"

namespace planter::fit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ClusterPreferencesTest, ASelectorAddsItsWeightAndAPropertyItsShareBetweenLeastAndMost) {
  auto terms = parse_cluster_preferences(
      R"([{"weight": 40, "selector": "region=eu"},
          {"weight": 100, "property": "label:cost", "order": "Ascending"},
          {"weight": -20, "property": "nodes"}])");
  ASSERT_TRUE(terms) << terms.error().message;
  Labels eu{{"region", "eu"}, {"cost", "4"}}, us{{"region", "us"}, {"cost", "1"}},
      free{{"region", "us"}, {"cost", "cheap"}};
  std::vector<PreferenceInputs> in = {{&eu, 0, 0, 10}, {&us, 0, 0, 2}, {&free, 0, 0, 6}};
  auto shares = preference_shares(*terms, in, {true, true, true});
  EXPECT_THAT(shares[0], ElementsAre(40, 0, -20));  // the dearest, the most nodes
  EXPECT_THAT(shares[1], ElementsAre(0, 100, 0));   // the cheapest, the fewest nodes
  EXPECT_THAT(shares[2], ElementsAre(0, 0, -10));   // no number for cost: nothing of it
  // Only eligible (fitting) candidates set the range; one value alone earns the whole weight.
  shares = preference_shares(*terms, in, {false, true, false});
  EXPECT_EQ(shares[1][1], 100);
}

// property:NAME reads a ClusterProfile's status.properties, as label:KEY reads labels.
TEST(ClusterPreferencesTest, AProfilesPropertyIsAPropertyToSortBy) {
  auto terms = parse_cluster_preferences(
      R"([{"weight": 60, "property": "property:example.com/cost", "order": "Ascending"}])");
  ASSERT_TRUE(terms) << terms.error().message;
  EXPECT_EQ((*terms)[0].text, "example.com/cost (Ascending)");
  Labels dear{{"example.com/cost", "9"}}, cheap{{"example.com/cost", "2"}};
  Labels as_label{{"example.com/cost", "1"}};
  std::vector<PreferenceInputs> in = {
      {nullptr, 0, 0, 1, &dear}, {nullptr, 0, 0, 1, &cheap}, {&as_label, 0, 0, 1, nullptr}};
  auto shares = preference_shares(*terms, in, {true, true, true});
  EXPECT_THAT(shares[0], ElementsAre(0));
  EXPECT_THAT(shares[1], ElementsAre(60));
  EXPECT_THAT(shares[2], ElementsAre(0));  // a label of that name is not the property
}

TEST(ClusterPreferencesTest, TheChoiceScoresRoomPlusEachTermAndSaysTheShares) {
  auto terms = parse_cluster_preferences(R"([{"weight": 50, "selector": "tier=gold"}])");
  ASSERT_TRUE(terms);
  Labels gold{{"tier", "gold"}}, plain{};
  ClusterCandidate a{"roomy", true, "", {}, std::nullopt, {}, &plain, 3};
  a.left.milli_cpu = 8000;
  a.left.memory = 8 << 20;
  ClusterCandidate b{"gold", true, "", {}, std::nullopt, {}, &gold, 3};
  b.left.milli_cpu = 4000;
  b.left.memory = 4 << 20;
  auto r = choose_clusters(1, {a, b}, {}, {}, *terms);
  EXPECT_THAT(r.chosen, ElementsAre("gold"));
  EXPECT_EQ(r.ranked[0].score, 100);
  EXPECT_EQ(r.ranked[0].shares, "room 50, tier=gold 50");
  EXPECT_EQ(r.ranked[1].shares, "room 100");
}

TEST(ClusterPreferencesTest, EveryMalformedTermIsNamed) {
  for (auto [text, says] : std::vector<std::pair<const char*, const char*>>{
           {"region=eu", "not a JSON list of terms"},
           {R"([{"selector": "region=eu"}])", "[0] needs a weight"},
           {R"([{"weight": 0, "selector": "a=b"}])", "[0].weight must be a whole number from -100"},
           {R"([{"weight": 101, "selector": "a=b"}])", "from -100 to 100"},
           {R"([{"weight": 5}])", "[0] needs either a selector or a property"},
           {R"([{"weight": 5, "selector": "a=b", "property": "cpu"}])", "either a selector or"},
           {R"([{"weight": 5, "property": "gpus"}])",
            "is not cpu, memory, nodes, label:KEY or property:NAME"},
           {R"([{"weight": 5, "property": "property:-x"}])", "the property name"},
           {R"([{"weight": 5, "property": "cpu", "order": "Up"}])",
            "[0].order \"Up\" is neither Ascending nor Descending"},
           {R"([{"weight": 5, "selector": "a=b", "order": "Ascending"}])",
            "[0].order sorts a property"},
           {R"([{"weight": 5, "selector": "a in"}])", "[0].selector:"},
           {R"([{"weight": 5, "property": "label:-x"}])", "the label key"},
           {R"([{"weight": 5, "cost": 1}])", "[0].cost: unknown field"}}) {
    auto bad = parse_cluster_preferences(text);
    ASSERT_FALSE(bad) << text;
    EXPECT_THAT(bad.error().message, HasSubstr(says)) << text;
  }
}

}  // namespace
}  // namespace planter::fit
