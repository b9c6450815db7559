// planter's fit model with Dynamic Resource Allocation (src/fit/devices.h, the DynamicResources
// filter): which nodes can allocate a pod's ResourceClaims, and where a stack of such pods fits.
// Expectations are worked out by hand from the Kubernetes documentation ("Dynamic Resource
// Allocation", "Allocate Devices to Workloads with DRA") and the structured allocator's test
// cases (k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting: "simple",
// "all-devices", "first-available", "matching-attribute", "tainted-device", "incomplete-pool").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fit/framework.h"
#include "fit/group.h"

namespace planter::fit {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::object parse(const std::string& text) {
  return json::parse(text).as_object();
}

json::object node(const std::string& name) {
  return parse(R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
               name + R"("}},"status":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"}}})");
}

// A ResourceSlice of `gpus` devices gpu-0.. on `on`, two per PCIe root; `taint` (JSON) on gpu-0.
json::object slice(const std::string& on, int gpus, const std::string& taint = "",
                   int slice_count = 1, int generation = 1) {
  json::array devices;
  for (int i = 0; i < gpus; ++i) {
    json::object d =
        parse(R"({"attributes":{"type":{"string":"gpu"},"index":{"int":)" + std::to_string(i) +
              R"(},"resource.kubernetes.io/pcieRoot":{"string":"root-)" + std::to_string(i / 2) +
              R"("}},"capacity":{"memory":{"value":")" + (i == 0 ? "40Gi" : "80Gi") + R"("}}})");
    d["name"] = "gpu-" + std::to_string(i);
    if (i == 0 && !taint.empty()) d["taints"] = json::parse("[" + taint + "]");
    devices.push_back(std::move(d));
  }
  json::object s =
      parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{"name":")" +
            on + R"(-gpus"},"spec":{"driver":"gpu.example.com","nodeName":")" + on +
            R"(","pool":{"name":")" + on + R"(","generation":)" + std::to_string(generation) +
            R"(,"resourceSliceCount":)" + std::to_string(slice_count) + "}}}");
  s["spec"].as_object()["devices"] = std::move(devices);
  return s;
}

json::object device_class(const std::string& name, const std::string& selector) {
  return parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":")" +
               name + R"("},"spec":{"selectors":[{"cel":{"expression":")" + selector + R"("}}]}})");
}

// A ResourceClaimTemplate "gpus" in default whose spec.devices is `devices` (JSON).
json::object claim_template(const std::string& devices) {
  return parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
      "metadata":{"name":"gpus","namespace":"default"},"spec":{"spec":{"devices":)" +
               devices + "}}}");
}

// A pod named `name` whose claim "gpus" comes from template "gpus", or names claim `claim`.
PodInfo pod(const std::string& name, const std::string& claim = "") {
  std::string ref = claim.empty() ? R"("resourceClaimTemplateName":"gpus")"
                                  : R"("resourceClaimName":")" + claim + "\"";
  return PodInfo::from(parse(R"({"metadata":{"name":")" + name + R"(","namespace":"default"},
      "spec":{"resourceClaims":[{"name":"gpus",)" +
                             ref + R"(}],
      "containers":[{"name":"c","resources":{"requests":{"cpu":"1"},"claims":[{"name":"gpus"}]}}]}})"));
}

constexpr const char* kTwoGpus =
    R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","count":2}}]})";

struct Cluster {
  Snapshot snap;
  explicit Cluster(std::vector<std::pair<std::string, int>> gpus) {
    snap.add_volume_object(device_class("gpu.example.com", "device.driver == 'gpu.example.com'"));
    for (const auto& [name, n] : gpus) {
      snap.add_node(node(name));
      if (n > 0) snap.add_volume_object(slice(name, n));
    }
  }
  // The nodes the pod passes every filter on, and the reasons of the others.
  std::pair<std::vector<std::string>, std::string> feasible(const PodInfo& p) {
    PodCycle cycle(snap, p);
    if (!cycle.prefilter_refusal().empty())  // as kube-scheduler says a PreFilter's refusal
      return {{},
              "0/" + std::to_string(snap.nodes().size()) +
                  " nodes are available: " + cycle.prefilter_refusal() + "."};
    std::vector<std::string> yes;
    Diagnosis diag;
    for (const NodeInfo& n : snap.nodes()) {
      Status s = cycle.filter(n);
      if (s.ok())
        yes.push_back(n.name);
      else
        diag.add(s);
    }
    return {yes, diag.message(snap.nodes().size())};
  }
};

