// The engine's unit state machine without a server: the fleet is a double (plant/fleet.h) whose
// clusters accept, refuse or fail applies as a test says, and whose Namespaces turn Active a
// moment after they are written, as the namespace controller does.
#include "plant/engine.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/object.h"
#include "test_support.h"

namespace planter::plant {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;
using testing::plan_yaml;

// What the double's clusters do, shared with the test.
struct Script {
  // Errors the next applies of an object ("Kind/ns/name") get, one per attempt, in order.
  std::map<std::string, std::vector<kube::ApiError>> errors;
  std::vector<std::string> applied;  // "Kind/ns/name", in the order the applies succeeded
  bool namespaces_activate = true;
};

class FakeFleet : public Fleet {
 public:
  FakeFleet(EventLoop& loop, FleetHandlers handlers, Script& script)
      : loop_(loop), handlers_(std::move(handlers)), script_(script) {}

  void start() override {}
  void stop() override {}
  Link link(const std::string&) const override { return Link::kLinked; }
  std::string link_status(const std::string&) const override { return {}; }

  bool apply(const Unit& unit, json::object body, kube::ApplyOptions,
             kube::Client::ObjectDone done) override {
    std::string av = string_field(body, {"apiVersion"});
    std::string kind = string_field(body, {"kind"});
    std::string ns = string_field(body, {"metadata", "namespace"});
    std::string name = string_field(body, {"metadata", "name"});
    std::string who = kind + "/" + (ns.empty() ? "" : ns + "/") + name;
    auto& errors = script_.errors[who];
    if (!errors.empty()) {
      kube::ApiError e = errors.front();
      errors.erase(errors.begin());
      loop_.post([done, e] { done(e); });
      return true;
    }
    std::string key = object_key(split_api_version(av).first, kind, ns, name);
    objects_[unit.cluster + "\n" + key] = body;
    script_.applied.push_back(who);
    loop_.post([done, body] { done(body); });
    if (kind == "Namespace" && av == "v1" && script_.namespaces_activate)
      loop_.post_after(milliseconds(5), [this, cluster = unit.cluster, key] {
        json::object& o = objects_[cluster + "\n" + key];
        o["status"] = json::object{{"phase", "Active"}};
        handlers_.changed(cluster, key, o);
      });
    return true;
  }

  void watch(const std::string&, const std::string&, const std::string&, const std::string&,
             const std::string&) override {}
  bool synced(const std::string&, const std::string&, const std::string&) const override {
    return true;
  }
  std::optional<json::object> get(const std::string& cluster, const std::string& av,
                                  const std::string& kind, const std::string& ns,
                                  const std::string& name) const override {
    auto it =
        objects_.find(cluster + "\n" + object_key(split_api_version(av).first, kind, ns, name));
    if (it == objects_.end()) return std::nullopt;
    return it->second;
  }
  Readiness readiness(const std::string& cluster, const std::string& av, const std::string& kind,
                      const std::string& ns, const std::string& name,
                      const ReadinessPredicate& p) const override {
    auto it =
        objects_.find(cluster + "\n" + object_key(split_api_version(av).first, kind, ns, name));
    return check_readiness(p, it == objects_.end() ? nullptr : &it->second);
  }
  void for_each(const std::string&, const std::string&, const std::string&,
                const std::function<void(const json::object&)>&) const override {}
  KindState kind_state(const std::string&, const std::string&, const std::string&) const override {
    return KindState::kServed;
  }
  void check_kind(const std::string&, const std::string&, const std::string&) override {}
  void forget_kind(const std::string&, const std::string&, const std::string&) override {}

