// One test (or a few) per requirement rule (src/plan/rules/), in table order.
#include "plan/rules.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.h"

namespace planter {
namespace {

using testing::find_requirement;
using testing::find_unit;
using testing::plan_yaml;

const char* kEdge =
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
    "metadata: {name: edge1, namespace: default}\n---\n";

TEST(Rules, TableListsEveryRuleOnce) {
  std::vector<std::string> names;
  for (const auto& r : requirement_rules()) names.emplace_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "cluster-choice", "cluster-ready", "namespace",       "crd",
                       "apiservice",     "webhook",       "pod-references",  "scheduling-group",
                       "device-claims",  "dependencies",  "depends-on",      "apply-time-mutation",
                       "helm-hooks",     "sync-waves",    "rollout",         "stack-fits",
                       "anchor",         "pod-group",     "scheduler-ready", "node-capability"}));
}

// DRA's order: the template waits for its classes (the seed's, and the driver's, which is not in
// the seed), the Job's pods for the template, a Pod for its claim; v1beta1's class on the request
// itself counts too.
TEST(Rules, DeviceClaimsWaitForTheirClassesAndWorkloadsForTheirClaims) {
  auto out = plan_yaml(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: big.example.com}\n"
      "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]}\n---\n"
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
      "metadata: {name: pair, namespace: default}\n"
      "spec: {spec: {devices: {requests: [{name: gpu, firstAvailable: [{name: big, "
      "deviceClassName: big.example.com}, {name: any, deviceClassName: gpu.nvidia.com}]}]}}}\n"
      "---\n"
      "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
      "metadata: {name: old, namespace: default}\n"
      "spec: {devices: {requests: [{name: gpu, deviceClassName: gpu.nvidia.com}]}}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: default}\n"
      "spec: {template: {spec: {restartPolicy: Never, resourceClaims: [{name: gpu, "
      "resourceClaimTemplateName: pair}], containers: [{name: t, image: x, resources: {claims: "
      "[{name: gpu}]}}]}}}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
      "spec: {resourceClaims: [{name: gpu, resourceClaimName: old}], containers: [{name: c, "
      "image: x}]}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* tmpl = find_unit(out.plan, "ResourceClaimTemplate/default/pair");
  ASSERT_TRUE(tmpl);
  const Requirement* own = find_requirement(out.plan, *tmpl, "DeviceClass/big.example.com");
  ASSERT_TRUE(own);
  EXPECT_FALSE(own->external());
  EXPECT_EQ(own->rule, "device-claims");
  const Requirement* driver = find_requirement(out.plan, *tmpl, "DeviceClass/gpu.nvidia.com");
  ASSERT_TRUE(driver);
  EXPECT_TRUE(driver->external());
  EXPECT_EQ(driver->when.str(), "exists");
  EXPECT_TRUE(find_requirement(out.plan, *find_unit(out.plan, "ResourceClaim/default/old"),
                               "DeviceClass/gpu.nvidia.com"));
  const Requirement* job = find_requirement(out.plan, *find_unit(out.plan, "Job/default/train"),
                                            "ResourceClaimTemplate/default/pair");
  ASSERT_TRUE(job);
  EXPECT_FALSE(job->external());
  EXPECT_TRUE(find_requirement(out.plan, *find_unit(out.plan, "Pod/default/p"),
                               "ResourceClaim/default/old"));
}

