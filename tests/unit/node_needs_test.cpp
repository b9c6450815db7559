// What pods need of nodes (plan/node_needs.h), the provider table (plan/node_providers.h), and
// the node-capability rule that makes units wait for both.
#include "plan/node_needs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "plan/node_providers.h"
#include "plan/rules.h"
#include "test_support.h"

namespace planter {
namespace {

using ::testing::ElementsAre;
using testing::find_requirement;
using testing::find_unit;
using ::testing::Pair;
using testing::plan_yaml;

const NodeNeed* need_of(const Plan& plan, const std::string& short_form) {
  for (const NodeNeed& n : plan.node_needs)
    if (plan.objects[n.object].ref.short_form() == short_form) return &n;
  return nullptr;
}

// The node-capability requirement of a unit.
const Requirement* capability(const Unit& u) {
  for (const Requirement& r : u.requirements)
    if (r.when.type == ReadinessPredicate::Type::kNodeCapability) return &r;
  return nullptr;
}

Object object_of(const std::string& yaml) {
  auto out = plan_yaml(yaml);
  EXPECT_TRUE(out.ok()) << out.diags.str();
  return out.plan.objects.at(0);
}

constexpr const char* kProfile = R"(
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {name: cnf-perf}
spec:
  cpu: {isolated: "2-15", reserved: "0-1"}
  hugepages:
    defaultHugepagesSize: 1G
    pages: [{size: 1G, count: 4}, {size: 2M, count: 512}]
  nodeSelector: {node-role.kubernetes.io/cnf: ""}
)";

TEST(NodeProviders, EachKindSaysWhatItGivesItsNodes) {
  std::vector<Object> none;
  Object profile = object_of(kProfile);
  const NodeProvider* p = node_provider("performance.openshift.io", "PerformanceProfile");
  ASSERT_TRUE(p);
  EXPECT_THAT(p->provides(profile, none).resources, ElementsAre("hugepages-1Gi", "hugepages-2Mi"));
  // Done when its MachineConfigPool is Updated: the pool named after the nodes' role.
  auto pool = p->done_object(profile, none);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->id(), "machineconfiguration.openshift.io/v1|MachineConfigPool||cnf");
  EXPECT_EQ(p->done_object_when, "condition=Updated");

  Object policy = object_of(R"(
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {name: intel, namespace: openshift-sriov-network-operator}
spec: {resourceName: intelnics, numVfs: 8, nodeSelector: {feature.node.kubernetes.io/network-sriov.capable: "true"}}
)");
  EXPECT_THAT(node_provider("sriovnetwork.openshift.io", "SriovNetworkNodePolicy")
                  ->provides(policy, none)
                  .resources,
              ElementsAre("openshift.io/intelnics"));

  const NodeProvider* gpu = node_provider("nvidia.com", "ClusterPolicy");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->done, "jsonpath={.status.state}=ready");
  Object rule = object_of(R"(
apiVersion: nfd.k8s-sigs.io/v1alpha1
kind: NodeFeatureRule
metadata: {name: fpga}
spec:
  rules:
  - name: fpga
    labels: {fpga: "true", example.com/accel: "v2"}
    extendedResources: {fpga-slots: "2"}
    matchFeatures: [{feature: pci.device, matchExpressions: {vendor: {op: In, value: ["1172"]}}}]
)");
  Provided nfd =
      node_provider("nfd.k8s-sigs.io", "NodeFeatureRule")->provides(rule, std::vector<Object>{});
  std::sort(nfd.labels.begin(), nfd.labels.end());
  EXPECT_THAT(nfd.labels,
              ElementsAre("example.com/accel=v2", "feature.node.kubernetes.io/fpga=true"));
  EXPECT_THAT(nfd.resources, ElementsAre("feature.node.kubernetes.io/fpga-slots"));
  Object module = object_of(R"(
apiVersion: kmm.sigs.x-k8s.io/v1beta1
kind: Module
metadata: {name: kmm-ci, namespace: kmm}
spec: {selector: {node-role.kubernetes.io/worker: ""}}
)");
  EXPECT_THAT(node_provider("kmm.sigs.x-k8s.io", "Module")->provides(module, none).labels,
              ElementsAre("kmm.node.kubernetes.io/kmm.kmm-ci.ready"));
  EXPECT_EQ(node_provider("apps", "Deployment"), nullptr);
}

