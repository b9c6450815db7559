// The sim's patch formats and field ownership, on the documents clients actually send.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sim/field_manager.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/patch.h"
#include "sim/selectors.h"
#include "sim/store.h"

namespace planter::sim {
namespace {

namespace json = boost::json;

json::value J(std::string_view s) {
  return json::parse(s);
}

TEST(MergePatchTest, MergesMapsAndDeletesNulls) {
  auto r = apply_merge_patch(J(R"({"a":{"b":1,"c":2},"l":[1,2]})"),
                             J(R"({"a":{"b":null,"d":3},"l":[3]})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, J(R"({"a":{"c":2,"d":3},"l":[3]})"));
}

TEST(JsonPatchTest, AddReplaceRemoveMoveCopyTest) {
  auto r = apply_json_patch(J(R"({"metadata":{"labels":{"a":"1"}},"items":[1,2]})"),
                            J(R"([{"op":"add","path":"/metadata/labels/b~1c","value":"2"},
                                  {"op":"replace","path":"/metadata/labels/a","value":"x"},
                                  {"op":"add","path":"/items/-","value":3},
                                  {"op":"remove","path":"/items/0"},
                                  {"op":"copy","from":"/items/0","path":"/first"},
                                  {"op":"move","from":"/first","path":"/moved"},
                                  {"op":"test","path":"/moved","value":2}])"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, J(R"({"metadata":{"labels":{"a":"x","b/c":"2"}},"items":[2,3],"moved":2})"));
}

TEST(JsonPatchTest, FailedTestAndMissingPathAreErrors) {
  EXPECT_FALSE(
      apply_json_patch(J(R"({"a":1})"), J(R"([{"op":"test","path":"/a","value":2}])")).ok());
  auto r = apply_json_patch(J(R"({"a":1})"), J(R"([{"op":"remove","path":"/b"}])"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nonexistent"), std::string::npos);
}

// What kubectl apply sends for a Deployment whose container image and env changed.
TEST(StrategicMergePatchTest, MergesContainersByNameAndHonoursDirectives) {
  json::value live = J(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"a:1","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]},
      {"name":"side","image":"s:1"}]}}},
      "metadata":{"finalizers":["a"]}})");
  json::value patch = J(R"({"spec":{"template":{"spec":{
      "$setElementOrder/containers":[{"name":"side"},{"name":"app"}],
      "containers":[{"name":"app","image":"a:2","env":[{"name":"Y","$patch":"delete"}]}]}}},
      "metadata":{"finalizers":["b"]}})");
  auto r = apply_strategic_merge_patch(live, patch);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, J(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"side","image":"s:1"},
      {"name":"app","image":"a:2","env":[{"name":"X","value":"1"}]}]}}},
      "metadata":{"finalizers":["a","b"]}})"));
}

TEST(StrategicMergePatchTest, RetainKeysAndReplace) {
  auto r = apply_strategic_merge_patch(
      J(R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"x":{"a":1,"b":2}})"),
      J(R"({"strategy":{"$retainKeys":["type"],"type":"Recreate"},"x":{"$patch":"replace","c":3}})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, J(R"({"strategy":{"type":"Recreate"},"x":{"c":3}})"));
}

TEST(SelectorTest, LabelSelectorGrammar) {
  auto sel = LabelSelector::parse("app=web,tier in (front, back),!legacy,env!=prod");
  ASSERT_TRUE(sel.ok()) << sel.error().message;
  auto obj = [](std::string_view labels) {
    return J(std::string(R"({"metadata":{"labels":)") + std::string(labels) + "}}").as_object();
  };
  EXPECT_TRUE(sel->matches(obj(R"({"app":"web","tier":"back"})")));
  EXPECT_FALSE(sel->matches(obj(R"({"app":"web","tier":"db"})")));
  EXPECT_FALSE(sel->matches(obj(R"({"app":"web","tier":"front","legacy":"1"})")));
  EXPECT_FALSE(sel->matches(obj(R"({"app":"web","tier":"front","env":"prod"})")));
  EXPECT_FALSE(LabelSelector::parse("tier in (a").ok());
}

// A query's labelSelector and an object's metav1.LabelSelector are read into the same
// requirements and matched by one function: written alike, they select the same objects.
TEST(SelectorTest, AQuerysSelectorAndAnObjectsSelectorSelectAlike) {
  auto query = LabelSelector::parse("app=web,tier in (front, back),!legacy,env!=prod");
  ASSERT_TRUE(query.ok()) << query.error().message;
  json::value written = J(R"({"matchLabels": {"app": "web"}, "matchExpressions": [
      {"key": "tier", "operator": "In", "values": ["front", "back"]},
      {"key": "legacy", "operator": "DoesNotExist"},
      {"key": "env", "operator": "NotIn", "values": ["prod"]}]})");
  sched::CompiledSelector object(&written);
  int selected = 0, cases = 0;
  for (std::string_view labels :
       {R"({"app":"web","tier":"back"})", R"({"app":"web","tier":"front","env":"dev"})",
        R"({"app":"web","tier":"db"})", R"({"app":"web","tier":"front","legacy":"1"})",
        R"({"app":"web","tier":"front","env":"prod"})", R"({"tier":"front"})", R"({})"}) {
    json::object o =
        J(std::string(R"({"metadata":{"labels":)") + std::string(labels) + "}}").as_object();
    bool by_query = query->matches(o);
    EXPECT_EQ(by_query, object.matches(labels_of(o))) << labels;
    selected += by_query;
    ++cases;
  }
  EXPECT_EQ(selected, 2);
  EXPECT_EQ(cases, 7);
  json::object unlabelled = J(R"({"metadata":{"name":"x"}})").as_object();
  EXPECT_FALSE(object.matches(labels_of(unlabelled)));
  json::value empty = J("{}");  // selects everything, as metav1.LabelSelector{} does
  EXPECT_TRUE(sched::CompiledSelector(&empty).matches(labels_of(unlabelled)));
  EXPECT_FALSE(sched::CompiledSelector(nullptr).matches(labels_of(unlabelled)));
}