// What a driver makes is not in the seed, but what runs it may be: the template waits for the
// GPUCluster too, the Job for the ComputeDomain of its namespace that makes its template (not one
// of another namespace, nor one that names another template).
TEST(Rules, DeviceClaimsWaitForWhatMakesTheirClassesAndTemplates) {
  auto out = plan_yaml(
      "apiVersion: nvidia.com/v1alpha1\nkind: GPUCluster\nmetadata: {name: gpus}\n---\n"
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
      "metadata: {name: one, namespace: ml}\n"
      "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: "
      "gpu.nvidia.com}}]}}}\n---\n"
      "apiVersion: resource.nvidia.com/v1beta1\nkind: ComputeDomain\n"
      "metadata: {name: train, namespace: ml}\n"
      "spec: {numNodes: 2, channel: {resourceClaimTemplate: {name: channel}}}\n---\n"
      "apiVersion: resource.nvidia.com/v1beta1\nkind: ComputeDomain\n"
      "metadata: {name: other, namespace: ml}\n"
      "spec: {numNodes: 2, channel: {resourceClaimTemplate: {name: other-channel}}}\n---\n"
      "apiVersion: resource.nvidia.com/v1beta1\nkind: ComputeDomain\n"
      "metadata: {name: train, namespace: elsewhere}\n"
      "spec: {numNodes: 2, channel: {resourceClaimTemplate: {name: channel}}}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train, namespace: ml}\n"
      "spec: {template: {spec: {restartPolicy: Never, resourceClaims: [{name: c, "
      "resourceClaimTemplateName: channel}], containers: [{name: t, image: x, resources: {claims: "
      "[{name: c}]}}]}}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* tmpl = find_unit(out.plan, "ResourceClaimTemplate/ml/one");
  ASSERT_TRUE(tmpl);
  const Requirement* maker = find_requirement(out.plan, *tmpl, "GPUCluster/gpus");
  ASSERT_TRUE(maker);
  EXPECT_FALSE(maker->external());
  EXPECT_EQ(maker->when.str(), "exists");
  const Unit* job = find_unit(out.plan, "Job/ml/train");
  ASSERT_TRUE(job);
  EXPECT_TRUE(find_requirement(out.plan, *job, "ResourceClaimTemplate/ml/channel"));
  EXPECT_TRUE(find_requirement(out.plan, *job, "ComputeDomain/ml/train"));
  EXPECT_FALSE(find_requirement(out.plan, *job, "ComputeDomain/ml/other"));
  EXPECT_FALSE(find_requirement(out.plan, *job, "ComputeDomain/elsewhere/train"));
}

TEST(Rules, ClusterReady) {
  auto out = plan_yaml(std::string(kEdge) +
                       "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf,"
                       " annotations: {planter.nephio.org/cluster: edge1}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* ns = find_unit(out.plan, "Namespace/cnf", "edge1");
  ASSERT_TRUE(ns);
  const Requirement* r = find_requirement(out.plan, *ns, "Cluster/default/edge1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->when.str(), "cluster-ready");
  EXPECT_EQ(r->cluster, "SELF");
  EXPECT_FALSE(r->external());
}

TEST(Rules, NamespaceInSeedAndNotInSeed) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: kube-system}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Requirement* in_seed =
      find_requirement(out.plan, *find_unit(out.plan, "ConfigMap/a/c"), "Namespace/a");
  ASSERT_TRUE(in_seed);
  EXPECT_EQ(in_seed->when.str(), "active");
  EXPECT_FALSE(in_seed->external());
  const Requirement* outside = find_requirement(
      out.plan, *find_unit(out.plan, "ConfigMap/kube-system/d"), "Namespace/kube-system");
  ASSERT_TRUE(outside);
  EXPECT_TRUE(outside->external());
  EXPECT_EQ(out.plan.describe(*outside), "Namespace/kube-system active (not in seed)");
}

TEST(Rules, CustomResourceWaitsForItsCrdOrItsKind) {
  auto out = plan_yaml(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: widgets.example.com}\nspec: {group: example.com, scope: Namespaced,"
      " names: {kind: Widget, plural: widgets}, versions: [{name: v1, served: true}]}\n---\n"
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n---\n"
      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: m, namespace: "
      "default}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Requirement* crd = find_requirement(out.plan, *find_unit(out.plan, "Widget/default/w"),
                                            "CustomResourceDefinition/widgets.example.com");
  ASSERT_TRUE(crd);
  EXPECT_EQ(crd->when.str(), "established");
  const Unit* sm = find_unit(out.plan, "ServiceMonitor/default/m");
  const Requirement* kind = find_requirement(out.plan, *sm, "ServiceMonitor/");
  ASSERT_TRUE(kind);
  EXPECT_TRUE(kind->external());
  EXPECT_EQ(out.plan.target(*kind).id(), "monitoring.coreos.com/v1|ServiceMonitor||");
  EXPECT_EQ(find_unit(out.plan, "Deployment/default/d")->requirements.size(),
            1u);  // namespace only
}

TEST(Rules, AggregatedApiWaitsForItsApiService) {
  auto out = plan_yaml(
      "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: "
      "v1beta1.metrics.k8s.io}\n"
      "spec: {group: metrics.k8s.io, version: v1beta1, service: {name: metrics, namespace: "
      "kube-system}}\n---\n"
      "apiVersion: metrics.k8s.io/v1beta1\nkind: NodeMetrics\nmetadata: {name: node-1}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* u = find_unit(out.plan, "NodeMetrics/node-1");
  ASSERT_TRUE(u);
  ASSERT_EQ(u->requirements.size(), 1u);
  EXPECT_EQ(out.plan.target(u->requirements[0]).short_form(), "APIService/v1beta1.metrics.k8s.io");
  EXPECT_EQ(u->requirements[0].when.str(), "available");
}

const char* kWebhook =
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: hooks}\n---\n"
    "apiVersion: v1\nkind: Service\nmetadata: {name: hook, namespace: hooks}\n"
    "spec: {selector: {app: hook}}\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hook, namespace: hooks}\n"
    "spec: {template: {metadata: {labels: {app: hook}}}}\n---\n"
    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n"
    "metadata: {name: hook}\nwebhooks:\n"
    "- name: v.example.com\n  clientConfig: {service: {name: hook, namespace: hooks}}\n"
    "  rules: [{apiGroups: [apps], apiVersions: ['*'], operations: [CREATE, UPDATE],"
    " resources: [deployments]}]\n"
    "  namespaceSelector: {matchExpressions: [{key: skip, operator: DoesNotExist}]}\n"
    "  objectSelector: {matchLabels: {checked: 'yes'}}\n---\n";

TEST(Rules, AdmissionWebhookHoldsUpOnlyWhatItMatches) {
  auto out = plan_yaml(
      std::string(kWebhook) +
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet, labels: {skip: 'true'}}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: app, labels: "
      "{checked: 'yes'}}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b, namespace: app}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: c, namespace: quiet, labels: "
      "{checked: 'yes'}}\n---\n"
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d, namespace: app, labels: "
      "{checked: 'yes'}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Requirement* r =
      find_requirement(out.plan, *find_unit(out.plan, "Deployment/app/a"), "Service/hooks/hook");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->when.str(), "endpoints-ready");
  EXPECT_EQ(r->rule, "webhook");
  EXPECT_FALSE(
      find_requirement(out.plan, *find_unit(out.plan, "Deployment/app/b"), "Service/hooks/hook"))
      << "objectSelector does not match";
  EXPECT_FALSE(
      find_requirement(out.plan, *find_unit(out.plan, "Deployment/quiet/c"), "Service/hooks/hook"))
      << "namespaceSelector does not match";
  EXPECT_FALSE(
      find_requirement(out.plan, *find_unit(out.plan, "StatefulSet/app/d"), "Service/hooks/hook"))
      << "rules do not cover statefulsets";
}