TEST(NodeProviders, AClusterGivesItsPoolsLabelsAndWhatTheirConfigurationsGive) {
  auto out = plan_yaml(R"(
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge1, namespace: fleet}
spec:
  nodes:
  - {count: 3, kernelConfig: realtime, memoryConfig: numa, labels: {profile: performance}}
---
apiVersion: planter.nephio.org/v1alpha1
kind: KernelConfig
metadata: {name: realtime, namespace: fleet}
spec: {realtime: true}
---
apiVersion: planter.nephio.org/v1alpha1
kind: MemoryConfig
metadata: {name: numa, namespace: fleet}
spec: {numa: true, hugePages: 1Gi}
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  Provided p = node_provider("planter.nephio.org", "Cluster")
                   ->provides(out.plan.objects[0], out.plan.objects);
  EXPECT_THAT(p.labels,
              ElementsAre("profile=performance", "planter.nephio.org/kernel-config=realtime",
                          "planter.nephio.org/realtime-kernel=true",
                          "planter.nephio.org/memory-config=numa", "planter.nephio.org/numa=true"));
  EXPECT_THAT(p.resources, ElementsAre("hugepages-1Gi"));
  EXPECT_TRUE(p.gives_label("profile=performance"));
  EXPECT_TRUE(p.gives_label("profile"));
  EXPECT_FALSE(p.gives_label("profile=batch"));
}

TEST(NodeProviders, AProviderThatSelectsNoNodePoolOfItsClusterIsAWarningNamingBoth) {
  auto out = plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge1, namespace: default}
spec:
  nodes:
  - {count: 3, labels: {profile: performance}}
---
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata:
  name: cnf-perf
  annotations: {planter.nephio.org/cluster: edge1}
spec:
  hugepages: {pages: [{size: 1G, count: 4}]}
  nodeSelector: {node-role.kubernetes.io/cnf: ""}
---
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata:
  name: matching
  annotations: {planter.nephio.org/cluster: edge1}
spec:
  hugepages: {pages: [{size: 1G, count: 4}]}
  nodeSelector: {profile: performance}
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ASSERT_EQ(out.diags.warnings().size(), 1u);
  const Diagnostic& w = out.diags.warnings().front();
  EXPECT_EQ(w.object, "performance.openshift.io/v2 PerformanceProfile cnf-perf");
  EXPECT_EQ(w.source, "seed.yaml:8");
  EXPECT_EQ(w.message,
            "it selects nodes with node-role.kubernetes.io/cnf=, but no node pool of "
            "Cluster/default/edge1 (seed.yaml:1) has those labels: it configures no node of "
            "cluster edge1");
}