TEST(SelectorTest, FieldSelectorsAreLimitedPerKindAsOnARealServer) {
  auto ok = FieldSelector::parse("metadata.name=x,status.phase!=Running", "Pod", false);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(
      ok->matches(J(R"({"metadata":{"name":"x"},"status":{"phase":"Pending"}})").as_object()));
  EXPECT_FALSE(
      ok->matches(J(R"({"metadata":{"name":"x"},"status":{"phase":"Running"}})").as_object()));
  auto bad = FieldSelector::parse("spec.replicas=1", "Deployment", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "field label not supported: spec.replicas");
}

WriteContext ctx(std::string manager) {
  return WriteContext{std::move(manager), "apps/v1", "2026-11-21T10:00:00Z", "",
                      FieldScope::kWithoutStatus};
}

const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
  "spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1"}]}}}})";

TEST(ServerSideApplyTest, FirstApplyOwnsWhatItSent) {
  json::object result;
  auto conflicts =
      server_side_apply(nullptr, J(kDeployment).as_object(), false, ctx("planter"), result);
  ASSERT_TRUE(conflicts.empty());
  const auto& mf = result.at("metadata").at("managedFields").as_array();
  ASSERT_EQ(mf.size(), 1u);
  EXPECT_EQ(mf[0].at("manager"), "planter");
  EXPECT_EQ(mf[0].at("operation"), "Apply");
  EXPECT_EQ(mf[0].at("fieldsV1"), J(R"({"f:metadata":{"f:labels":{"f:app":{}}},
    "f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{
      "k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}})"));
}

TEST(ServerSideApplyTest, ConflictWithAnotherManagerUnlessForced) {
  json::object first;
  server_side_apply(nullptr, J(kDeployment).as_object(), false, ctx("planter"), first);
  json::object change = J(kDeployment).as_object();
  change["spec"].as_object()["replicas"] = 3;
  json::object second;
  auto conflicts = server_side_apply(&first, change, false, ctx("hpa"), second);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].manager, "planter");
  EXPECT_EQ(conflicts[0].field, ".spec.replicas");
  // Same values are shared, not conflicting.
  json::object same;
  EXPECT_TRUE(
      server_side_apply(&first, J(kDeployment).as_object(), false, ctx("other"), same).empty());
  // Forced: the field moves to the new manager.
  ASSERT_TRUE(server_side_apply(&first, change, true, ctx("hpa"), second).empty());
  EXPECT_EQ(second.at("spec").at("replicas"), 3);
  std::string mf = json::serialize(second.at("metadata").at("managedFields"));
  EXPECT_NE(mf.find("\"manager\":\"hpa\""), std::string::npos);
}

TEST(ServerSideApplyTest, FieldsNoLongerAppliedAreRemoved) {
  json::object first;
  server_side_apply(nullptr, J(kDeployment).as_object(), false, ctx("planter"), first);
  json::object smaller = J(kDeployment).as_object();
  smaller["metadata"].as_object().erase("labels");
  json::object second;
  ASSERT_TRUE(server_side_apply(&first, smaller, false, ctx("planter"), second).empty());
  EXPECT_FALSE(second.at("metadata").as_object().contains("labels") &&
               second.at("metadata").at("labels").as_object().contains("app"));
}