TEST(FitDevices, AClaimForTwoGpusFitsOnlyTheNodeWithTwoFree) {
  Cluster c({{"one", 1}, {"two", 2}, {"none", 0}});
  c.snap.add_volume_object(claim_template(kTwoGpus));
  auto [yes, why] = c.feasible(pod("train"));
  EXPECT_EQ(yes, std::vector<std::string>{"two"});
  EXPECT_EQ(why, "0/3 nodes are available: 2 cannot allocate all claims.");
}

TEST(FitDevices, DevicesAllocatedToAClaimAreTaken) {
  Cluster c({{"two", 2}});
  c.snap.add_volume_object(claim_template(kTwoGpus));
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"other","namespace":"default"},"spec":{},
      "status":{"allocation":{"devices":{"results":[
        {"request":"gpu","driver":"gpu.example.com","pool":"two","device":"gpu-1"}]}}}})"));
  EXPECT_TRUE(c.feasible(pod("train")).first.empty());
}

TEST(FitDevices, AnIncompletePoolOffersNoDevice) {
  Cluster c({{"one", 0}});
  c.snap.add_volume_object(slice("one", 4, "", /*slice_count=*/2));
  c.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]})"));
  EXPECT_TRUE(c.feasible(pod("p")).first.empty());
  // A newer generation replaces the old one's slices; complete, its devices count.
  c.snap.add_volume_object(slice("one", 1, "", 1, /*generation=*/2));
  EXPECT_EQ(c.feasible(pod("p")).first, std::vector<std::string>{"one"});
}

TEST(FitDevices, MatchAttributeKeepsTheDevicesOnOnePcieRoot) {
  // gpu-0 and gpu-1 share root-0, gpu-2 root-1; gpu-1 is taken: two on one root cannot be had.
  Cluster c({{"n", 3}});
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"other","namespace":"default"},"spec":{},
      "status":{"allocation":{"devices":{"results":[
        {"request":"gpu","driver":"gpu.example.com","pool":"n","device":"gpu-1"}]}}}})"));
  c.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","count":2}}],
          "constraints":[{"matchAttribute":"resource.kubernetes.io/pcieRoot"}]})"));
  EXPECT_TRUE(c.feasible(pod("p")).first.empty());

  Cluster free({{"n", 4}});
  free.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","count":2}}],
          "constraints":[{"matchAttribute":"resource.kubernetes.io/pcieRoot"}]})"));
  EXPECT_EQ(free.feasible(pod("p")).first, std::vector<std::string>{"n"});
}

TEST(FitDevices, FirstAvailableFallsBackAndSelectorsReadCapacity) {
  // Only gpu-0 has 40Gi: "big" (two of 80Gi) cannot be had on a node of two, "small" can.
  Cluster c({{"n", 2}});
  c.snap.add_volume_object(claim_template(R"({"requests":[{"name":"gpu","firstAvailable":[
      {"name":"big","deviceClassName":"gpu.example.com","count":2,"selectors":[{"cel":{"expression":
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0"}}]},
      {"name":"small","deviceClassName":"gpu.example.com"}]}]})"));
  EXPECT_EQ(c.feasible(pod("p")).first, std::vector<std::string>{"n"});
  PodDevices claims = c.snap.devices().resolve(pod("p"));
  auto got = c.snap.devices().allocate(claims, "n", {}, {});
  ASSERT_TRUE(got);
  ASSERT_EQ((*got)[0].results.size(), 1u);
  EXPECT_EQ((*got)[0].results[0],
            (std::pair<std::string, std::string>{"gpu/small", "gpu.example.com/n/gpu-0"}));
  EXPECT_TRUE((*got)[0].node_local);
}

TEST(FitDevices, AllocationModeAllTakesEveryMatchingDeviceOrNone) {
  Cluster c({{"n", 2}});
  c.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"All"}}]})"));
  PodDevices claims = c.snap.devices().resolve(pod("p"));
  auto got = c.snap.devices().allocate(claims, "n", {}, {});
  ASSERT_TRUE(got);
  EXPECT_EQ((*got)[0].results.size(), 2u);
  c.snap.assume(0, std::make_shared<PodInfo>(pod("first")));
  EXPECT_TRUE(c.feasible(pod("second")).first.empty());
  c.snap.forget(1);  // the devices are given back with the pod
  EXPECT_EQ(c.feasible(pod("second")).first, std::vector<std::string>{"n"});
}

