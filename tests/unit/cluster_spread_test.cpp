// Spreading a choice of clusters over regions (fit/cluster_spread.h): the cases the docs name, and
// 500 random fleets against an oracle written from the documented rules
// (cluster_spread_oracle.py, which tries every set).
#include "fit/cluster_spread.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fit/cluster_choice.h"
#include "model/process.h"
#include "test_support.h"

namespace planter::fit {
namespace {

namespace json = boost::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SpreadCandidate in(std::string name, std::string region, int score, bool fits = true) {
  return {std::move(name), std::move(region), fits, false, score};
}

std::vector<std::string> names(const SpreadChoice& c, const std::vector<SpreadCandidate>& all) {
  std::vector<std::string> out;
  for (size_t i : c.chosen) out.push_back(all[i].name);
  return out;
}
std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

const ClusterSpread kRegion{"region", 1, true};

TEST(ClusterSpreadTest, ThreeOfThreeRegionsTakeOneEachThoughOneRegionScoresBest) {
  std::vector<SpreadCandidate> all = {in("eu1", "eu", 100), in("eu2", "eu", 99),
                                      in("us1", "us", 40), in("ap1", "ap", 30)};
  SpreadChoice c = choose_spread(3, all, kRegion);
  EXPECT_THAT(names(c, all), ElementsAre("eu1", "us1", "ap1"));
  EXPECT_EQ(c.skew, 0);
  EXPECT_EQ(c.why, "");
}

TEST(ClusterSpreadTest, AFullRegionHoldsDoNotScheduleBackAndScheduleAnywaySkews) {
  // ap has a cluster, and nothing fits there: eu and us may take one each, not two.
  std::vector<SpreadCandidate> all = {in("eu1", "eu", 100), in("eu2", "eu", 90),
                                      in("us1", "us", 80), in("ap1", "ap", 0, false)};
  SpreadChoice hard = choose_spread(3, all, kRegion);
  EXPECT_THAT(sorted(names(hard, all)), ElementsAre("eu1", "us1"));
  EXPECT_EQ(hard.why,
            "region=ap has no cluster where it fits, so no region may take more than 1 "
            "(cluster-spread region (maxSkew 1, DoNotSchedule))");
  SpreadChoice soft = choose_spread(3, all, {"region", 1, false});
  EXPECT_THAT(names(soft, all), ElementsAre("eu1", "eu2", "us1"));
  EXPECT_EQ(soft.skew, 2);
}

TEST(ClusterSpreadTest, AClusterWithoutTheKeyIsLeftOutUnlessScheduleAnywayNeedsIt) {
  std::vector<SpreadCandidate> all = {in("eu1", "eu", 50),
                                      {"bare", std::nullopt, true, false, 100}};
  EXPECT_THAT(names(choose_spread(1, all, kRegion), all), ElementsAre("eu1"));
  SpreadChoice hard = choose_spread(2, all, kRegion);
  EXPECT_THAT(names(hard, all), ElementsAre("eu1"));
  EXPECT_THAT(hard.why, HasSubstr("1 cluster(s) where it fits have no label region"));
  EXPECT_THAT(names(choose_spread(2, all, {"region", 1, false}), all), ElementsAre("bare", "eu1"));
}

TEST(ClusterSpreadTest, KeptClustersStayWhileTheSpreadHoldsThemElseItChoosesAfresh) {
  std::vector<SpreadCandidate> all = {in("eu1", "eu", 100), in("eu2", "eu", 10),
                                      in("us1", "us", 50), in("us2", "us", 60)};
  all[1].kept = true;  // eu2: chosen by an earlier run
  EXPECT_THAT(sorted(names(choose_spread(2, all, kRegion), all)), ElementsAre("eu2", "us2"));
  all[0].kept = true;  // eu1 and eu2 kept: two in eu, none in us, breaks maxSkew 1
  EXPECT_THAT(sorted(names(choose_spread(2, all, kRegion), all)), ElementsAre("eu1", "us2"));
}

TEST(ClusterSpreadTest, ChooseClustersNamesEachCandidatesDomainAndTheSkew) {
  std::vector<ClusterCandidate> candidates = {
      {"eu1", true, "", {4000, 8LL << 30}, "eu"},
      {"eu2", true, "", {4000, 8LL << 30}, "eu"},
      {"us1", true, "", {1000, 2LL << 30}, "us"},
  };
  ClusterChoiceResult r = choose_clusters(2, candidates, {}, kRegion);
  ASSERT_TRUE(r.complete);
  EXPECT_THAT(r.chosen, ElementsAre("eu1", "us1"));
  EXPECT_EQ(r.skew, 0);
  EXPECT_EQ(r.ranked[0].domain, "region=eu");
}

// 500 random fleets of 2 to 14 candidates in up to four regions (some without the label, some
// that do not fit, some kept): the choice takes as many clusters as the oracle's best and scores
// the same total (a tie may pick other clusters).
TEST(ClusterSpreadTest, AgreesWithTheOracleOn500RandomFleets) {
  std::mt19937 rng(20261129);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::vector<SpreadCandidate>> fleets;
  std::vector<int64_t> counts;
  std::vector<ClusterSpread> spreads;
  std::vector<std::string> said;  // each fleet as the oracle reads it
  std::ostringstream lines;
  for (int f = 0; f < 500; ++f) {
    int m = pick(2, 14), regions = pick(1, 4);
    int64_t count = pick(1, m);
    ClusterSpread spread{"region", pick(1, 3), pick(0, 1) == 1};
    std::vector<SpreadCandidate> fleet;
    json::array listed;
    int kept = 0;
    for (int i = 0; i < m; ++i) {
      SpreadCandidate c;
      c.name = fmt::format("c{:02}", i);
      if (pick(0, 6) > 0) c.domain = fmt::format("r{}", pick(0, regions - 1));
      c.fits = pick(0, 3) > 0;
      c.score = c.fits ? pick(0, 100) : 0;
      c.kept = kept < count && pick(0, 5) == 0;
      kept += c.kept ? 1 : 0;
      listed.push_back({{"name", c.name},
                        {"domain", c.domain ? json::value(*c.domain) : json::value(nullptr)},
                        {"fits", c.fits},
                        {"kept", c.kept},
                        {"score", c.score}});
      fleet.push_back(std::move(c));
    }
    said.push_back(json::serialize(json::object{{"count", count},
                                                {"maxSkew", spread.max_skew},
                                                {"hard", spread.hard},
                                                {"candidates", std::move(listed)}}));
    lines << said.back() << "\n";
    fleets.push_back(std::move(fleet));
    counts.push_back(count);
    spreads.push_back(spread);
  }
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               fmt::format("planter-spread-fleets-{}.jsonl", ::getpid());
  std::ofstream(file) << lines.str();
  ProcessSpec spec;
  spec.path = "python3";
  spec.args = {std::string(PLANTER_SOURCE_DIR) + "/tests/unit/cluster_spread_oracle.py",
               file.string()};
  spec.timeout = std::chrono::minutes(2);
  auto run = run_process(spec);
  std::filesystem::remove(file);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(run->exit_code, 0) << run->err;
  std::istringstream answers(run->out);
  std::string answer;
  int agreed = 0;
  for (size_t f = 0; f < fleets.size() && std::getline(answers, answer); ++f) {
    json::object oracle = json::parse(answer).as_object();
    SpreadChoice c = choose_spread(counts[f], fleets[f], spreads[f]);
    int64_t total = 0;
    for (size_t i : c.chosen) total += fleets[f][i].score;
    bool same = static_cast<int64_t>(c.chosen.size()) == oracle.at("size").as_int64() &&
                total == oracle.at("total").as_int64();
    EXPECT_TRUE(same) << said[f] << "\nplanter took " << c.chosen.size() << " scoring " << total
                      << ", the oracle " << json::serialize(oracle);
    agreed += same ? 1 : 0;
  }
  EXPECT_EQ(agreed, 500);
}

}  // namespace
}  // namespace planter::fit