TEST(Rules, WebhookDoesNotHoldUpItsOwnBackingWorkload) {
  auto out = plan_yaml(std::string(kWebhook) + "");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_FALSE(find_requirement(out.plan, *find_unit(out.plan, "Deployment/hooks/hook"),
                                "Service/hooks/hook"));
}

TEST(Rules, IgnoredFailuresDoNotHoldAnythingUp) {
  std::string hook = kWebhook;
  hook.replace(hook.find("  rules:"), 0, "  failurePolicy: Ignore\n");
  auto out =
      plan_yaml(hook +
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: hooks,"
                " labels: {checked: 'yes'}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_FALSE(
      find_requirement(out.plan, *find_unit(out.plan, "Deployment/hooks/a"), "Service/hooks/hook"));
}

TEST(Rules, ConversionWebhookHoldsUpItsCustomResources) {
  auto out = plan_yaml(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: tasks.tekton.dev}\nspec:\n  group: tekton.dev\n  scope: Namespaced\n"
      "  names: {kind: Task, plural: tasks}\n  versions: [{name: v1, served: true}]\n"
      "  conversion: {strategy: Webhook, webhook: {clientConfig: {service: {name: w, namespace: "
      "t}}}}\n---\n"
      "apiVersion: tekton.dev/v1\nkind: Task\nmetadata: {name: build, namespace: t}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Requirement* r =
      find_requirement(out.plan, *find_unit(out.plan, "Task/t/build"), "Service/t/w");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->when.str(), "endpoints-ready");
}

TEST(Rules, BarePodWaitsForWhatItNames) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner, namespace: default}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
      "spec: {serviceAccountName: runner, priorityClassName: high, runtimeClassName: kata}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* pod = find_unit(out.plan, "Pod/default/p");
  ASSERT_TRUE(pod);
  const Requirement* sa = find_requirement(out.plan, *pod, "ServiceAccount/default/runner");
  ASSERT_TRUE(sa);
  EXPECT_FALSE(sa->external());
  ASSERT_TRUE(find_requirement(out.plan, *pod, "PriorityClass/high"));
  EXPECT_TRUE(find_requirement(out.plan, *pod, "PriorityClass/high")->external());
  ASSERT_TRUE(find_requirement(out.plan, *pod, "RuntimeClass/kata"));
}