TEST(FitDevices, ATaintedDeviceIsSkippedUnlessTheRequestToleratesIt) {
  Cluster c({{"n", 0}});
  c.snap.add_volume_object(
      slice("n", 1, R"({"key":"broken","value":"ecc","effect":"NoSchedule"})"));
  c.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]})"));
  EXPECT_TRUE(c.feasible(pod("p")).first.empty());

  Cluster tolerant({{"n", 0}});
  tolerant.snap.add_volume_object(
      slice("n", 1, R"({"key":"broken","value":"ecc","effect":"NoSchedule"})"));
  tolerant.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
          "tolerations":[{"key":"broken","operator":"Exists"}]}}]})"));
  EXPECT_EQ(tolerant.feasible(pod("p")).first, std::vector<std::string>{"n"});
}

// DeviceTaintRule (GA in 1.37): a rule's taint is on every device its deviceSelector names.
TEST(FitDevices, ADeviceTaintRuleTaintsTheDevicesItSelects) {
  Cluster c({{"n", 2}});
  c.snap.add_volume_object(claim_template(kTwoGpus));
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule",
      "metadata":{"name":"maintenance"},"spec":{"deviceSelector":{"driver":"gpu.example.com",
      "pool":"n","device":"gpu-1"},"taint":{"key":"maintenance","effect":"NoExecute"}}})"));
  EXPECT_TRUE(c.feasible(pod("p")).first.empty());
  Cluster other({{"n", 2}});
  other.snap.add_volume_object(claim_template(kTwoGpus));
  other.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule",
      "metadata":{"name":"elsewhere"},"spec":{"deviceSelector":{"pool":"m"},
      "taint":{"key":"maintenance","effect":"NoExecute"}}})"));
  EXPECT_EQ(other.feasible(pod("p")).first, std::vector<std::string>{"n"});
}

TEST(FitDevices, AMissingClassRefusesBeforeAnyNodeIsLookedAt) {
  Cluster c({{"n", 2}});
  c.snap.add_volume_object(claim_template(
      R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.nvidia.com"}}]})"));
  EXPECT_EQ(c.feasible(pod("p")).second,
            "0/1 nodes are available: request gpu: device class gpu.nvidia.com does not exist.");
}

TEST(FitDevices, AClaimNotYetInTheClusterIsJudgedOnlyByACompleteView) {
  Cluster plan({{"n", 2}});
  EXPECT_EQ(plan.feasible(pod("p", "shared")).first, std::vector<std::string>{"n"});
  Cluster scheduler({{"n", 2}});
  scheduler.snap.set_volumes_complete();
  EXPECT_EQ(scheduler.feasible(pod("p", "shared")).second,
            "0/1 nodes are available: resourceclaim.resource.k8s.io \"shared\" not found.");
}

TEST(FitDevices, ASharedClaimAllocatedForOnePodTiesTheOthersToItsNode) {
  Cluster c({{"a", 1}, {"b", 1}});
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"shared","namespace":"default"},
      "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})"));
  EXPECT_EQ(c.feasible(pod("first", "shared")).first, (std::vector<std::string>{"a", "b"}));
  c.snap.assume(1, std::make_shared<PodInfo>(pod("first", "shared")));
  auto [yes, why] = c.feasible(pod("second", "shared"));
  EXPECT_EQ(yes, std::vector<std::string>{"b"});
  EXPECT_EQ(why, "0/2 nodes are available: 1 resourceclaim not available on the node.");
}

TEST(FitDevices, AnAtomicStackOfTwoTwoGpuPodsNeedsTwoFreeNodes) {
  Cluster c({{"a", 2}, {"b", 2}, {"c", 1}});
  c.snap.add_volume_object(claim_template(kTwoGpus));
  Group g;
  g.name = "training";
  g.kinds.push_back({pod("worker"), 2, false});
  GroupFit fit = fit_group(g, c.snap);
  ASSERT_TRUE(fit.fits) << fit.why;
  EXPECT_EQ(fit.placed.size(), 2u);
  EXPECT_TRUE(fit.placed.contains("a") && fit.placed.contains("b"));

  // One GPU of b taken: the stack waits.
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"other","namespace":"default"},"spec":{},
      "status":{"allocation":{"devices":{"results":[
        {"request":"gpu","driver":"gpu.example.com","pool":"b","device":"gpu-0"}]}}}})"));
  fit = fit_group(g, c.snap);
  EXPECT_FALSE(fit.fits);
  EXPECT_THAT(fit.why, HasSubstr("a pod of worker: 0/3 nodes are available: 3 cannot allocate "
                                 "all claims"));
}