TEST(NodeNeeds, ReadFromAPodTemplate) {
  auto out = plan_yaml(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: cnf, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: cnf}}
  template:
    metadata: {labels: {app: cnf}}
    spec:
      nodeSelector: {kubernetes.io/os: linux, node-role.kubernetes.io/cnf: ""}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: feature.node.kubernetes.io/cpu-model.vendor_id, operator: In, values: [Intel]}
              - {key: topology.kubernetes.io/zone, operator: In, values: [a]}
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: cnf}}}
      containers:
      - name: a
        resources:
          requests: {cpu: "1", memory: 1Gi, hugepages-1Gi: 1Gi}
          limits: {hugepages-1Gi: 1Gi, nvidia.com/gpu: "1"}
      - name: b
        resources: {limits: {hugepages-1Gi: 1Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: plain, namespace: default}
spec:
  selector: {matchLabels: {app: plain}}
  template:
    metadata: {labels: {app: plain}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: a, resources: {requests: {cpu: "1"}}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const NodeNeed* n = need_of(out.plan, "Deployment/default/cnf");
  ASSERT_TRUE(n);
  // Huge pages summed over the containers (a limit alone is the request), the GPU from a limit.
  EXPECT_THAT(n->resources,
              ElementsAre(Pair("hugepages-1Gi", int64_t{2} << 30), Pair("nvidia.com/gpu", 1)));
  // The labels every node has (os, zone) are no capability.
  EXPECT_THAT(n->labels, ElementsAre("feature.node.kubernetes.io/cpu-model.vendor_id=Intel",
                                     "node-role.kubernetes.io/cnf="));
  EXPECT_EQ(n->nodes, 3);  // its pods must be apart: a node each
  EXPECT_EQ(n->what,
            "hugepages-1Gi ≥ 2Gi, nvidia.com/gpu ≥ 1, "
            "feature.node.kubernetes.io/cpu-model.vendor_id=Intel, node-role.kubernetes.io/cnf=");
  EXPECT_EQ(need_of(out.plan, "Deployment/default/plain"), nullptr);
  const Unit* u = find_unit(out.plan, "Deployment/default/cnf");
  ASSERT_TRUE(u);
  const Requirement* r = capability(*u);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->external());
  EXPECT_EQ(r->rule, "node-capability");
  EXPECT_EQ(out.plan.describe(*r),
            "node-capability hugepages-1Gi ≥ 2Gi, nvidia.com/gpu ≥ 1, "
            "feature.node.kubernetes.io/cpu-model.vendor_id=Intel, node-role.kubernetes.io/cnf= "
            "on SELF");
  // Not counted among the objects outside the seed: it is about nodes.
  EXPECT_EQ(out.plan.external_requirement_count(), 2u);  // the two Namespace/default
}

