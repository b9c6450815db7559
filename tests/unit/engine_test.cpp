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
  std::vector<std::string> removed;  // "Kind/ns/name", in the order they were deleted
  bool namespaces_activate = true;
  // Objects the clusters hold from the start (Nodes, an operator's states), on SELF.
  std::vector<json::object> objects;
  // Per cluster, what the fit model reads there instead of `objects` (its Nodes).
  std::map<std::string, std::vector<json::object>> nodes_of;
  std::map<std::string, Fleet::Link> links;          // every other cluster is linked
  std::map<std::string, milliseconds> linked_after;  // connecting until then
  // What the engine said of each cluster's need ("SELF not needed"), each with the objects
  // applied by then.
  std::vector<std::pair<std::string, size_t>> needs;
};

class FakeFleet : public Fleet {
 public:
  FakeFleet(EventLoop& loop, FleetHandlers handlers, Script& script)
      : loop_(loop), handlers_(std::move(handlers)), script_(script) {
    for (const json::object& o : script.objects)
      objects_["SELF\n" + object_key(split_api_version(string_field(o, {"apiVersion"})).first,
                                     string_field(o, {"kind"}),
                                     string_field(o, {"metadata", "namespace"}),
                                     string_field(o, {"metadata", "name"}))] = o;
  }

  void start() override {
    for (const auto& [cluster, after] : script_.linked_after)
      loop_.post_after(after, [this, cluster] {
        script_.links.erase(cluster);
        handlers_.linked(cluster);
      });
  }
  void stop() override {}
  Link link(const std::string& cluster) const override {
    if (script_.linked_after.contains(cluster) && !script_.links.contains(cluster))
      return Link::kLinked;
    auto it = script_.links.find(cluster);
    return it == script_.links.end() ? Link::kLinked : it->second;
  }
  std::string link_status(const std::string& cluster) const override {
    return link(cluster) == Link::kFailed ? "its kubeconfig is not usable" : "";
  }