TEST(ServerSideApplyTest, UpdatesTakeOwnershipWithoutConflict) {
  json::object first;
  server_side_apply(nullptr, J(kDeployment).as_object(), false, ctx("planter"), first);
  json::object edited = first;
  edited["spec"].as_object()["replicas"] = 5;
  record_update(&first, edited,
                WriteContext{"kubectl-edit", "apps/v1", "t", "", FieldScope::kWithoutStatus});
  json::object again;
  auto conflicts =
      server_side_apply(&edited, J(kDeployment).as_object(), false, ctx("planter"), again);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].manager, "kubectl-edit");
}

}  // namespace
}  // namespace planter::sim

namespace planter::sim {
namespace {

// The garbage collector's index follows ownerReferences through updates and deletions.
// A create's ownership is built straight from the object; it must be the tree an apply of the
// same object owns, byte for byte (kubectl prints it in that order).
TEST(ServerSideApplyTest, ACreateOwnsWhatAnApplyOfTheSameObjectOwns) {
  const char* pod = R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"default","uid":"u","generateName":"p-",
                "labels":{"b":"2","a":"1"},"annotations":{}},
    "spec":{"volumes":[{"name":"data","emptyDir":{}}],
            "containers":[{"name":"z","image":"i","ports":[{"containerPort":80},
                                                           {"containerPort":53,"protocol":"UDP"}],
                           "env":[{"name":"B","value":"1"},{"name":"A","value":"2"}],
                           "volumeMounts":[{"mountPath":"/d","name":"data"}],
                           "args":["x","y"],"resources":{}},
                          {"name":"a","image":"j"}],
            "tolerations":[{"key":"k","operator":"Exists"}],"nodeSelector":{"zone":"a"}},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}})";
  for (FieldScope scope : {FieldScope::kAll, FieldScope::kWithoutStatus, FieldScope::kStatusOnly}) {
    WriteContext c{"m", "v1", "2026-12-01T10:00:00Z", "", scope};
    json::object created = J(pod).as_object();
    record_update(nullptr, created, c);
    json::object applied;
    ASSERT_TRUE(server_side_apply(nullptr, J(pod).as_object(), false, c, applied).empty());
    const auto& mf = created.at("metadata").at("managedFields").as_array();
    ASSERT_EQ(mf.size(), 1u);
    EXPECT_EQ(mf[0].at("operation"), "Update");
    EXPECT_EQ(json::serialize(mf[0].at("fieldsV1")),
              json::serialize(applied.at("metadata").at("managedFields").at(0).at("fieldsV1")));
  }
  // Nothing owned (metadata of skipped fields only, status out of scope): no entry at all.
  json::object bare = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
                            "status":{"phase":"Pending"}})")
                          .as_object();
  record_update(nullptr, bare, WriteContext{"m", "v1", "t", "", FieldScope::kWithoutStatus});
  EXPECT_FALSE(bare.at("metadata").as_object().contains("managedFields"));
}

TEST(StoreTest, DependentsFollowOwnerReferences) {
  Store store;
  auto dependent = [](std::string_view refs) {
    return J(std::string(R"({"metadata":{"name":"d","namespace":"ns")") +
             (refs.empty() ? "" : std::string(R"(,"ownerReferences":)") + std::string(refs)) + "}}")
        .as_object();
  };
  store.put("/configmaps", dependent(R"([{"uid":"owner-1"},{"uid":"owner-2"}])"));
  ASSERT_EQ(store.dependents("owner-1").size(), 1u);
  EXPECT_EQ(store.dependents("owner-1")[0].first, "/configmaps");
  store.put("/configmaps", dependent(R"([{"uid":"owner-2"}])"));
  EXPECT_TRUE(store.dependents("owner-1").empty());
  EXPECT_EQ(store.dependents("owner-2").size(), 1u);
  store.erase("/configmaps", "ns", "d");
  EXPECT_TRUE(store.dependents("owner-2").empty());
}

TEST(StoreTest, WatchHistoryExpires) {
  Store store(3);
  for (int i = 0; i < 5; ++i)
    store.put("/configmaps", J(R"({"metadata":{"name":"c"}})").as_object());
  std::vector<uint64_t> seen;
  EXPECT_TRUE(store.changes_since(4, [&](const Change& c) { seen.push_back(c.resource_version); }));
  EXPECT_EQ(seen, (std::vector<uint64_t>{5, 6}));
  EXPECT_FALSE(store.changes_since(2, [](const Change&) {}));
}

}  // namespace
}  // namespace planter::sim