TEST(NodeNeeds, TheSriovChainFromThePodsNetworksToTheResource) {
  auto out = plan_yaml(R"(
apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata:
  name: sriov-a
  namespace: cnf
  annotations: {k8s.v1.cni.cncf.io/resourceName: intel.com/sriov_a}
spec: {config: '{"cniVersion": "0.3.1", "type": "sriov", "name": "sriov-a"}'}
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata: {name: sriov-b, namespace: openshift-sriov-network-operator}
spec: {resourceName: intelnics, networkNamespace: cnf, vlan: 100}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: upf, namespace: cnf}
spec:
  selector: {matchLabels: {app: upf}}
  serviceName: upf
  template:
    metadata:
      labels: {app: upf}
      annotations: {k8s.v1.cni.cncf.io/networks: "sriov-a@net1, cnf/sriov-b, sriov-a"}
    spec:
      containers: [{name: upf, resources: {limits: {intel.com/sriov_a: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: probe
  namespace: cnf
  annotations:
    k8s.v1.cni.cncf.io/networks: '[{"name": "macvlan-conf", "namespace": "other"}]'
spec:
  containers: [{name: probe}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const NodeNeed* upf = need_of(out.plan, "StatefulSet/cnf/upf");
  ASSERT_TRUE(upf);
  // Two attachments of sriov-a draw two devices (its container asks for one itself: the larger
  // counts); the SriovNetwork's generated definition draws from its policy's resource.
  EXPECT_THAT(upf->resources,
              ElementsAre(Pair("intel.com/sriov_a", 2), Pair("openshift.io/intelnics", 1)));
  // The pod the nodes are matched against asks for them, as the resources injector makes it.
  const auto& res =
      upf->pod.at("spec").at("containers").at(0).at("resources").at("requests").as_object();
  EXPECT_EQ(res.at("intel.com/sriov_a").as_string(), "2");
  const Unit* u = find_unit(out.plan, "StatefulSet/cnf/upf");
  ASSERT_TRUE(u);
  // The network's definitions must exist before a pod attaches to them.
  EXPECT_TRUE(find_requirement(out.plan, *u, "NetworkAttachmentDefinition/cnf/sriov-a"));
  EXPECT_TRUE(
      find_requirement(out.plan, *u, "SriovNetwork/openshift-sriov-network-operator/sriov-b"));
  // A network the seed does not hold is waited for on the cluster, no device counted.
  const NodeNeed* probe = need_of(out.plan, "Pod/cnf/probe");
  ASSERT_TRUE(probe);
  EXPECT_TRUE(probe->resources.empty());
  const Unit* p = find_unit(out.plan, "Pod/cnf/probe");
  const Requirement* nad =
      find_requirement(out.plan, *p, "NetworkAttachmentDefinition/other/macvlan-conf");
  ASSERT_TRUE(nad);
  EXPECT_TRUE(nad->external());
  EXPECT_EQ(capability(*p), nullptr);  // nothing of a node: only the network's existence
}

// A container that asks for the network's devices under requests only: the limits planter adds
// beside them must not move the requests it holds (a use after free the planner fuzzer found).
TEST(NodeNeeds, ADeviceRequestWithoutALimitIsRaisedInBothLists) {
  auto out = plan_yaml(R"(apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata:
  name: a
  namespace: cnf
  annotations: {k8s.v1.cni.cncf.io/resourceName: intel.com/sriov_a}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: cnf
  annotations: {k8s.v1.cni.cncf.io/networks: "a, a, a"}
spec:
  containers: [{name: c, resources: {requests: {intel.com/sriov_a: "1"}}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const NodeNeed* p = need_of(out.plan, "Pod/cnf/p");
  ASSERT_TRUE(p);
  EXPECT_THAT(p->resources, ElementsAre(Pair("intel.com/sriov_a", 3)));
  const auto& res = p->pod.at("spec").at("containers").at(0).at("resources").as_object();
  EXPECT_EQ(res.at("requests").at("intel.com/sriov_a").as_string(), "3");
  EXPECT_EQ(res.at("limits").at("intel.com/sriov_a").as_string(), "3");
}

TEST(NodeNeeds, AMalformedNetworksAnnotationIsBadInputNamingTheObject) {
  auto out = plan_yaml(R"(
apiVersion: v1
kind: Pod
metadata:
  name: probe
  namespace: cnf
  annotations: {k8s.v1.cni.cncf.io/networks: '[{"namespace": "x"}]'}
spec:
  containers: [{name: probe}]
)");
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(out.diags.str(), ::testing::HasSubstr("v1 Pod cnf/probe"));
  EXPECT_THAT(out.diags.str(), ::testing::HasSubstr("an element of the list has no name"));
}

TEST(NodeNeeds, ACustomResourcesPodPathAndARuntimeClass) {
  auto out = plan_yaml(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: trainers.ml.example.com
  annotations: {planter.nephio.org/pod-template: spec.worker}
spec:
  group: ml.example.com
  scope: Namespaced
  names: {kind: Trainer, plural: trainers}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
---
apiVersion: ml.example.com/v1
kind: Trainer
metadata: {name: t, namespace: ml}
spec:
  worker:
    spec:
      containers: [{name: w, resources: {limits: {nvidia.com/gpu: "2"}}}]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
scheduling:
  nodeSelector: {katacontainers.io/kata-runtime: "true"}
  tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]
---
apiVersion: v1
kind: Pod
metadata: {name: sandboxed, namespace: ml}
spec:
  runtimeClassName: kata
  containers: [{name: c}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const NodeNeed* t = need_of(out.plan, "Trainer/ml/t");
  ASSERT_TRUE(t);
  EXPECT_THAT(t->resources, ElementsAre(Pair("nvidia.com/gpu", 2)));
  // The object itself is left as the author wrote it.
  EXPECT_FALSE(out.plan.objects[1].body.at("spec").at("worker").as_object().contains("metadata"));
  const NodeNeed* s = need_of(out.plan, "Pod/ml/sandboxed");
  ASSERT_TRUE(s);
  EXPECT_THAT(s->labels, ElementsAre("katacontainers.io/kata-runtime=true"));
  EXPECT_EQ(s->pod.at("spec").at("tolerations").as_array().size(), 1u);
}

TEST(NodeCapabilityRule, WaitsForTheProvidersOnItsClusterToBeDone) {
  auto out = plan_yaml(std::string(kProfile) + R"(---
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: gpu-cluster-policy}
spec: {driver: {enabled: true}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cnf, namespace: default}
spec:
  selector: {matchLabels: {app: cnf}}
  template:
    metadata: {labels: {app: cnf}}
    spec:
      nodeSelector: {node-role.kubernetes.io/cnf: ""}
      containers: [{name: a, resources: {limits: {hugepages-1Gi: 2Gi, memory: 1Gi}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: a, resources: {limits: {nvidia.com/gpu: "1"}}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* cnf = find_unit(out.plan, "Deployment/default/cnf");
  ASSERT_TRUE(cnf);
  const Requirement* profile = find_requirement(out.plan, *cnf, "PerformanceProfile/cnf-perf");
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->rule, "node-capability");
  const Requirement* pool = find_requirement(out.plan, *cnf, "MachineConfigPool/cnf");
  ASSERT_TRUE(pool);
  EXPECT_TRUE(pool->external());
  EXPECT_EQ(pool->when.str(), "condition=Updated");
  const Requirement* r = capability(*cnf);
  ASSERT_TRUE(r);
  EXPECT_EQ(out.plan.describe(*r),
            "node-capability hugepages-1Gi ≥ 2Gi, node-role.kubernetes.io/cnf= on SELF "
            "(PerformanceProfile/cnf-perf)");
  EXPECT_EQ(r->when.str(), "node-capability=hugepages-1Gi ≥ 2Gi, node-role.kubernetes.io/cnf=");

  const Unit* train = find_unit(out.plan, "Job/default/train");
  ASSERT_TRUE(train);
  const Requirement* policy =
      find_requirement(out.plan, *train, "ClusterPolicy/gpu-cluster-policy");
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->when.str(), "jsonpath={.status.state}=ready");
  // The provider is declared first.
  EXPECT_GT(train->wave, find_unit(out.plan, "ClusterPolicy/gpu-cluster-policy")->wave);
}

// The Node Tuning Operator's default machineConfigPoolSelector is the role label
// (machineconfiguration.openshift.io/role: <role>), not the pool's name: a seed's pool named
// otherwise is the one its consumers wait for.
TEST(NodeCapabilityRule, APerformanceProfilesPoolIsFoundByItsRoleLabel) {
  auto out = plan_yaml(R"(apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: realtime-workers
  labels: {machineconfiguration.openshift.io/role: cnf}
spec:
  nodeSelector: {matchLabels: {node-role.kubernetes.io/cnf: ""}}
---
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {name: cnf-perf}
spec:
  cpu: {isolated: "2-7", reserved: "0-1"}
  hugepages: {pages: [{size: 1G, count: 4}]}
  nodeSelector: {node-role.kubernetes.io/cnf: ""}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cnf, namespace: default}
spec:
  selector: {matchLabels: {app: cnf}}
  template:
    metadata: {labels: {app: cnf}}
    spec:
      nodeSelector: {node-role.kubernetes.io/cnf: ""}
      containers: [{name: a, resources: {limits: {hugepages-1Gi: 2Gi, memory: 1Gi}}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* cnf = find_unit(out.plan, "Deployment/default/cnf");
  ASSERT_TRUE(cnf);
  EXPECT_TRUE(find_requirement(out.plan, *cnf, "MachineConfigPool/realtime-workers"));
  EXPECT_FALSE(find_requirement(out.plan, *cnf, "MachineConfigPool/cnf"));
}

}  // namespace
}  // namespace planter