 private:
  EventLoop& loop_;
  FleetHandlers handlers_;
  Script& script_;
  std::map<std::string, json::object> objects_;  // cluster \n object key
};

PlantOutcome plant_on_fake(const Plan& plan, Script& script,
                           std::optional<milliseconds> timeout = milliseconds(5000)) {
  EngineOptions options;
  options.seed_name = "test";
  options.timeout = timeout;
  return plant_with(
      plan,
      [&script](EventLoop& loop, FleetHandlers h) {
        return std::make_unique<FakeFleet>(loop, std::move(h), script);
      },
      options);
}

const char* kSeed =
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n---\n"
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: shop, annotations: "
    "{planter.nephio.org/dependencies: ConfigMap/a}}\n";

kube::ApiError error(int code, std::string reason, std::string message) {
  kube::ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

size_t index_of(const Plan& plan, const std::string& short_form) {
  for (size_t u = 0; u < plan.units.size(); ++u)
    if (plan.object_of(plan.units[u]).ref.short_form() == short_form) return u;
  ADD_FAILURE() << short_form << " is not in the plan";
  return 0;
}

TEST(Engine, DeclaresEachUnitOnceItsRequirementsHoldAndNotBefore) {
  auto planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  Script script;
  PlantOutcome out = plant_on_fake(planned.plan, script);
  EXPECT_TRUE(out.all_declared());
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(script.applied,
            (std::vector<std::string>{"Namespace/shop", "ConfigMap/shop/a", "ConfigMap/shop/b"}));
  const UnitRecord& a = out.units[index_of(planned.plan, "ConfigMap/shop/a")];
  EXPECT_EQ(a.attempts, 1);
  EXPECT_EQ(a.held_by, "Namespace/shop active");
  ASSERT_TRUE(a.ready && a.declared);
  EXPECT_LE(*a.ready, *a.declared);
}

TEST(Engine, ARefusedUnitFailsWithTheServersMessageAndBlocksWhatNeedsIt) {
  auto planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok());
  Script script;
  script.errors["ConfigMap/shop/a"] = {error(422, "Invalid", "data: Invalid value")};
  PlantOutcome out = plant_on_fake(planned.plan, script);
  const UnitRecord& a = out.units[index_of(planned.plan, "ConfigMap/shop/a")];
  const UnitRecord& b = out.units[index_of(planned.plan, "ConfigMap/shop/b")];
  EXPECT_EQ(a.state, UnitState::kFailed);
  EXPECT_NE(a.error.find("data: Invalid value"), std::string::npos) << a.error;
  EXPECT_EQ(b.state, UnitState::kBlocked);
  EXPECT_EQ(b.error, "by v1 ConfigMap shop/a on SELF failed");
  EXPECT_EQ(script.applied, (std::vector<std::string>{"Namespace/shop"}));
  EXPECT_FALSE(out.timed_out);  // nothing left to wait for: it ends at once
}

TEST(Engine, TransientFailuresAreTriedAgainUntilTheyPass) {
  auto planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok());
  Script script;
  script.errors["ConfigMap/shop/a"] = {error(503, "ServiceUnavailable", "etcd is busy"),
                                       error(429, "TooManyRequests", "slow down"),
                                       error(500, "InternalError", "oops")};
  PlantOutcome out = plant_on_fake(planned.plan, script);
  EXPECT_TRUE(out.all_declared());
  EXPECT_EQ(out.units[index_of(planned.plan, "ConfigMap/shop/a")].attempts, 4);
  EXPECT_EQ(script.applied.back(), "ConfigMap/shop/b");
}

TEST(Engine, ARequirementThatNeverHoldsEndsInTheTimeoutSayingWhatItWaitsFor) {
  auto planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok());
  Script script;
  script.namespaces_activate = false;
  PlantOutcome out = plant_on_fake(planned.plan, script, milliseconds(300));
  EXPECT_TRUE(out.timed_out);
  const UnitRecord& a = out.units[index_of(planned.plan, "ConfigMap/shop/a")];
  EXPECT_EQ(a.state, UnitState::kPending);
  EXPECT_EQ(a.attempts, 0);
  EXPECT_NE(a.waiting_for.find("Namespace/shop active"), std::string::npos) << a.waiting_for;
  EXPECT_EQ(script.applied, (std::vector<std::string>{"Namespace/shop"}));
}

}  // namespace
}  // namespace planter::plant
