// check_current (plant/kstatus.h), a row per rule: what `plant --wait` calls healthy, and the
// words it gives when an object is not.
#include "plant/kstatus.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace planter::plant {
namespace {

struct Row {
  const char* what;
  const char* object;  // JSON
  bool current;
  const char* why;  // when not current
};

const Row kRows[] = {
    {"a ConfigMap: current once it exists", R"({"apiVersion":"v1","kind":"ConfigMap"})", true, ""},
    {"being deleted",
     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"}})",
     false, "it is being deleted"},
    {"a Deployment rolled out",
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},"spec":{"replicas":2},
        "status":{"observedGeneration":2,"replicas":2,"updatedReplicas":2,"availableReplicas":2}})",
     true, ""},
    {"a Deployment short of replicas, with its own condition's words",
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},"spec":{"replicas":2},
        "status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"availableReplicas":1,
        "conditions":[{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable",
        "message":"Deployment does not have minimum availability."}]}})",
     false,
     "1 of 2 updated replicas available (MinimumReplicasUnavailable: Deployment does not have "
     "minimum availability.)"},
    {"a custom resource whose controller is behind",
     R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generation":3},
        "status":{"observedGeneration":2}})",
     false, "its controller has not observed generation 3 yet (status is of generation 2)"},
    {"a custom resource Ready",
     R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generation":1},
        "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True"}]}})",
     true, ""},
    {"a custom resource not Ready",
     R"({"apiVersion":"example.com/v1","kind":"Widget","status":{"conditions":[
        {"type":"Ready","status":"False","reason":"NoSecret","message":"secret db not found"}]}})",
     false, "not Ready: NoSecret: secret db not found"},
    {"a custom resource with no conditions: current",
     R"({"apiVersion":"example.com/v1","kind":"Widget","status":{}})", true, ""},
    {"Reconciling True",
     R"({"apiVersion":"example.com/v1","kind":"Widget","status":{"conditions":[
        {"type":"Reconciling","status":"True","reason":"Progressing","message":"fetching"}]}})",
     false, "reconciling: Progressing: fetching"},
    {"Stalled True beats Ready True",
     R"({"apiVersion":"example.com/v1","kind":"Widget","status":{"conditions":[
        {"type":"Ready","status":"True"},
        {"type":"Stalled","status":"True","reason":"BuildFailed","message":"no such tag"}]}})",
     false, "stalled: BuildFailed: no such tag"},
    {"a Job complete",
     R"({"apiVersion":"batch/v1","kind":"Job","status":{"conditions":[{"type":"Complete","status":"True"}]}})",
     true, ""},
    {"a PVC pending",
     R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Pending"}})", false,
     "the claim is Pending"},
};

TEST(KstatusTest, EachRuleAsTheTableSays) {
  for (const Row& row : kRows) {
    Readiness r = check_current(boost::json::parse(row.object).as_object());
    EXPECT_EQ(r.holds, row.current) << row.what;
    if (!row.current) {
      EXPECT_EQ(r.why, row.why) << row.what;
    }
  }
}

}  // namespace
}  // namespace planter::plant