// Clusters e1..e5 labelled edge=yes (and each with `more` labels, "" for none), and a ConfigMap
// placed on all of them with planter.nephio.org/rollout `rollout`: planned.
PlanOutcome plan_rollout(const std::string& rollout,
                         const std::vector<std::string>& more = {"", "", "", "", ""}) {
  std::string seed;
  for (size_t i = 0; i < more.size(); ++i)
    seed += fmt::format(
        "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
        "metadata: {{name: e{}, namespace: default, labels: {{edge: \"yes\"{}}}}}\n---\n",
        i + 1, more[i].empty() ? "" : ", " + more[i]);
  return plan_yaml(seed +
                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: "
                   "default\n  annotations:\n    planter.nephio.org/cluster-selector: edge\n"
                   "    planter.nephio.org/rollout: \"" +
                   rollout + "\"\n");
}

// planter.nephio.org/rollout: canaries first, then the rest by name, maxConcurrency at a time;
// each unit waits for every unit of the batch before it to be healthy.
TEST(Rules, RolloutBatches) {
  auto plan = [](const std::string& rollout) { return plan_rollout(rollout); };
  auto out = plan("{maxConcurrency: 2, canaries: [e4]}");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  auto waits_on = [&](const char* cluster) {
    std::vector<std::string> on;
    for (const Requirement& r : find_unit(out.plan, "ConfigMap/default/c", cluster)->requirements)
      if (r.rule == "rollout") {
        on.push_back(r.cluster);
        EXPECT_EQ(r.when.str(), "healthy");
      }
    std::sort(on.begin(), on.end());
    return on;
  };
  EXPECT_EQ(waits_on("e4"), std::vector<std::string>{});
  EXPECT_EQ(waits_on("e1"), std::vector<std::string>{"e4"});
  EXPECT_EQ(waits_on("e2"), std::vector<std::string>{"e4"});
  EXPECT_EQ(waits_on("e3"), (std::vector<std::string>{"e1", "e2"}));
  EXPECT_EQ(waits_on("e5"), (std::vector<std::string>{"e1", "e2"}));
  out = plan("{maxConcurrency: 4, canaries: 1}");  // e1, then the other four at once
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(waits_on("e5"), std::vector<std::string>{"e1"});
  for (const char* bad :
       {"{canaries: 1}", "{maxConcurrency: 0}", "{maxConcurrency: 101}",
        "{maxConcurrency: 2, canaries: [e9]}", "{maxConcurrency: 2, pace: 3}", "[1]",
        "{maxConcurrency: 2, canaries: 6}", "{maxConcurrency: 2, canaries: 99999999999}"}) {
    auto refused = plan(bad);
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.diags.str().find("planter.nephio.org/rollout: "), std::string::npos)
        << refused.diags.str();
  }
  // An approval: the batch after the canaries (and only it) also waits for the approval's
  // ConfigMap on the management cluster.
  out = plan("{maxConcurrency: 2, canaries: [e4], approval: c-canary}");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  auto approval_of = [&](const char* cluster) {
    std::string found;
    for (const Requirement& r : find_unit(out.plan, "ConfigMap/default/c", cluster)->requirements)
      if (r.rule == "rollout" && r.external())
        found = r.cluster + " " + r.external_object->short_form() + " " + r.when.str();
    return found;
  };
  EXPECT_EQ(approval_of("e1"), "SELF ConfigMap/kube-system/planter-approval-c-canary exists");
  EXPECT_EQ(approval_of("e2"), "SELF ConfigMap/kube-system/planter-approval-c-canary exists");
  EXPECT_EQ(approval_of("e4"), "");
  EXPECT_EQ(approval_of("e3"), "");  // the next batch waits for e1 and e2, approved already
  for (const char* bad : {"{maxConcurrency: 2, approval: x}",
                          "{maxConcurrency: 2, canaries: 1, "
                          "approval: Not_A_Name}"})
    EXPECT_FALSE(plan(bad).ok()) << bad;
  // More canaries than clusters would make one batch of them all, silently.
  EXPECT_NE(plan("{maxConcurrency: 2, canaries: 6}")
                .diags.str()
                .find("canaries: 6 is more than the 5 cluster(s) the object is placed on"),
            std::string::npos);
}