// KEP-5004: nvidia.com/gpu in a pod's requests, on nodes that do not list it, is served by the
// devices of the class whose extendedResourceName it is; a node whose device plugin lists it is
// judged by its allocatable, as before.
TEST(FitDevices, AnExtendedResourceIsServedByTheDevicesOfItsClassWhereNoNodeListsIt) {
  Cluster c({{"one", 1}, {"two", 2}});
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"gpu.nvidia.com"},"spec":{"extendedResourceName":"nvidia.com/gpu",
      "selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}]}})"));
  c.snap.add_node(
      parse(R"({"metadata":{"name":"plugin","labels":{"kubernetes.io/hostname":"plugin"}},
      "status":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110","nvidia.com/gpu":"1"}}})"));
  PodInfo p = PodInfo::from(parse(R"({"metadata":{"name":"train","namespace":"default"},
      "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","nvidia.com/gpu":"2"},
      "limits":{"nvidia.com/gpu":"2"}}}]}})"));
  auto [yes, why] = c.feasible(p);
  EXPECT_EQ(yes, std::vector<std::string>{"two"});
  EXPECT_EQ(why,
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 1 cannot allocate all "
            "claims.");

  // The implicit name of a class serves too.
  PodInfo implicit = PodInfo::from(parse(R"({"metadata":{"name":"i","namespace":"default"},
      "spec":{"containers":[{"name":"c","resources":{"requests":{
      "deviceclass.resource.kubernetes.io/gpu.example.com":"1"}}}]}})"));
  EXPECT_EQ(c.feasible(implicit).first, (std::vector<std::string>{"one", "two"}));

  // A stack of two such pods takes both GPUs of "two" first, then finds none for the second.
  Group g;
  g.name = "train";
  g.kinds.push_back({p, 2, false});
  GroupFit fit = fit_group(g, c.snap);
  EXPECT_FALSE(fit.fits);
  EXPECT_THAT(fit.why, HasSubstr("cannot allocate all claims")) << fit.why;
  g.kinds[0].count = 1;
  fit = fit_group(g, c.snap);
  EXPECT_TRUE(fit.fits) << fit.why;
  EXPECT_TRUE(fit.placed.contains("two"));
}

// kube-scheduler makes a device request for each container's extended resource, init containers
// included (KEP-5004: `container-<i>-request-<j>`, j over the container's sorted requests): an
// init container's GPU and the main container's are two devices, not the pod's effective one.
TEST(FitDevices, EachContainersExtendedResourceIsADeviceRequestOfItsOwn) {
  Cluster c({{"one", 1}, {"two", 2}});
  c.snap.add_volume_object(parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"gpu.nvidia.com"},"spec":{"extendedResourceName":"nvidia.com/gpu",
      "selectors":[{"cel":{"expression":"device.driver == 'gpu.example.com'"}}]}})"));
  PodInfo p = PodInfo::from(parse(R"({"metadata":{"name":"train","namespace":"default"},
      "spec":{"initContainers":[{"name":"warm","resources":{"limits":{"nvidia.com/gpu":"1"}}}],
      "containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"},
      "limits":{"nvidia.com/gpu":"1"}}}]}})"));
  ASSERT_EQ(p.extended_requests.size(), 2u);
  EXPECT_EQ(p.extended_requests[0].request, "container-0-request-0");
  EXPECT_EQ(p.extended_requests[0].container, "warm");
  // c's sorted requests: cpu, memory, nvidia.com/gpu (its limit standing for the request).
  EXPECT_EQ(p.extended_requests[1].request, "container-1-request-2");
  EXPECT_EQ(p.requests.get("nvidia.com/gpu"), 1) << "the pod's effective request is one GPU";
  auto [yes, why] = c.feasible(p);
  EXPECT_EQ(yes, std::vector<std::string>{"two"});
  EXPECT_EQ(why, "0/2 nodes are available: 1 cannot allocate all claims.");
}

}  // namespace
}  // namespace planter::fit
