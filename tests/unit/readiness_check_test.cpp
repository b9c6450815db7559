// What planter reads from a cluster's objects to decide that a requirement holds.
#include "plant/readiness_check.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>

#include "daemon/time_format.h"
#include "plan/jsonpath.h"

namespace planter::plant {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) {
  return json::parse(text).as_object();
}

const json::object kPod = parse(R"({
  "status": {"phase": "Running", "replicas": 3, "ready": true,
             "conditions": [{"type": "Ready", "status": "True"},
                            {"type": "Scheduled", "status": "False", "reason": "Unschedulable"}]}
})");

TEST(JsonPathTest, ReadsFieldsIndexesAndFiltersAsKubectlPrintsThem) {
  EXPECT_EQ(*eval_jsonpath(kPod, "{.status.phase}").value(), "Running");
  EXPECT_EQ(*eval_jsonpath(kPod, ".status.replicas").value(), "3");
  EXPECT_EQ(*eval_jsonpath(kPod, "{.status.ready}").value(), "true");
  EXPECT_EQ(*eval_jsonpath(kPod, "{.status.conditions[1].reason}").value(), "Unschedulable");
  EXPECT_EQ(*eval_jsonpath(kPod, R"({.status.conditions[?(@.type=="Ready")].status})").value(),
            "True");
  EXPECT_FALSE(eval_jsonpath(kPod, "{.status.missing}").value().has_value());
  EXPECT_FALSE(eval_jsonpath(kPod, "{.status.conditions[7]}").value().has_value());
}

TEST(JsonPathTest, MalformedExpressionsSayWhy) {
  EXPECT_NE(eval_jsonpath(kPod, "status.phase").error().message.find("must start with '.'"),
            std::string::npos);
  EXPECT_NE(eval_jsonpath(kPod, "{.status.conditions[x]}").error().message.find("neither"),
            std::string::npos);
  EXPECT_NE(eval_jsonpath(kPod, "{.status").error().message.find("closing brace"),
            std::string::npos);
}

TEST(ReadinessCheckTest, ASchedulerIsReadyWhileItsLeaseIsHeldAndRenewed) {
  using T = ReadinessPredicate::Type;
  ReadinessPredicate ready{T::kSchedulerReady, "planter", {}};
  auto lease = [](const std::string& holder, const std::string& renewed) {
    return json::parse(R"({"spec":{"holderIdentity":")" + holder + R"(","renewTime":")" + renewed +
                       R"(","leaseDurationSeconds":15}})")
        .as_object();
  };
  std::string now = daemon::rfc3339(std::chrono::system_clock::now(), true);
  auto held = lease("s1", now);
  EXPECT_TRUE(check_readiness(ready, &held).holds);
  auto stale = lease("s1", "2020-01-01T00:00:00.000000Z");
  Readiness r = check_readiness(ready, &stale);
  EXPECT_FALSE(r.holds);
  EXPECT_NE(r.why.find("s1 holds the Lease but last renewed it"), std::string::npos) << r.why;
  auto free = lease("", now);
  EXPECT_EQ(check_readiness(ready, &free).why, "no one holds the Lease");
  EXPECT_EQ(check_readiness(ready, nullptr).why, "not found");
}

TEST(ReadinessCheckTest, PredicatesOnObjects) {
  using T = ReadinessPredicate::Type;
  EXPECT_FALSE(check_readiness(ReadinessPredicate::of(T::kExists), nullptr).holds);
  EXPECT_EQ(check_readiness(ReadinessPredicate::of(T::kExists), nullptr).why, "not found");
  EXPECT_TRUE(check_readiness({T::kCondition, "Ready", {}}, &kPod).holds);
  Readiness scheduled = check_readiness({T::kCondition, "Scheduled", {}}, &kPod);
  EXPECT_FALSE(scheduled.holds);
  EXPECT_EQ(scheduled.why, "Scheduled is False (Unschedulable)");
  EXPECT_TRUE(check_readiness({T::kJsonPath, "{.status.phase}", "Running"}, &kPod).holds);
  EXPECT_EQ(check_readiness({T::kJsonPath, "{.status.phase}", "Done"}, &kPod).why,
            "{.status.phase} is \"Running\", not \"Done\"");

  json::object terminating = parse(R"({"status": {"phase": "Terminating"}})");
  EXPECT_EQ(check_readiness(ReadinessPredicate::of(T::kActive), &terminating).why,
            "phase is Terminating");
  json::object endpoints = parse(R"({"subsets": [{"notReadyAddresses": [{"ip": "10.0.0.1"}]}]})");
  EXPECT_FALSE(check_readiness(ReadinessPredicate::of(T::kEndpointsReady), &endpoints).holds);
  endpoints = parse(R"({"subsets": [{"addresses": [{"ip": "10.0.0.1"}]}]})");
  EXPECT_TRUE(check_readiness(ReadinessPredicate::of(T::kEndpointsReady), &endpoints).holds);
}