// planter.nephio.org/rollout stages: each cluster in the first stage that selects it, by name
// and maxConcurrency within a stage; `after` and `approval` hold the next stage's first batch.
TEST(Rules, RolloutStages) {
  auto plan = [](const std::string& rollout) {
    return plan_rollout(rollout,
                        {"ring: \"0\"", "region: eu", "region: eu", "region: us", "region: us"});
  };
  auto out = plan(
      "{maxConcurrency: 2, stages: [{name: canary, selector: ring=0, approval: c-go}, "
      "{name: europe, selector: {matchLabels: {region: eu}}, after: 600s, maxConcurrency: 1}, "
      "{name: rest}]}");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  auto waits_on = [&](const char* cluster) {
    std::vector<std::string> on;
    for (const Requirement& r : find_unit(out.plan, "ConfigMap/default/c", cluster)->requirements)
      if (r.rule == "rollout")
        on.push_back(
            fmt::format("{} {}", r.external() ? r.external_object->name : r.cluster, r.when.str()));
    std::sort(on.begin(), on.end());
    return on;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(waits_on("e1"), V{});
  EXPECT_EQ(waits_on("e2"), (V{"e1 healthy", "planter-approval-c-go exists"}));
  EXPECT_EQ(waits_on("e3"), V{"e2 healthy"});  // europe one at a time
  EXPECT_EQ(waits_on("e4"), V{"e3 healthy-for=10m"});
  EXPECT_EQ(waits_on("e5"), V{"e3 healthy-for=10m"});
  // A stage that selects no cluster passes its gates to the next one that does.
  out = plan(
      "{maxConcurrency: 5, stages: [{name: a, selector: ring=0, after: 1m}, "
      "{name: b, selector: region=asia, after: 30s, approval: b-go}, {name: c}]}");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(waits_on("e2"), (V{"e1 healthy-for=1m", "planter-approval-b-go exists"}));
  EXPECT_EQ(waits_on("e5"), (V{"e1 healthy-for=1m", "planter-approval-b-go exists"}));
  for (auto [bad, says] :
       {std::pair{"{maxConcurrency: 2, stages: [{name: eu, selector: region=eu}]}",
                  "no stage selects cluster(s) e1, e4, e5"},
        {"{maxConcurrency: 2, canaries: 1, stages: [{name: all}]}",
         "stages and canaries (or a top-level approval) do not go together"},
        {"{maxConcurrency: 2, stages: [{name: all, after: 10}]}",
         "stages[0].after must be a duration of at least 1s"},
        {"{maxConcurrency: 2, stages: [{name: a}, {name: a}]}", "two stages are named a"},
        {"{maxConcurrency: 2, stages: [{selector: ring=0}]}", "stages[0] has no name"},
        {"{maxConcurrency: 2, stages: [{name: a, pause: true}]}",
         "stages[0]: \"pause\" is not a field of a stage"},
        {"{maxConcurrency: 2, stages: [{name: a, selector: 'in in in'}]}",
         "stages[0].selector is not a label selector"},
        {"{stages: [{name: a, maxConcurrency: 1}, {name: b}]}", "maxConcurrency is missing"},
        {"{maxConcurrency: 2, stages: []}", "stages must be a list of 1 to 20 stages"}}) {
    auto refused = plan(bad);
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.diags.str().find(says), std::string::npos) << refused.diags.str();
  }
  // Each stage with its own maxConcurrency needs none of the roll-out's.
  EXPECT_TRUE(plan("{stages: [{name: a, maxConcurrency: 1}]}").ok());
}

