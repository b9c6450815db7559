// The operator's decision for a Seed (src/operator/decision.h), without a server: every path of
// a Seed's life, from its facts and the run the operator has for it.
#include "operator/decision.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "model/duration.h"

namespace planter::op {
namespace {

using std::chrono::milliseconds;
using Action = Decision::Action;
using Finalizer = Decision::Finalizer;

const milliseconds kMin{1000}, kMax{10000};

SeedFacts planted_seed(int64_t generation = 3) {
  SeedFacts f;
  f.generation = generation;
  f.replant = "a";
  return f;
}

Decision decide_now(const std::optional<SeedFacts>& f, const std::optional<RunState>& r = {}) {
  return decide(f, r, kMin, kMax);
}

TEST(Decision, ANewSeedIsPlantedUnderItsGenerationAndToken) {
  Decision d = decide_now(planted_seed());
  EXPECT_EQ(d.action, Action::kPlant);
  EXPECT_EQ(d.run_key, "plant/3/a");
  EXPECT_EQ(d.backoff, kMin);
  EXPECT_EQ(d.finalizer, Finalizer::kKeep);
  EXPECT_FALSE(d.replant);
  EXPECT_FALSE(d.confirming);
}

TEST(Decision, TheSameWorkRunningOrDoneIsLeftAlone) {
  EXPECT_EQ(decide_now(planted_seed(), RunState{"plant/3/a", false, false, false, kMin}).action,
            Action::kNothing);
  EXPECT_EQ(decide_now(planted_seed(), RunState{"plant/3/a", true, false, false, kMin}).action,
            Action::kNothing);
  // A new generation replaces it.
  Decision d = decide_now(planted_seed(4), RunState{"plant/3/a", false, false, false, kMin});
  EXPECT_EQ(d.action, Action::kPlant);
  EXPECT_EQ(d.run_key, "plant/4/a");
}

TEST(Decision, AFailedRunIsStartedAgainWhenDueWithTwiceItsBackoff) {
  RunState failed{"plant/3/a", true, true, false, milliseconds(4000)};
  EXPECT_EQ(decide_now(planted_seed(), failed).action, Action::kNothing);  // not yet
  failed.retry_due = true;
  Decision d = decide_now(planted_seed(), failed);
  EXPECT_EQ(d.action, Action::kPlant);
  EXPECT_EQ(d.backoff, milliseconds(8000));
  failed.backoff = milliseconds(8000);
  EXPECT_EQ(decide_now(planted_seed(), failed).backoff, kMax);  // capped
}

TEST(Decision, AReplantTokenChangeAndAQuietConfirmation) {
  SeedFacts f = planted_seed();
  f.last_replant = "old";
  Decision d = decide_now(f);
  EXPECT_TRUE(d.replant);
  EXPECT_FALSE(d.confirming);
  f.last_replant = "a";
  f.last_phase = "Planted";
  f.observed_generation = 3;
  d = decide_now(f);
  EXPECT_FALSE(d.replant);
  EXPECT_TRUE(d.confirming);  // a restarted operator plants it again without a Planting phase
  f.observed_generation = 2;
  EXPECT_FALSE(decide_now(f).confirming);
}

TEST(Decision, APlantedSeedWhoseChoiceMustMoveIsPlantedAgainOnce) {
  RunState planted{"plant/3/a", true, false, false, kMin};
  planted.moved = true;
  Decision d = decide_now(planted_seed(), planted);
  EXPECT_EQ(d.action, Action::kPlant);
  EXPECT_EQ(d.run_key, "plant/3/a");
  EXPECT_TRUE(d.failover);
  EXPECT_FALSE(d.confirming);
  EXPECT_FALSE(d.replant);
  // Other work wins: a new generation is planted as such, a deleted Seed is not planted.
  Decision newer = decide_now(planted_seed(4), planted);
  EXPECT_EQ(newer.run_key, "plant/4/a");
  EXPECT_FALSE(newer.failover);
  SeedFacts deleting = planted_seed();
  deleting.deleting = true;
  EXPECT_EQ(decide_now(deleting, planted).action, Action::kStop);
  planted.moved = false;
  EXPECT_EQ(decide_now(planted_seed(), planted).action, Action::kNothing);
}

TEST(Decision, NotPlantedAndInvalidSeedsHoldAPhaseOnce) {
  SeedFacts idle = planted_seed();
  idle.planted = false;
  Decision d = decide_now(idle);
  EXPECT_EQ(d.action, Action::kNotPlanted);
  EXPECT_EQ(d.run_key, "idle/3");
  EXPECT_EQ(decide_now(idle, RunState{"idle/3", true, false, false, {}}).action, Action::kNothing);

  SeedFacts bad = planted_seed();
  bad.invalid = "spec.source: exactly one of inline, configMapRef, url";
  bad.uproot_on_delete = false;
  bad.has_finalizer = true;  // an invalid spec does not touch finalizers
  d = decide_now(bad);
  EXPECT_EQ(d.action, Action::kInvalid);
  EXPECT_EQ(d.run_key, "invalid/3");
  EXPECT_EQ(d.finalizer, Finalizer::kKeep);
  EXPECT_EQ(decide_now(bad, RunState{"invalid/3", true, false, false, {}}).action,
            Action::kNothing);
}

TEST(Decision, TheUprootFinalizerFollowsTheSpec) {
  SeedFacts f = planted_seed();
  f.uproot_on_delete = true;
  EXPECT_EQ(decide_now(f).finalizer, Finalizer::kAdd);
  f.has_finalizer = true;
  EXPECT_EQ(decide_now(f).finalizer, Finalizer::kKeep);
  f.uproot_on_delete = false;
  EXPECT_EQ(decide_now(f).finalizer, Finalizer::kRemove);
}

TEST(Decision, ADeletedSeedIsUprootedOnlyWhenItAsksAndItsFinalizerHoldsIt) {
  SeedFacts f = planted_seed();
  f.deleting = true;
  EXPECT_EQ(decide_now(f).action, Action::kStop);  // no finalizer: it goes by itself
  EXPECT_EQ(decide_now(f).finalizer, Finalizer::kKeep);
  f.has_finalizer = true;
  Decision d = decide_now(f);  // a finalizer, but no uproot asked: let it go
  EXPECT_EQ(d.action, Action::kStop);
  EXPECT_EQ(d.finalizer, Finalizer::kRemove);
  f.uproot_on_delete = true;
  d = decide_now(f);
  EXPECT_EQ(d.action, Action::kUproot);
  EXPECT_EQ(d.run_key, "uproot");
  EXPECT_EQ(decide_now(f, RunState{"uproot", false, false, false, kMin}).action, Action::kNothing);
  EXPECT_EQ(decide_now(std::nullopt).action, Action::kForget);
}

TEST(Decision, FactsAreReadFromTheSeed) {
  auto seed = boost::json::parse(R"({"apiVersion":"planter.nephio.org/v1alpha1","kind":"Seed",
    "metadata":{"name":"s","namespace":"n","generation":7,"deletionTimestamp":"2026-11-25T00:00:00Z",
    "finalizers":["other","planter.nephio.org/uproot"]},
    "spec":{"source":{"inline":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"},
            "replant":"b","uprootOnDelete":true},
    "status":{"phase":"Planted","replant":"a","observedGeneration":6}})")
                  .as_object();
  SeedFacts f = seed_facts(seed, parse_seed_spec(seed));
  EXPECT_EQ(f.generation, 7);
  EXPECT_TRUE(f.deleting);
  EXPECT_TRUE(f.has_finalizer);
  EXPECT_FALSE(f.invalid);
  EXPECT_TRUE(f.uproot_on_delete);
  EXPECT_EQ(f.replant, "b");
  EXPECT_EQ(f.last_replant, "a");
  EXPECT_EQ(f.last_phase, "Planted");
  EXPECT_EQ(f.observed_generation, 6);
}

// spec.driftCheckInterval reads as Kubernetes reads a metav1.Duration.
// The operator keeps a Seed's cluster choices in its status (status.clusterChoices), and the next
// run reads them back as the clusters to keep; what does not read as a choice is left out.
TEST(SeedSpecTest, ClusterChoicesAreReadBackFromTheStatus) {
  auto spec = parse_seed_spec(boost::json::parse(R"({"spec":{"source":{"inline":"x"}},
      "status":{"clusterChoices":[{"name":"stack web","clusters":["big","wide"]},
                                  {"name":"bad","clusters":"big"},{"clusters":["x"]},
                                  {"name":"empty","clusters":[]}]}})")
                                  .as_object());
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->kept_choices,
            (std::map<std::string, std::vector<std::string>>{{"stack web", {"big", "wide"}}}));
}