// A ready-when expression is parsed when the seed is planned, once: the engine checks the steps
// on every change of the object, and copies of the predicate share them.
TEST(ReadinessCheckTest, AReadyWhenExpressionIsParsedOnceAndItsCopiesShareTheSteps) {
  auto ready =
      ReadinessPredicate::parse(R"(jsonpath={.status.conditions[?(@.type=="Ready")].status}=True)");
  ASSERT_TRUE(ready) << ready.error().message;
  ASSERT_TRUE(ready->steps);
  EXPECT_EQ(ready->steps->size(), 4u);  // status, conditions, the filter, status
  ReadinessPredicate copy = ready.value();
  EXPECT_EQ(copy.steps.get(), ready->steps.get());
  EXPECT_TRUE(check_readiness(copy, &kPod).holds);

  auto ip = ReadinessPredicate::parse("jsonpath={.status.podIP}");
  ASSERT_TRUE(ip) << ip.error().message;
  ASSERT_TRUE(ip->steps);
  EXPECT_EQ(check_readiness(ip.value(), &kPod).why, "{.status.podIP} is not set");
  json::object with_ip = parse(R"({"status": {"podIP": "10.0.0.7"}})");
  EXPECT_TRUE(check_readiness(ip.value(), &with_ip).holds);

  // Made without parse (as a test does): its expression is parsed at each check instead.
  ReadinessPredicate unparsed{ReadinessPredicate::Type::kFieldSet, "{.status.podIP}", {}};
  EXPECT_FALSE(unparsed.steps);
  EXPECT_EQ(unparsed, ip.value());
  EXPECT_EQ(check_readiness(unparsed, &kPod).why, "{.status.podIP} is not set");

  auto bad = ReadinessPredicate::parse("jsonpath={.status.phase=Running");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("closing brace"), std::string::npos) << bad.error().message;
}

TEST(KubeconfigLocationTest, PlanterClusterApiAndProofOfConceptClusters) {
  auto planter_cluster = parse(R"({"apiVersion": "planter.nephio.org/v1alpha1", "kind": "Cluster",
    "metadata": {"name": "edge1", "namespace": "fleet"},
    "status": {"ready": true, "context": "edge1-admin@edge1",
               "kubeconfigSecretRef": {"name": "edge1-kubeconfig"}}})");
  auto where = kubeconfig_location(planter_cluster);
  ASSERT_TRUE(where) << where.error();
  EXPECT_EQ(where->secret_namespace, "fleet");
  EXPECT_EQ(where->secret_name, "edge1-kubeconfig");
  EXPECT_EQ(where->secret_key, "value");
  EXPECT_EQ(where->context, "edge1-admin@edge1");

  auto poc = parse(R"({"apiVersion": "planter.nephio.org/v1alpha1", "kind": "Cluster",
    "metadata": {"name": "edge1", "namespace": "fleet"},
    "status": {"conditions": [{"type": "Ready", "status": "True"}],
               "kubeconfigUrl": "file:///tmp/edge1.kubeconfig", "context": "kind-edge1"}})");
  where = kubeconfig_location(poc);
  ASSERT_TRUE(where) << where.error();
  EXPECT_EQ(where->url, "file:///tmp/edge1.kubeconfig");
  EXPECT_EQ(where->context, "kind-edge1");

  auto capi = parse(R"({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
    "metadata": {"name": "edge2", "namespace": "fleet"}, "status": {"phase": "Provisioning"}})");
  EXPECT_EQ(kubeconfig_location(capi).error(), "phase is Provisioning");
  capi["status"].as_object()["phase"] = "Provisioned";
  where = kubeconfig_location(capi);
  ASSERT_TRUE(where);
  EXPECT_EQ(where->secret_name, "edge2-kubeconfig");

  auto fresh = parse(R"({"apiVersion": "planter.nephio.org/v1alpha1", "kind": "Cluster",
    "metadata": {"name": "edge3", "namespace": "fleet"}})");
  EXPECT_EQ(kubeconfig_location(fresh).error(), "not provisioned yet (no status)");
}

}  // namespace
}  // namespace planter::plant