  bool apply(const Unit& unit, json::object body, kube::ApplyOptions options,
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
    bool fresh = objects_.insert_or_assign(unit.cluster + "\n" + key, body).second;
    if (options.on_answer) options.on_answer(std::chrono::microseconds(0), fresh ? 201 : 200);
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

  bool remove(const Unit& unit, const ObjectRef& ref, kube::DeleteOptions,
              kube::Client::ObjectDone done) override {
    objects_.erase(
        unit.cluster + "\n" +
        object_key(split_api_version(ref.api_version).first, ref.kind, ref.ns, ref.name));
    script_.removed.push_back(ref.kind + "/" + (ref.ns.empty() ? "" : ref.ns + "/") + ref.name);
    loop_.post([done] { done(json::object{{"kind", "Status"}, {"status", "Success"}}); });
    return true;
  }

  void needed(const std::string& cluster, bool needed) override {
    script_.needs.emplace_back(cluster + (needed ? " needed" : " not needed"),
                               script_.applied.size());
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
  void for_each(const std::string& cluster, const std::string& av, const std::string& kind,
                const std::function<void(const json::object&)>& fn) const override {
    auto own = script_.nodes_of.find(cluster);
    for (const json::object& o : own != script_.nodes_of.end() ? own->second : script_.objects)
      if (string_field(o, {"apiVersion"}) == av && string_field(o, {"kind"}) == kind) fn(o);
  }
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
                           std::optional<milliseconds> timeout = milliseconds(5000),
                           std::map<std::string, std::vector<std::string>> kept_choices = {},
                           std::optional<milliseconds> yield_waiting_on_clusters = std::nullopt) {
  EngineOptions options;
  options.yield_waiting_on_clusters = yield_waiting_on_clusters;
  options.kept_choices = std::move(kept_choices);
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

json::object node(const std::string& name, const std::string& cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"status", {{"allocatable", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
}

// A cluster choice (docs/placement.md): among three candidates, one too small and one that cannot
// be reached, the object goes to the one where it fits; the other two end not-chosen (the run is
// complete, nothing failed), and so do the Namespace units placed only for it. A kept choice
// stays, even where another cluster has more room.
TEST(Engine, AClusterChoiceGoesWhereItFitsAndTheOthersAreNotChosen) {
  PlanOptions options;
  for (const char* name : {"e1", "e2", "e3"})
    options.clusters.push_back({name, "flag", {}, std::nullopt, name, {{"tier", "edge"}}});
  auto planned = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: web\n  annotations:\n"
      "    planter.nephio.org/cluster-selector: tier=edge\n"
      "    planter.nephio.org/cluster-count: \"1\"\n"
      "spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: \"2\"}}}]}\n",
      options);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  Script script;
  script.nodes_of["e1"] = {node("e1-n", "1")};
  script.nodes_of["e2"] = {node("e2-n", "4")};
  script.nodes_of["e3"] = {node("e3-n", "64")};
  script.links["e3"] = Fleet::Link::kFailed;
  // e1 answers later: until then the choice is open, and e3's units wait instead of failing.
  script.links["e1"] = Fleet::Link::kConnecting;
  script.linked_after["e1"] = milliseconds(20);
  PlantOutcome out = plant_on_fake(planned.plan, script);
  EXPECT_TRUE(out.all_declared());
  EXPECT_EQ(out.count(UnitState::kFailed), 0u);
  EXPECT_EQ(out.count(UnitState::kNotChosen), 4u);  // the Pod and its Namespace on e1 and e3
  EXPECT_EQ(script.applied, (std::vector<std::string>{"Namespace/web", "Pod/web/p"}));
  ASSERT_EQ(out.choices.size(), 1u);
  EXPECT_EQ(out.choices[0].result.chosen, std::vector<std::string>{"e2"});
  for (size_t u = 0; u < planned.plan.units.size(); ++u)
    if (planned.plan.units[u].cluster == "e3") {
      EXPECT_EQ(out.units[u].state, UnitState::kNotChosen);
      EXPECT_NE(out.units[u].waiting_for.find("chose e2 (score 100)"), std::string::npos)
          << out.units[u].waiting_for;
    }

  // Chosen before: e1 is kept though the Pod does not fit there now (it is already there).
  Script again;
  again.nodes_of = script.nodes_of;
  again.nodes_of["e3"] = {node("e3-n", "64")};
  out = plant_on_fake(planned.plan, again, milliseconds(5000),
                      {{"v1 Pod web/p", std::vector<std::string>{"e1"}}});
  EXPECT_TRUE(out.all_declared());
  ASSERT_EQ(out.choices.size(), 1u);
  EXPECT_EQ(out.choices[0].result.chosen, std::vector<std::string>{"e1"});
  EXPECT_EQ(fit::chosen_text(out.choices[0].result), "e1 (kept)");
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

// A fleet of thousands of clusters keeps open only the watches of those still planting: the
// engine says a cluster is not needed once, when the last open unit that reads it ends.
TEST(Engine, AClusterIsLetGoOnceWhenTheLastUnitThatReadsItEnds) {
  auto planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok());
  Script script;
  PlantOutcome out = plant_on_fake(planned.plan, script);
  ASSERT_TRUE(out.all_declared());
  using Needs = std::vector<std::pair<std::string, size_t>>;
  EXPECT_EQ(script.needs, (Needs{{"SELF not needed", 3}}));  // after b, the last applied

  // A unit that fails ends too: b, blocked by it, was the other reader.
  Script refused;
  refused.errors["ConfigMap/shop/a"] = {error(422, "Invalid", "data: Invalid value")};
  plant_on_fake(planned.plan, refused);
  EXPECT_EQ(refused.needs, (Needs{{"SELF not needed", 1}}));
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

// The operator's runs give their worker back once every open unit has waited a while for a
// cluster that is not linked (being provisioned), and only then: a wait on a linked cluster
// goes on to the timeout.
TEST(Engine, ARunThatWaitsOnlyForClustersToBeLinkedEndsEarlyWhenAsked) {
  PlanOptions options;
  options.clusters.push_back({"e1", "flag", {}, std::nullopt, "e1", {}});
  auto planned = plan_yaml(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: here}\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
      "  name: there\n  annotations: {planter.nephio.org/cluster: e1}\n",
      options);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  Script script;
  script.links["e1"] = Fleet::Link::kWaiting;
  auto began = std::chrono::steady_clock::now();
  PlantOutcome out =
      plant_on_fake(planned.plan, script, milliseconds(20'000), {}, milliseconds(50));
  EXPECT_TRUE(out.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - began, milliseconds(10'000));
  EXPECT_EQ(script.applied, (std::vector<std::string>{"ClusterRole/here"}));
  EXPECT_EQ(out.units[index_of(planned.plan, "ClusterRole/there")].state, UnitState::kPending);

  // Waiting on a linked cluster (SELF's Namespace never active), the run is not ended early.
  auto waits_on_self = plan_yaml(kSeed);
  ASSERT_TRUE(waits_on_self.ok());
  Script self;
  self.namespaces_activate = false;
  began = std::chrono::steady_clock::now();
  out = plant_on_fake(waits_on_self.plan, self, milliseconds(400), {}, milliseconds(50));
  EXPECT_TRUE(out.timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - began, milliseconds(400));
}

// A Node with `devices` SR-IOV VFs, and its SriovNetworkNodeState saying `sync`.
std::vector<json::object> sriov_node(const std::string& name, int devices, const char* sync) {
  json::object node{{"apiVersion", "v1"},
                    {"kind", "Node"},
                    {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
                    {"status",
                     {{"allocatable",
                       {{"cpu", "8"},
                        {"memory", "32Gi"},
                        {"pods", "110"},
                        {"openshift.io/intelnics", std::to_string(devices)}}}}}};
  json::object state{{"apiVersion", "sriovnetwork.openshift.io/v1"},
                     {"kind", "SriovNetworkNodeState"},
                     {"metadata", {{"name", name}, {"namespace", "sriov"}}},
                     {"status", {{"syncStatus", sync}}}};
  return {node, state};
}

const char* kSriovSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: sriov}
---
apiVersion: v1
kind: Namespace
metadata: {name: cnf}
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {name: intel, namespace: sriov}
spec: {resourceName: intelnics, numVfs: 8, nodeSelector: {kubernetes.io/os: linux}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: upf, namespace: cnf}
spec:
  replicas: 2
  selector: {matchLabels: {app: upf}}
  template:
    metadata: {labels: {app: upf}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: upf}}}
      containers: [{name: upf, resources: {limits: {openshift.io/intelnics: "1"}}}]
)";

// node-capability: a node counts once it has the devices and, when its provider says "done" per
// node (an SriovNetworkNodeState), once that says Succeeded.
TEST(Engine, ANodeCountsForANeedOnceItsProvidersNodeStateSaysSucceeded) {
  auto planned = plan_yaml(kSriovSeed);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  Script script;
  for (auto& o : sriov_node("n1", 8, "Succeeded")) script.objects.push_back(o);
  for (auto& o : sriov_node("n2", 8, "InProgress")) script.objects.push_back(o);
  for (auto& o : sriov_node("n3", 0, "Succeeded")) script.objects.push_back(o);
  PlantOutcome out = plant_on_fake(planned.plan, script, milliseconds(300));
  EXPECT_TRUE(out.timed_out);
  const UnitRecord& upf = out.units[index_of(planned.plan, "Deployment/cnf/upf")];
  EXPECT_EQ(upf.state, UnitState::kPending);
  EXPECT_NE(upf.waiting_for.find(
                "2 nodes of SELF with openshift.io/intelnics ≥ 1: 1/3 nodes have it (1 "
                "Insufficient openshift.io/intelnics, 1 node(s) whose SriovNetworkNodeState does "
                "not say jsonpath={.status.syncStatus}=Succeeded yet)"),
            std::string::npos)
      << upf.waiting_for;

  Script done;
  for (auto& o : sriov_node("n1", 8, "Succeeded")) done.objects.push_back(o);
  for (auto& o : sriov_node("n2", 8, "Succeeded")) done.objects.push_back(o);
  out = plant_on_fake(planned.plan, done);
  EXPECT_TRUE(out.all_declared());
  EXPECT_EQ(done.applied.back(), "Deployment/cnf/upf");
}

// The server refuses a change of an immutable field (a PodGroup's spec): the object that says
// planter.nephio.org/on-immutable: replace is deleted and created again (its apply refused once
// more while finalizers still hold it), and says `replaced`; one that does not fails, saying why
// and what to do.
TEST(Engine, AnImmutableChangeReplacesTheObjectThatSaysSoAndFailsTheOther) {
  auto planned = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n"
      "  annotations: {planter.nephio.org/on-immutable: replace}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: shop}\n");
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  kube::ApiError immutable = error(422, "Invalid",
                                   "ConfigMap \"a\" is invalid: data: Invalid value: \"x\": field "
                                   "is immutable when `immutable` is set");
  immutable.causes.push_back(
      {"FieldValueInvalid", "field is immutable when `immutable` is set", "data"});
  Script script;
  script.errors["ConfigMap/shop/a"] = {immutable, immutable};
  script.errors["ConfigMap/shop/b"] = {immutable};
  PlantOutcome out = plant_on_fake(planned.plan, script);
  const UnitRecord& a = out.units[index_of(planned.plan, "ConfigMap/shop/a")];
  EXPECT_EQ(a.state, UnitState::kDeclared) << a.error;
  EXPECT_EQ(a.applied, Applied::kReplaced);
  EXPECT_EQ(a.replacing, "data");
  EXPECT_EQ(script.removed, (std::vector<std::string>{"ConfigMap/shop/a", "ConfigMap/shop/a"}));
  const UnitRecord& b = out.units[index_of(planned.plan, "ConfigMap/shop/b")];
  EXPECT_EQ(b.state, UnitState::kFailed);
  EXPECT_NE(b.error.find("field is immutable"), std::string::npos) << b.error;
}

}  // namespace
}  // namespace planter::plant