// A path belongs to a Flux source's artifact: alone it would be ignored, so it is refused; two
// sources are refused naming every kind of source.
TEST(SeedSpecTest, APathWithoutAFluxSourceIsRefused) {
  auto spec = [](const char* source) {
    return parse_seed_spec(
        boost::json::parse(std::string(R"({"spec":{"source":)") + source + "}}").as_object());
  };
  auto alone = spec(R"({"url":"https://example.org/seed.yaml","path":"edge"})");
  ASSERT_FALSE(alone);
  EXPECT_EQ(alone.error().message,
            "spec.source.path is a folder of a Flux source's artifact: give the source as "
            "spec.source.sourceRef, or leave path out");
  auto flux = spec(R"({"sourceRef":{"kind":"GitRepository","name":"fleet"},"path":"edge"})");
  ASSERT_TRUE(flux) << flux.error().message;
  EXPECT_EQ(flux->source_path, "edge");
  auto both = spec(R"({"sourceRef":{"kind":"GitRepository","name":"fleet"},"inline":"x"})");
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message,
            "spec.source must set exactly one of inline, configMapRef, configMapRefs, "
            "configMapSelector, sourceRef and url (it sets 2)");
}

// spec.serviceAccountName becomes the impersonated user: only a ServiceAccount name (a DNS-1123
// subdomain) is taken, so no line break, colon or upper case reaches a header.
TEST(SeedSpecTest, AServiceAccountNameThatIsNotOneIsRefused) {
  auto spec = [](std::string sa) {
    boost::json::object seed{{"spec", {{"source", {{"inline", "x"}}}, {"serviceAccountName", sa}}}};
    return parse_seed_spec(seed);
  };
  for (std::string good : {"deployer", "team.deployer", "a-1"}) {
    auto s = spec(good);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->service_account, good);
  }
  EXPECT_EQ(spec("")->service_account, "default");
  for (std::string bad : {std::string("deployer\r\nImpersonate-Group: system:masters"),
                          std::string("Deployer"), std::string("team:deployer"), std::string("-x"),
                          std::string(254, 'a'), std::string("a\0b", 3)}) {
    auto s = spec(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(
        s.error().message.find("is not a ServiceAccount name: a lowercase RFC 1123 subdomain"),
        std::string::npos)
        << s.error().message;
    EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << "escaped: " << s.error().message;
  }
}

