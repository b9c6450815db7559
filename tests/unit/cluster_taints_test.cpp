// Cluster taints against a choice's tolerations (fit/cluster_taints.h) and what they do to a
// choice of clusters (fit/cluster_choice.h), with Open Cluster Management's three effects.
#include "fit/cluster_taints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fit/cluster_choice.h"
#include "plan/cluster_tolerations.h"

namespace planter::fit {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Clock = std::chrono::system_clock;

const Clock::time_point kNow = Clock::from_time_t(1'800'000'000);

ClusterToleration exists(std::string key, std::string effect = "", std::optional<int64_t> s = {}) {
  return {std::move(key), "Exists", "", std::move(effect), s};
}

TEST(ClusterTaintsTest, ATolerationMatchesAsKubeSchedulersDoAndTheWorstEffectDecides) {
  std::vector<ClusterTaint> taints = {{"maintenance", "true", "PreferNoSelect", {}},
                                      {"retiring", "", "NoSelectIfNew", {}}};
  TaintJudgement j = judge_taints(taints, {}, kNow);
  EXPECT_EQ(j.verdict, TaintVerdict::kOnlyIfKept);
  EXPECT_EQ(j.why, "taint retiring:NoSelectIfNew is not tolerated");
  EXPECT_EQ(judge_taints(taints, {exists("retiring")}, kNow).verdict, TaintVerdict::kPreferNot);
  // Equal needs the value; an empty key with Exists tolerates everything; an effect narrows.
  EXPECT_EQ(
      judge_taints(taints, {{"maintenance", "Equal", "false", "", {}}, exists("retiring")}, kNow)
          .verdict,
      TaintVerdict::kPreferNot);
  EXPECT_EQ(judge_taints(taints, {exists("")}, kNow).verdict, TaintVerdict::kNone);
  EXPECT_EQ(judge_taints(taints, {exists("", "NoSelectIfNew")}, kNow).verdict,
            TaintVerdict::kPreferNot);
  EXPECT_EQ(judge_taints({{"gone", "", "NoSelect", {}}}, {}, kNow).why,
            "taint gone:NoSelect is not tolerated");
}

TEST(ClusterTaintsTest, TolerationSecondsCountFromTheTaintsTimeAdded) {
  std::vector<ClusterTaint> taints = {
      {"planter.nephio.org/unreachable", "", "NoSelect", kNow - seconds(60)}};
  std::vector<ClusterToleration> five_minutes = {exists("planter.nephio.org/unreachable", "", 300)};
  EXPECT_EQ(judge_taints(taints, five_minutes, kNow).verdict, TaintVerdict::kNone);
  EXPECT_EQ(judge_taints(taints, five_minutes, kNow + seconds(240)).verdict,
            TaintVerdict::kRefused);
  taints[0].added.reset();  // no timeAdded: tolerated for good
  EXPECT_EQ(judge_taints(taints, five_minutes, kNow + seconds(3600)).verdict, TaintVerdict::kNone);
}

TEST(ClusterTaintsTest, AHeldClusterIsGivenUpWhenItsLastTolerationOfANoSelectTaintEnds) {
  std::vector<ClusterTaint> taints = {{kUnreachableTaint, "", "NoSelect", kNow - seconds(60)},
                                      {"maintenance", "", "PreferNoSelect", kNow - seconds(600)}};
  EXPECT_EQ(given_up_from(taints, {}, kNow), kNow);  // not tolerated: now
  // The longest matching toleration counts; a PreferNoSelect taint never takes a cluster away.
  EXPECT_EQ(given_up_from(taints,
                          {exists(kUnreachableTaint, "", 30), exists(kUnreachableTaint, "", 300),
                           exists("other", "", 900)},
                          kNow),
            kNow + seconds(240));
  EXPECT_EQ(given_up_from(taints, {exists(kUnreachableTaint)}, kNow), std::nullopt);  // for good
  EXPECT_EQ(given_up_from({taints[1]}, {}, kNow), std::nullopt);
  taints[0].added.reset();  // no timeAdded: tolerationSeconds cannot end
  EXPECT_EQ(given_up_from(taints, {exists(kUnreachableTaint, "", 30)}, kNow), std::nullopt);
}

ClusterCandidate fits(std::string name, int64_t cpu, TaintVerdict v = TaintVerdict::kNone) {
  ClusterCandidate c{std::move(name), true, "", {}, std::nullopt, {}};
  c.left.milli_cpu = cpu;
  c.left.memory = cpu << 20;
  c.taint.verdict = v;
  if (v != TaintVerdict::kNone) c.taint.why = "taint t:X is not tolerated";
  return c;
}

TEST(ClusterTaintsTest, AChoiceLeavesOutKeepsAndFallsBackAsEachEffectSays) {
  using V = TaintVerdict;
  // The roomiest is NoSelect: not taken, and given up though an earlier run chose it.
  auto r = choose_clusters(1, {fits("big", 8000, V::kRefused), fits("small", 1000)}, {"big"});
  EXPECT_THAT(r.chosen, ElementsAre("small"));
  EXPECT_EQ(r.ranked.back().why, "taint t:X is not tolerated");
  // NoSelectIfNew: kept, never taken anew.
  r = choose_clusters(1, {fits("big", 8000, V::kOnlyIfKept), fits("small", 1000)}, {"big"});
  EXPECT_THAT(r.chosen, ElementsAre("big"));
  r = choose_clusters(1, {fits("big", 8000, V::kOnlyIfKept), fits("small", 1000)}, {});
  EXPECT_THAT(r.chosen, ElementsAre("small"));
  // PreferNoSelect: only when the choice cannot be made without it.
  r = choose_clusters(1, {fits("big", 8000, V::kPreferNot), fits("small", 1000)}, {});
  EXPECT_THAT(r.chosen, ElementsAre("small"));
  r = choose_clusters(2, {fits("big", 8000, V::kPreferNot), fits("small", 1000)}, {});
  EXPECT_THAT(r.chosen, ElementsAre("big", "small"));
  EXPECT_TRUE(r.complete);
}

TEST(ClusterTaintsTest, TolerationsAreReadAndEveryMistakeIsNamed) {
  auto ok = parse_cluster_tolerations(
      R"([{"key": "maintenance", "operator": "Exists", "effect": "NoSelect",
           "tolerationSeconds": 300}, {"key": "tier", "value": "gold"}])");
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].seconds, 300);
  EXPECT_EQ((*ok)[1].op, "Equal");
  EXPECT_EQ(cluster_tolerations_annotation(*ok),
            R"([{"key":"maintenance","operator":"Exists","value":"","effect":"NoSelect",)"
            R"("tolerationSeconds":300},{"key":"tier","operator":"Equal","value":"gold",)"
            R"("effect":""}])");
  for (auto [text, says] : std::vector<std::pair<const char*, const char*>>{
           {"maintenance", "not a JSON list of tolerations"},
           {R"([{"key": "a", "operator": "In"}])",
            "[0].operator \"In\" is neither Equal nor Exists"},
           {R"([{"key": "a", "operator": "Exists", "value": "x"}])",
            "[0].value must be empty when the operator is Exists"},
           {R"([{"operator": "Equal"}])", "an empty key tolerates every taint only with operator"},
           {R"([{"key": "a", "effect": "NoSchedule"}])",
            "[0].effect \"NoSchedule\" is not NoSelect, NoSelectIfNew or PreferNoSelect"},
           {R"([{"key": "a", "tolerationSeconds": -1}])", "[0].tolerationSeconds must be"},
           {R"([{"key": "a", "seconds": 5}])", "[0].seconds: unknown field"}}) {
    auto bad = parse_cluster_tolerations(text);
    ASSERT_FALSE(bad) << text;
    EXPECT_THAT(bad.error().message, HasSubstr(says)) << text;
  }
}

}  // namespace
}  // namespace planter::fit