// maxUnavailable: every unit of the object waits for room among its other clusters (the gate
// counts them); no batches are needed with it.
TEST(Rules, RolloutMaxUnavailable) {
  auto plan = [](const std::string& rollout) { return plan_rollout(rollout); };
  for (auto [rollout, room] : {std::pair{"{maxUnavailable: 2}", "rollout-room=2"},
                               {"{maxUnavailable: '50%'}", "rollout-room=2"},
                               {"{maxUnavailable: '10%', maxConcurrency: 3}", "rollout-room=1"}}) {
    auto out = plan(rollout);
    ASSERT_TRUE(out.ok()) << rollout << out.diags.str();
    for (const char* cluster : {"e1", "e3", "e5"}) {
      std::vector<std::string> rooms;
      for (const Requirement& r : find_unit(out.plan, "ConfigMap/default/c", cluster)->requirements)
        if (r.when.type == ReadinessPredicate::Type::kRolloutRoom) {
          EXPECT_TRUE(r.external());
          EXPECT_EQ(out.plan.describe(r),
                    fmt::format("room in the roll-out of ConfigMap/default/c (maxUnavailable {})",
                                room + 13));
          rooms.push_back(r.when.str());
        }
      EXPECT_EQ(rooms, std::vector<std::string>{room}) << rollout << " " << cluster;
    }
  }
  // Without batches (no maxConcurrency), no unit waits for another's health.
  auto out = plan("{maxUnavailable: 1}");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  for (const Requirement& r : find_unit(out.plan, "ConfigMap/default/c", "e5")->requirements)
    EXPECT_TRUE(r.rule != "rollout" || r.when.type == ReadinessPredicate::Type::kRolloutRoom);
  for (const char* bad : {"{maxUnavailable: 0}", "{maxUnavailable: '101%'}",
                          "{maxUnavailable: 'x%'}", "{maxUnavailable: two}"}) {
    auto refused = plan(bad);
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.diags.str().find("maxUnavailable must be a whole number of clusters"),
              std::string::npos)
        << refused.diags.str();
  }
}

TEST(Rules, ExplicitDependenciesInEveryForm) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/ready-when: 'jsonpath={.data.ok}=yes'}}\n---\n"
      "apiVersion: v1\nkind: Secret\nmetadata: {name: b, namespace: default}\n---\n"
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\n"
      "  annotations:\n"
      "    planter.nephio.org/dependencies: 'v1|ConfigMap|default|a, Secret/default/b, "
      "ClusterRole/r'\n"
      "    planter.nephio.org/external-dependencies: 'v1|Secret|default|creds, "
      "ConfigMap/default/ext'\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* d = find_unit(out.plan, "Deployment/default/d");
  ASSERT_TRUE(d);
  const Requirement* a = find_requirement(out.plan, *d, "ConfigMap/default/a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->when.str(), "jsonpath={.data.ok}=yes");
  ASSERT_TRUE(find_requirement(out.plan, *d, "Secret/default/b"));
  ASSERT_TRUE(find_requirement(out.plan, *d, "ClusterRole/r"));
  const Requirement* creds = find_requirement(out.plan, *d, "Secret/default/creds");
  ASSERT_TRUE(creds);
  EXPECT_TRUE(creds->external());
  ASSERT_TRUE(find_requirement(out.plan, *d, "ConfigMap/default/ext"));
  EXPECT_EQ(out.plan.target(*find_requirement(out.plan, *d, "ConfigMap/default/ext")).api_version,
            "v1");
}

// As in kubectl, `Kind/name` is in the dependent's own namespace (or cluster-scoped).
TEST(Rules, KindSlashNameIsInTheDependentsNamespace) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: cnf}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: other}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: cnf\n"
      "  annotations:\n"
      "    planter.nephio.org/dependencies: ConfigMap/a\n"
      "    planter.nephio.org/external-dependencies: 'Secret/creds, ClusterRole/view'\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* d = find_unit(out.plan, "Deployment/cnf/d");
  ASSERT_TRUE(d);
  EXPECT_TRUE(find_requirement(out.plan, *d, "ConfigMap/cnf/a"));
  EXPECT_FALSE(find_requirement(out.plan, *d, "ConfigMap/other/a"));
  EXPECT_TRUE(find_requirement(out.plan, *d, "Secret/cnf/creds"));
  EXPECT_TRUE(find_requirement(out.plan, *d, "ClusterRole/view"));
}

TEST(Rules, DependencyOutsideTheSeedIsAnError) {
  auto out = plan_yaml(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default,"
      " annotations: {planter.nephio.org/dependencies: Secret/default/missing}}\n");
  ASSERT_FALSE(out.ok());
  std::string e = testing::all_errors(out.diags);
  EXPECT_NE(e.find("\"Secret/default/missing\" is not in the seed"), std::string::npos) << e;
  EXPECT_NE(e.find("planter.nephio.org/external-dependencies"), std::string::npos) << e;
}

TEST(Rules, DerivedAndExplicitRequirementsOnOneObjectMerge) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a,"
      " annotations: {planter.nephio.org/dependencies: 'v1|Namespace||a'}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* c = find_unit(out.plan, "ConfigMap/a/c");
  ASSERT_EQ(c->requirements.size(), 1u);
  EXPECT_EQ(c->requirements[0].when.str(), "active");  // the built-in, more specific, predicate
}

}  // namespace
}  // namespace planter