TEST(SeedSpecTest, DriftCheckIntervalIsAKubernetesDuration) {
  EXPECT_EQ(parse_duration("90s"), milliseconds(90'000));
  EXPECT_EQ(parse_duration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(parse_duration("1.5h"), milliseconds(5'400'000));
  EXPECT_EQ(parse_duration("250ms"), milliseconds(250));
  for (const char* bad : {"", "5", "m", "5x", "1..5s", "-5s", ".s", "5m3"})
    EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
  for (const char* back : {"10m", "1h30m", "45s", "250ms", "2h", "1m5s"})
    EXPECT_EQ(format_duration(*parse_duration(back)), back);
  auto spec = [](const char* interval) {
    return parse_seed_spec(
        boost::json::parse(
            std::string(R"({"spec":{"source":{"inline":"x"},"driftCheckInterval":")") + interval +
            "\"}}")
            .as_object());
  };
  ASSERT_TRUE(spec("5m"));
  EXPECT_EQ(spec("5m")->drift_check_interval, std::chrono::seconds(300));
  ASSERT_FALSE(spec("100ms"));
  EXPECT_EQ(spec("soon").error().message,
            "spec.driftCheckInterval is \"soon\": write a duration of at least 1s, such as 30s, "
            "5m or 1h");
}

}  // namespace
}  // namespace planter::op
