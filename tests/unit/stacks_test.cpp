// Stack policies as planter writes them: into built-in workloads' pod templates and into custom
// resources where their operators take their pods' fields from (the CRD's pod-template
// annotation in its three forms, the built-in operator table, a PodTemplateSpec-shaped schema).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>

#include "model/object.h"
#include "plan/render.h"
#include "plan/stacks/pod_shapes.h"
#include "shared_dir.h"
#include "test_support.h"

namespace planter {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using testing::kSanitized;
using testing::peak_rss_kib;
using testing::peak_rss_reset_kib;
using testing::plan_yaml;

const char* kStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: db}
spec:
  selector: {matchLabels: {stack: db}}
  atomic: {defaults: {cpu: "1", memory: 1Gi}}
  colocate: true
  separateFrom: [web]
  dedicated: {key: tenant, value: gold}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: web}
spec: {selector: {matchLabels: {stack: web}}}
)";

const Object& object_named(const Plan& plan, const std::string& name) {
  for (const Object& o : plan.objects)
    if (o.ref.name == name) return o;
  ADD_FAILURE() << name << " is not in the plan";
  static Object none;
  return none;
}

const json::value& at(const Object& o, std::initializer_list<std::string_view> path) {
  static const json::value kNull;
  const json::value* v = find_path(o.body, path);
  return v ? *v : kNull;
}

json::value term(const char* stack, const char* key) {
  return json::object{{"labelSelector", {{"matchLabels", {{"planter.nephio.org/stack", stack}}}}},
                      {"namespaceSelector", json::object{}},
                      {"topologyKey", key}};
}

TEST(StacksTest, BuiltInWorkloadsGetEveryPolicyAndKeepTheAuthorsTerms) {
  auto out = plan_yaml(std::string(kStack) + R"(---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: mysql, namespace: default, labels: {stack: db}}
spec:
  serviceName: mysql
  selector: {matchLabels: {app: mysql}}
  template:
    metadata: {labels: {app: mysql}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: disk, operator: In, values: [ssd]}]
            - matchExpressions: [{key: disk, operator: In, values: [nvme]}]
      initContainers: [{name: init, image: busybox, resources: {requests: {cpu: 100m}}}]
      containers:
      - {name: mysql, image: mysql, resources: {limits: {cpu: "2", memory: 4Gi}, requests: {cpu: "1"}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup, namespace: default, labels: {stack: db}}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: dump, image: mysql}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Object& sts = object_named(out.plan, "mysql");
  const json::value& spec = at(sts, {"spec", "template", "spec"});
  EXPECT_EQ(at(sts, {"spec", "template", "metadata", "labels", "planter.nephio.org/stack"}), "db");
  EXPECT_EQ(
      spec.at("affinity").at("podAffinity").at("requiredDuringSchedulingIgnoredDuringExecution"),
      json::array{term("db", "kubernetes.io/hostname")});
  EXPECT_EQ(spec.at("affinity")
                .at("podAntiAffinity")
                .at("requiredDuringSchedulingIgnoredDuringExecution"),
            json::array{term("web", "kubernetes.io/hostname")});
  // The dedicated label is ANDed into each of the author's ORed terms.
  const auto& terms = spec.at("affinity")
                          .at("nodeAffinity")
                          .at("requiredDuringSchedulingIgnoredDuringExecution")
                          .at("nodeSelectorTerms")
                          .as_array();
  ASSERT_EQ(terms.size(), 2u);
  for (const auto& t : terms) {
    const auto& exprs = t.at("matchExpressions").as_array();
    ASSERT_EQ(exprs.size(), 2u);
    EXPECT_EQ(
        exprs[1],
        (json::object{{"key", "tenant"}, {"operator", "In"}, {"values", json::array{"gold"}}}));
  }
  EXPECT_EQ(
      spec.at("tolerations"),
      (json::array{json::object{
          {"key", "tenant"}, {"operator", "Equal"}, {"value", "gold"}, {"effect", "NoSchedule"}}}));
  // Atomic: requests = limits; a missing limit from the request, else the defaults.
  EXPECT_EQ(spec.at("containers").at(0).at("resources"),
            (json::object{{"limits", {{"cpu", "2"}, {"memory", "4Gi"}}},
                          {"requests", {{"cpu", "2"}, {"memory", "4Gi"}}}}));
  EXPECT_EQ(spec.at("initContainers").at(0).at("resources"),
            (json::object{{"requests", {{"cpu", "100m"}, {"memory", "1Gi"}}},
                          {"limits", {{"cpu", "100m"}, {"memory", "1Gi"}}}}));
  const Object& cron = object_named(out.plan, "backup");
  EXPECT_EQ(at(cron, {"spec", "jobTemplate", "spec", "template", "metadata", "labels",
                      "planter.nephio.org/stack"}),
            "db");
  EXPECT_FALSE(sts.mutations.empty());
  // What the stack asks: the StatefulSet's pod (its container's 2 cpu, 4Gi outweigh its init
  // container) and the CronJob's (the defaults, 1 cpu, 1Gi); co-located, so one node holds it all.
  ASSERT_EQ(out.plan.stacks.size(), 2u);
  const StackNeeds& db = out.plan.stacks[0];
  EXPECT_EQ(db.name, "db");
  EXPECT_EQ(db.pods, 2);
  EXPECT_EQ(db.requests.milli_cpu, 3000);
  EXPECT_EQ(db.requests.memory, int64_t{5} * 1024 * 1024 * 1024);
  EXPECT_EQ(db.share.milli_cpu, 3000);
  EXPECT_THAT(render_table(out.plan),
              HasSubstr("stack db: 2 pods asking 3 cpu, 5Gi; co-located: one node must "
                        "hold all of it"));
}

TEST(StacksTest, CustomResourcesThroughTheCrdAnnotationInItsThreeForms) {
  auto crd = [](const char* kind, const char* annotation) {
    std::string plural = std::string(kind) + "s";
    for (char& c : plural) c = static_cast<char>(std::tolower(c));
    return "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
           "  name: " +
           plural + ".example.org\n  annotations:\n    planter.nephio.org/pod-template: '" +
           annotation +
           "'\nspec:\n  group: example.org\n  scope: Namespaced\n  names: {plural: " + plural +
           ", kind: " + kind +
           "}\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: "
           "{type: object, x-kubernetes-preserve-unknown-fields: true}}}]\n";
  };
  auto out = plan_yaml(
      std::string(kStack) + crd("Template", "spec.groups.*.template") +
      crd("Podlike", "pod:spec.podSpec") +
      crd("Scattered",
          R"({"labels": "spec.meta.podLabels", "affinity": "spec.scheduling.affinity", "tolerations": "spec.scheduling.tolerations", "resources": ["spec.main.resources", "spec.sidecars[*].resources"]})") +
      R"(---
apiVersion: example.org/v1
kind: Template
metadata: {name: t, namespace: default, labels: {stack: db}}
spec:
  groups:
    head: {template: {spec: {containers: [{name: h, image: x}]}}}
    worker: {template: {spec: {containers: [{name: w, image: x}]}}}
---
apiVersion: example.org/v1
kind: Podlike
metadata: {name: p, namespace: default, labels: {stack: db}}
spec: {podSpec: {resources: {limits: {cpu: 500m, memory: 1Gi}}}}
---
apiVersion: example.org/v1
kind: Scattered
metadata: {name: s, namespace: default, labels: {stack: db}}
spec:
  main: {resources: {requests: {cpu: "1", memory: 1Gi}}}
  sidecars: [{name: a}, {name: b}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Object& t = object_named(out.plan, "t");
  for (const char* g : {"head", "worker"}) {
    EXPECT_EQ(
        at(t, {"spec", "groups", g, "template", "metadata", "labels", "planter.nephio.org/stack"}),
        "db")
        << g;
    EXPECT_EQ(at(t, {"spec", "groups", g, "template", "spec", "containers"})
                  .at(0)
                  .at("resources")
                  .at("requests")
                  .at("cpu"),
              "1")
        << g;
  }
  const Object& p = object_named(out.plan, "p");
  EXPECT_EQ(at(p, {"spec", "podSpec", "labels", "planter.nephio.org/stack"}), "db");
  EXPECT_EQ(at(p, {"spec", "podSpec", "resources", "requests", "cpu"}), "500m");
  EXPECT_TRUE(at(p, {"spec", "podSpec", "affinity", "podAffinity"}).is_object());
  const Object& s = object_named(out.plan, "s");
  EXPECT_EQ(at(s, {"spec", "meta", "podLabels", "planter.nephio.org/stack"}), "db");
  EXPECT_TRUE(at(s, {"spec", "scheduling", "affinity", "nodeAffinity"}).is_object());
  EXPECT_EQ(at(s, {"spec", "scheduling", "tolerations"}).as_array().size(), 1u);
  EXPECT_EQ(at(s, {"spec", "main", "resources", "limits", "memory"}), "1Gi");
  EXPECT_EQ(at(s, {"spec", "sidecars"}).at(1).at("resources").at("limits").at("cpu"), "1");
}

TEST(StacksTest, AnOpaqueMemberIsAnErrorOrAWarningAsAsked) {
  std::string seed = std::string(kStack) + R"(---
apiVersion: example.org/v1
kind: Moodle
metadata: {name: site, namespace: default, labels: {stack: db}}
spec: {replicas: 1}
)";
  auto strict = plan_yaml(seed);
  ASSERT_FALSE(strict.ok());
  EXPECT_THAT(strict.diags.str(),
              HasSubstr("planter cannot reach the pods of example.org/v1 Moodle"));
  PlanOptions lenient;
  lenient.stacks.allow_unreachable_members = true;
  auto out = plan_yaml(seed, lenient);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ASSERT_FALSE(out.diags.warnings().empty());
  EXPECT_THAT(out.diags.warnings().front().message, HasSubstr("(left as it is)"));
  EXPECT_TRUE(object_named(out.plan, "site").mutations.empty());
}

TEST(StacksTest, AMalformedPodTemplateAnnotationNamesTheCrd) {
  auto shapes = parse_pod_shapes(R"({"labels": "spec.l", "colour": "spec.c"})");
  ASSERT_FALSE(shapes);
  EXPECT_THAT(shapes.error().message, HasSubstr("unknown field \"colour\""));
  EXPECT_FALSE(parse_pod_shapes(""));
  EXPECT_FALSE(parse_pod_shapes("spec.,x"));
}

TEST(StacksTest, PodTemplatePathsAreParsedWholeAndStayInsideSpec) {
  // Steps that are not field names: once a std::stoul that threw (issue 29).
  for (const char* bad : {"spec.[abc].template", "spec.[99999999999999999999999].template",
                          "spec.[0].template", "spec.a[1]", "spec..template", "spec.*x"}) {
    auto shapes = parse_pod_shapes(bad);
    ASSERT_FALSE(shapes) << bad;
    EXPECT_THAT(shapes.error().message, HasSubstr("of \"" + std::string(bad) + "\""));
  }
  // Nothing is ever written outside spec: a toleration into metadata.finalizers, labels into
  // status.
  auto outside = parse_pod_shapes(R"({"tolerations": "metadata.finalizers"})");
  ASSERT_FALSE(outside);
  EXPECT_THAT(outside.error().message,
              HasSubstr("\"tolerations\": \"metadata.finalizers\" does not start at spec"));
  EXPECT_FALSE(parse_pod_shapes("status.template"));
  EXPECT_FALSE(parse_pod_shapes("pod:metadata"));
  EXPECT_FALSE(parse_pod_shapes(R"({"resources": ["spec.a", "status.b"]})"));
  EXPECT_FALSE(parse_pod_shapes(R"({"labels": "spec.x.*"})")) << "wildcards are for PATH forms";
  EXPECT_FALSE(parse_pod_shapes("42")) << "JSON that is neither an object nor a list";
  // Bounds (docs/limits.md).
  std::string many;
  for (int i = 0; i < 65; ++i) many += (i ? "," : "") + std::string("spec.t") + std::to_string(i);
  EXPECT_FALSE(parse_pod_shapes(many));
  std::string deep = "spec";
  for (int i = 0; i < 32; ++i) deep += ".x";
  EXPECT_FALSE(parse_pod_shapes(deep));
  // What docs/stacks.md shows is read.
  for (const char* good :
       {"spec.template", "pod:spec.podSpec", "spec.pytorchReplicaSpecs.*.template",
        "spec.workerGroupSpecs[*].template",
        R"({"labels": "spec.pxc.labels", "affinity": "spec.pxc.affinity.advanced",
            "resources": ["spec.pxc.resources", "spec.sidecars[*].resources"]})"})
    EXPECT_TRUE(parse_pod_shapes(good)) << good;
}

TEST(StacksTest, SeparatingFromManyStacksTakesMemoryInProportion) {
  // One Stack separated from 600 others, with 100 members: 91 KB of seed that took 3.7 GB when
  // policies were compared by copying into the seed's pool (issue 29). Now each member gets one
  // term whose selector names the 600, and the plan takes what those names take.
  std::string seed =
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\nmetadata: {name: "
      "a}\nspec:\n  selector: {matchLabels: {stack: a}}\n  separateFrom: [";
  for (int i = 0; i < 600; ++i) seed += (i ? "," : "") + std::string("s") + std::to_string(i);
  seed += "]\n";
  for (int i = 0; i < 600; ++i)
    seed += "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Stack\nmetadata: {name: s" +
            std::to_string(i) + "}\nspec: {selector: {matchLabels: {stack: s" + std::to_string(i) +
            "}}}\n";
  for (int i = 0; i < 100; ++i)
    seed += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + std::to_string(i) +
            ", namespace: default, labels: {stack: a}}\nspec: {containers: [{name: c, image: "
            "busybox}]}\n";
  long before = peak_rss_reset_kib();
  auto out = plan_yaml(seed);
  long grew_mib = (peak_rss_kib() - before) / 1024;
  ASSERT_TRUE(out.ok()) << testing::all_errors(out.diags);
  auto p99 = std::find_if(out.plan.objects.begin(), out.plan.objects.end(),
                          [](const Object& o) { return o.ref.name == "p99"; });
  ASSERT_NE(p99, out.plan.objects.end());
  const Object& member = *p99;
  const json::value* terms = find_path(
      member.body,
      {"spec", "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  ASSERT_TRUE(terms && terms->is_array());
  ASSERT_EQ(terms->as_array().size(), 1u) << "one term, its selector In the 600 stacks";
  const json::value& in = terms->as_array()[0].at("labelSelector").at("matchExpressions").at(0);
  EXPECT_EQ(in.at("key"), "planter.nephio.org/stack");
  EXPECT_EQ(in.at("operator"), "In");
  EXPECT_EQ(in.at("values").as_array().size(), 600u);
  EXPECT_THAT(member.mutations,
              ::testing::Contains(HasSubstr("never on a node with the pods of stacks s0, s1, s10, "
                                            "s100, s101 and 595 more")));
  // A 100 KB seed never takes more than 100 MB (docs/limits.md); the sanitizers' allocator keeps
  // freed memory in quarantine (up to 256 MiB) on top.
  EXPECT_LT(grew_mib, kSanitized ? 100 + 256 : 100) << "the plan took " << grew_mib << " MiB more";
}

TEST(StacksTest, AKnownOperatorAndATemplateShapedSchemaNeedNoAnnotation) {
  auto out = plan_yaml(std::string(kStack) + R"(---
apiVersion: mysql.presslabs.org/v1alpha1
kind: MysqlCluster
metadata: {name: my, namespace: default, labels: {stack: db}}
spec: {replicas: 2, podSpec: {resources: {limits: {cpu: "2", memory: 2Gi}}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: runners.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: runners, kind: Runner}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {scale: {specReplicasPath: .spec.runners, statusReplicasPath: .status.runners}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              podTemplate:
                type: object
                properties:
                  metadata: {type: object, x-kubernetes-preserve-unknown-fields: true}
                  spec:
                    type: object
                    x-kubernetes-preserve-unknown-fields: true
                    properties:
                      containers: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: example.org/v1
kind: Runner
metadata: {name: r, namespace: default, labels: {stack: db}}
spec: {runners: 3, podTemplate: {spec: {containers: [{name: run, image: x}]}}}
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  // MysqlCluster's replicas from the table, the Runner's from its CRD's scale subresource.
  ASSERT_EQ(out.plan.stacks.size(), 2u);
  EXPECT_EQ(out.plan.stacks[0].pods, 2 + 3);
  EXPECT_EQ(
      at(object_named(out.plan, "my"), {"spec", "podSpec", "labels", "planter.nephio.org/stack"}),
      "db");
  EXPECT_EQ(at(object_named(out.plan, "r"),
               {"spec", "podTemplate", "metadata", "labels", "planter.nephio.org/stack"}),
            "db");
}

// The API server prunes what a CRD's schema does not keep, with a warning only: a stack's policy
// written there would be lost. With the CRD in the seed, that is bad input before any write.
TEST(StacksTest, APolicyTheCrdsSchemaWouldPruneIsBadInput) {
  auto out = plan_yaml(std::string(kStack) + R"(---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: runners.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: runners, kind: Runner}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {scale: {specReplicasPath: .spec.runners, statusReplicasPath: .status.runners}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              runners: {type: integer}
              podTemplate:
                type: object
                properties:
                  metadata: {type: object, x-kubernetes-preserve-unknown-fields: true}
                  spec:
                    type: object
                    properties:
                      containers: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: example.org/v1
kind: Runner
metadata: {name: r, namespace: default, labels: {stack: db}}
spec: {runners: 3, podTemplate: {spec: {containers: [{name: run, image: x}]}}}
)");
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(out.diags.str(), HasSubstr("example.org/v1 Runner default/r"));
  EXPECT_THAT(
      out.diags.str(),
      HasSubstr("the schema of Runner's CRD has no place for spec.podTemplate.spec.affinity, "
                "where planter writes the stack's affinity: the API server would prune it"));
  EXPECT_THAT(out.diags.str(), HasSubstr("x-kubernetes-preserve-unknown-fields"));
}

TEST(StacksTest, MembersOfAnAtomicStackWaitUntilItFitsAndSeparationGoesBothWays) {
  auto out = plan_yaml(std::string(kStack) + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mysql, namespace: default, labels: {stack: db}}
spec:
  replicas: 2
  selector: {matchLabels: {app: mysql}}
  template:
    metadata: {labels: {app: mysql}}
    spec: {containers: [{name: mysql, image: mysql}]}
---
apiVersion: v1
kind: Service
metadata: {name: mysql, namespace: default, labels: {stack: db}}
spec: {ports: [{port: 3306}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {stack: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Plan& plan = out.plan;
  std::map<std::string, std::vector<std::string>> fits;  // object -> its stack-fits requirements
  for (const Unit& u : plan.units)
    for (const Requirement& r : u.requirements)
      if (r.when.str() == "stack-fits")
        fits[plan.object_of(u).display()].push_back(plan.describe(r));
  EXPECT_EQ(fits, (std::map<std::string, std::vector<std::string>>{
                      {"apps/v1 Deployment default/mysql", {"stack db fits on cluster SELF"}},
                      {"v1 Service default/mysql", {"stack db fits on cluster SELF"}}}))
      << "members of the atomic stack db wait for it to fit; web is not atomic";
  ASSERT_EQ(plan.stacks.size(), 2u);
  EXPECT_EQ(plan.stacks[0].avoid, std::vector<std::string>{"web"});
  EXPECT_EQ(plan.stacks[1].avoid, std::vector<std::string>{"db"})
      << "db's anti-affinity keeps web's pods off its node too";
  ASSERT_EQ(plan.stacks[0].pod_kinds.size(), 1u);
  const StackPods& pods = plan.stacks[0].pod_kinds[0];
  EXPECT_EQ(pods.count, 2);
  EXPECT_EQ(pods.asks.milli_cpu, 1000);  // the stack's defaults
  // The pod the fit model reads carries the policies written into the template.
  const json::value* spec = pods.pod.if_contains("spec");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->at("tolerations").as_array().size(), 1u);
  EXPECT_EQ(
      spec->at_pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                       "nodeSelectorTerms")
          .as_array()
          .size(),
      1u);
  ASSERT_EQ(plan.stacks[0].members.size(), 2u);
  ASSERT_EQ(plan.stacks[0].members[0].affinity_paths.size(), 1u);
  EXPECT_EQ(pod_path::text(plan.stacks[0].members[0].affinity_paths[0]),
            "spec.template.spec.affinity");
  EXPECT_TRUE(plan.stacks[0].members[1].affinity_paths.empty()) << "a Service makes no pods";
  json::value rendered = json::parse(render_json(plan));
  bool listed = false;
  for (const auto& u : rendered.at("units").as_array())
    for (const auto& r : u.at("requires").as_array())
      listed = listed || r.at("when") == "stack-fits";
  EXPECT_TRUE(listed) << "plan -o json lists the requirement";
}

TEST(StacksTest, AnnotatedOutputPlansTheSameAgain) {
  auto out = plan_yaml(std::string(kStack) + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mysql, namespace: default, labels: {stack: db}}
spec:
  selector: {matchLabels: {app: mysql}}
  template:
    metadata: {labels: {app: mysql}}
    spec: {containers: [{name: mysql, image: mysql, resources: {requests: {cpu: 500m}}}]}
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::string annotated = render_annotated_seed(out.plan);
  auto again = plan_yaml(annotated);
  ASSERT_TRUE(again.ok()) << again.diags.str() << annotated;
  EXPECT_EQ(render_table(again.plan), render_table(out.plan)) << annotated;
  ASSERT_EQ(again.plan.objects.size(), out.plan.objects.size());
  for (size_t i = 0; i < out.plan.objects.size(); ++i)
    EXPECT_EQ(json::serialize(at(again.plan.objects[i], {"spec"})),
              json::serialize(at(out.plan.objects[i], {"spec"})))
        << "applying a stack twice adds nothing";
}

// A claim that carries the run's label is a member of the co-scheduled stack too; the anchor
// mounts it, so it must not wait for the anchor (that was a deadlock). Members that make pods do.
TEST(StacksTest, AClaimInACoScheduledStackNeverWaitsForTheAnchorThatMountsIt) {
  auto out = plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {group: ci}}
  coschedule: {mode: anchor}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: work, namespace: default, labels: {group: ci}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: build, namespace: default, labels: {group: ci}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: step, image: busybox}]
      volumes: [{name: w, persistentVolumeClaim: {claimName: work}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::map<std::string, std::vector<std::string>> rules;
  for (const Unit& u : out.plan.units)
    for (const Requirement& r : u.requirements)
      rules[out.plan.object_of(u).ref.name].emplace_back(r.rule);
  auto has = [&](const std::string& object, std::string_view rule) {
    const auto& list = rules[object];
    return std::find(list.begin(), list.end(), rule) != list.end();
  };
  EXPECT_FALSE(has("work", "anchor")) << "the claim the anchor mounts does not wait for it";
  EXPECT_FALSE(has("work", "stack-fits")) << "nor, in a stack that is not atomic, for the fit";
  EXPECT_TRUE(has("build", "anchor"));
  EXPECT_TRUE(has("ci-anchor", "stack-fits")) << "the anchor goes where the whole group fits";
}

TEST(StacksTest, ACoScheduledStackGetsAnAnchorThatLeadsAndMembersThatFollow) {
  auto out = plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {group: ci}}
  coschedule: {mode: anchor, isolate: true}
  dedicated: {key: tenant, value: gold}
---
apiVersion: batch/v1
kind: Job
metadata: {name: build, namespace: default, labels: {group: ci}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: step, image: busybox}]
      volumes: [{name: w, persistentVolumeClaim: {claimName: work}}, {name: c, configMap: {name: x}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: test, namespace: default, labels: {group: ci}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: step, image: busybox}]
      volumes: [{name: w, persistentVolumeClaim: {claimName: work}}, {name: r, persistentVolumeClaim: {claimName: reports}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Plan& plan = out.plan;
  const Object& anchor = object_named(plan, "ci-anchor");
  EXPECT_EQ(anchor.display(), "apps/v1 StatefulSet default/ci-anchor");
  EXPECT_EQ(at(anchor, {"spec", "replicas"}), 1);
  const json::value& pod = at(anchor, {"spec", "template", "spec"});
  EXPECT_EQ(pod.at("containers").at(0).at("image"), "registry.k8s.io/pause:3.10");
  EXPECT_EQ(pod.at("containers").at(0).at("resources").at("requests"),
            pod.at("containers").at(0).at("resources").at("limits"))
      << "Guaranteed";
  std::vector<std::string> claims;
  for (const auto& v : pod.at("volumes").as_array())
    claims.emplace_back(v.at("persistentVolumeClaim").at("claimName").as_string());
  EXPECT_EQ(claims, (std::vector<std::string>{"work", "reports"})) << "every claim, once";
  EXPECT_EQ(pod.at("tolerations").at(0).at("key"), "tenant") << "the stack's own policies";
  const json::value& anti =
      pod.at("affinity").at("podAntiAffinity").at("requiredDuringSchedulingIgnoredDuringExecution");
  EXPECT_EQ(anti.at(0).at("labelSelector").at("matchExpressions").at(1),
            (json::object{{"key", "planter.nephio.org/anchor"},
                          {"operator", "NotIn"},
                          {"values", json::array{"ci"}}}))
      << "isolate: other stacks' anchors repel it";
  EXPECT_FALSE(
      pod.at("affinity").as_object().contains("podAffinity") &&
      json::serialize(pod.at("affinity").at("podAffinity")).find("planter.nephio.org/anchor") !=
          std::string::npos)
      << "the anchor does not follow itself";
  // Members follow the anchor; they wait for it to be bound, it waits for the stack to fit.
  const Object& build = object_named(plan, "build");
  EXPECT_THAT(json::serialize(at(build, {"spec", "template", "spec", "affinity", "podAffinity"})),
              HasSubstr(R"({"matchLabels":{"planter.nephio.org/anchor":"ci"}})"));
  std::map<std::string, std::pair<int, std::vector<std::string>>> units;
  for (const Unit& u : plan.units) {
    auto& [wave, needs] = units[plan.object_of(u).ref.name];
    wave = u.wave;
    for (const Requirement& r : u.requirements)
      if (r.rule == "stack-fits" || r.rule == "anchor") needs.push_back(plan.describe(r));
  }
  EXPECT_EQ(units["ci-anchor"].second, std::vector<std::string>{"stack ci fits on cluster SELF"});
  EXPECT_EQ(units["build"].second,
            std::vector<std::string>{"the anchor pod of StatefulSet/default/ci-anchor bound"});
  EXPECT_GT(units["build"].first, units["ci-anchor"].first) << "members come after the anchor";
  // Planned again from `planter annotate`, the anchor is the same one, not a second.
  auto again = plan_yaml(render_annotated_seed(plan));
  ASSERT_TRUE(again.ok()) << again.diags.str();
  EXPECT_EQ(render_table(again.plan), render_table(plan));
}

TEST(StacksTest, TheSchedulerModeMakesAGangOfPlantersScheduler) {
  auto out = plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {group: ci}}
  coschedule: {mode: scheduler, isolate: true}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {group: ci}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: load, namespace: default, labels: {group: ci}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: load, image: busybox}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Plan& plan = out.plan;
  const Object& group = object_named(plan, "ci");
  EXPECT_EQ(group.display(), "scheduling.x-k8s.io/v1alpha1 PodGroup default/ci");
  EXPECT_EQ(at(group, {"spec", "minMember"}), 3) << "two replicas and a Job's pod";
  EXPECT_EQ(at(group, {"metadata", "annotations", "planter.nephio.org/same-node"}), "true");
  EXPECT_EQ(at(group, {"metadata", "annotations", "planter.nephio.org/isolate"}), "true");
  const Object& web = object_named(plan, "web");
  EXPECT_EQ(at(web, {"spec", "template", "spec", "schedulerName"}), "planter");
  EXPECT_EQ(at(web, {"spec", "template", "metadata", "labels", "scheduling.x-k8s.io/pod-group"}),
            "ci");
  std::vector<std::string> needs;
  for (const Unit& u : plan.units)
    if (plan.object_of(u).ref.name == "load")
      for (const Requirement& r : u.requirements) needs.push_back(plan.describe(r));
  EXPECT_THAT(needs, ::testing::Contains("PodGroup/default/ci exists"));
  EXPECT_THAT(needs, ::testing::Contains(
                         "scheduler planter answers (Lease kube-system/planter-scheduler held)"));
  auto again = plan_yaml(render_annotated_seed(plan));
  ASSERT_TRUE(again.ok()) << again.diags.str();
  EXPECT_EQ(render_table(again.plan), render_table(plan));
}

// Mode gang: Kubernetes' own Workload and PodGroup (scheduling.k8s.io/v1beta1), the members'
// pods joining it, in the order kube-apiserver and kube-scheduler need (Workload, PodGroup,
// members), minCount the stack's pods unless given; no schedulerName, no same-node rule, no wait
// for planter's scheduler.
TEST(StacksTest, TheGangModeWritesKubernetesOwnWorkloadAndPodGroup) {
  const char* members = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: workers, namespace: ml, labels: {group: train}}
spec:
  replicas: 3
  selector: {matchLabels: {app: workers}}
  template:
    metadata: {labels: {app: workers}}
    spec: {containers: [{name: w, image: registry.example/train:1}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: driver, namespace: ml, labels: {group: train}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: d, image: registry.example/train:1}]
)";
  auto out = plan_yaml(std::string(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: train}
spec:
  selector: {matchLabels: {group: train}}
  coschedule: {mode: gang}
)") + members);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Plan& plan = out.plan;
  const Object* group = nullptr;
  const Object* workload = nullptr;
  for (const Object& o : plan.objects) {
    if (o.ref.kind == "PodGroup") group = &o;
    if (o.ref.kind == "Workload") workload = &o;
  }
  ASSERT_TRUE(group && workload);
  EXPECT_EQ(group->display(), "scheduling.k8s.io/v1beta1 PodGroup ml/train");
  EXPECT_EQ(workload->display(), "scheduling.k8s.io/v1beta1 Workload ml/train");
  EXPECT_EQ(at(*group, {"spec", "schedulingPolicy", "gang", "minCount"}), 4)
      << "three replicas and a Job's pod";
  EXPECT_EQ(at(*group, {"spec", "podGroupTemplateRef", "workload", "workloadName"}), "train");
  EXPECT_EQ(
      at(*workload, {"spec", "podGroupTemplates"}).as_array().front(),
      (json::object{{"name", "members"}, {"schedulingPolicy", {{"gang", {{"minCount", 4}}}}}}));
  const Object& workers = object_named(plan, "workers");
  EXPECT_EQ(at(workers, {"spec", "template", "spec", "schedulingGroup", "podGroupName"}), "train");
  EXPECT_TRUE(at(workers, {"spec", "template", "spec", "schedulerName"}).is_null());
  EXPECT_TRUE(at(workers, {"spec", "template", "spec", "affinity", "podAffinity"}).is_null())
      << "a gang has no same-node rule";
  auto needs_of = [&](const std::string& kind, const std::string& name) {
    std::vector<std::string> needs;
    for (const Unit& u : plan.units)
      if (plan.object_of(u).ref.kind == kind && plan.object_of(u).ref.name == name)
        for (const Requirement& r : u.requirements) needs.push_back(plan.describe(r));
    return needs;
  };
  EXPECT_THAT(needs_of("Job", "driver"), ::testing::Contains("PodGroup/ml/train exists"));
  EXPECT_THAT(needs_of("Job", "driver"),
              ::testing::Not(::testing::Contains(HasSubstr("scheduler"))));
  EXPECT_THAT(needs_of("PodGroup", "train"), ::testing::Contains("Workload/ml/train exists"));
  auto again = plan_yaml(render_annotated_seed(plan));
  ASSERT_TRUE(again.ok()) << again.diags.str();
  EXPECT_EQ(render_table(again.plan), render_table(plan));

  auto smaller = plan_yaml(std::string(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: train}
spec:
  selector: {matchLabels: {group: train}}
  coschedule: {mode: gang, minCount: 3}
)") + members);
  ASSERT_TRUE(smaller.ok()) << smaller.diags.str();
  for (const Object& o : smaller.plan.objects) {
    if (o.ref.kind == "PodGroup") {
      EXPECT_EQ(at(o, {"spec", "schedulingPolicy", "gang", "minCount"}), 3);
    }
  }
}

TEST(StacksTest, AGangThatCouldNeverBeScheduledIsBadInput) {
  const char* member = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: workers, namespace: ml, labels: {group: train}}
spec:
  replicas: 2
  selector: {matchLabels: {app: workers}}
  template:
    metadata: {labels: {app: workers}}
    spec: {containers: [{name: w, image: registry.example/train:1}]}
)";
  auto stack = [&](const char* coschedule) {
    return plan_yaml(std::string(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: train}
spec:
  selector: {matchLabels: {group: train}}
  coschedule: )") + coschedule +
                     "\n" + member);
  };
  auto more = stack("{mode: gang, minCount: 3}");
  EXPECT_FALSE(more.ok());
  EXPECT_THAT(more.diags.str(), HasSubstr("spec.coschedule.minCount 3 is more than the stack's 2 "
                                          "pods: the gang could never be scheduled"));
  auto isolate = stack("{mode: gang, isolate: true}");
  EXPECT_FALSE(isolate.ok());
  EXPECT_THAT(isolate.diags.str(), HasSubstr("isolate is for the same-node modes"));
  auto elsewhere = stack("{mode: anchor, minCount: 2}");
  EXPECT_FALSE(elsewhere.ok());
  EXPECT_THAT(elsewhere.diags.str(), HasSubstr("spec.coschedule.minCount is for mode gang"));
  auto zero = stack("{mode: gang, minCount: 0}");
  EXPECT_FALSE(zero.ok());
  EXPECT_THAT(zero.diags.str(), HasSubstr("minCount must be a whole number from 1"));
}

TEST(StacksTest, ATopologyIsOneNodeLabelKeyRequiredOrPreferred) {
  const char* member = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {group: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: w, image: nginx}]}
)";
  auto stack = [&](const std::string& spec) {
    return plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: web}
spec:
  selector: {matchLabels: {group: web}}
)" + spec + member);
  };
  auto bad_key = stack("  topology: {key: 'not a key!'}\n");
  EXPECT_THAT(bad_key.diags.str(), HasSubstr("spec.topology.key: Invalid value"));
  auto bad_mode = stack("  topology: {key: rack, mode: sometimes}\n");
  EXPECT_THAT(bad_mode.diags.str(), HasSubstr("spec.topology.mode must be required or preferred"));
  auto two = stack("  colocate: {topologyKey: kubernetes.io/hostname}\n  topology: {key: rack}\n");
  EXPECT_THAT(two.diags.str(), HasSubstr("keep one of colocate and topology"));
  auto one_node = stack("  coschedule: {mode: anchor}\n  topology: {key: rack}\n");
  EXPECT_THAT(one_node.diags.str(), HasSubstr("a stack co-scheduled on one node has no other"));

  auto required = stack("  topology: {key: example.com/rack}\n");
  ASSERT_TRUE(required.ok()) << required.diags.str();
  std::vector<std::string> needs;
  for (const Unit& u : required.plan.units)
    for (const Requirement& r : u.requirements) needs.push_back(required.plan.describe(r));
  EXPECT_THAT(needs, ::testing::Contains(HasSubstr("stack web fits")))
      << "held to one rack: it waits until a rack holds it";
  auto preferred = stack("  topology: {key: example.com/rack, mode: preferred}\n");
  ASSERT_TRUE(preferred.ok()) << preferred.diags.str();
  const Object& web = object_named(preferred.plan, "web");
  EXPECT_EQ(at(web, {"spec", "template", "spec", "affinity", "podAffinity",
                     "preferredDuringSchedulingIgnoredDuringExecution"})
                .as_array()
                .front()
                .at("podAffinityTerm")
                .at("topologyKey"),
            "example.com/rack");
  for (const Unit& u : preferred.plan.units)
    for (const Requirement& r : u.requirements)
      EXPECT_THAT(preferred.plan.describe(r), ::testing::Not(HasSubstr("fits")));
}

TEST(StacksTest, PerconaXtraDbClusterFieldsAreWhereItsDocumentationSays) {
  std::string file =
      std::string(PLANTER_SHARED_DIR) + "/corpus/percona-xtradb-cluster-operator/seed.yaml";
  REQUIRE_SHARED(file);
  PlanRequest req;
  req.sources = {file};
  Diagnostics diags;
  Seed seed = load_seed(req.sources, diags);
  ASSERT_TRUE(diags.empty()) << diags.str();
  for (Object& o : seed.objects)
    if (o.ref.kind == "PerconaXtraDBCluster") o.set_annotation("planter.nephio.org/stack", "pxc");
  Object stack;
  stack.body = json::parse(R"({"apiVersion": "planter.nephio.org/v1alpha1", "kind": "Stack",
      "metadata": {"name": "pxc"},
      "spec": {"dedicated": {"key": "tenant", "value": "gold"}}})")
                   .as_object();
  stack.ref = {"planter.nephio.org/v1alpha1", "Stack", "", "pxc"};
  seed.objects.push_back(std::move(stack));
  auto out = plan_seed(std::move(seed), {});
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Object& cr = object_named(out.plan, "cluster1");
  for (const char* part : {"pxc", "haproxy", "proxysql"}) {
    // https://docs.percona.com/percona-operator-for-mysql/pxc/constraints.html: labels,
    // tolerations, nodeSelector and affinity.advanced of each component.
    EXPECT_EQ(at(cr, {"spec", part, "labels", "planter.nephio.org/stack"}), "pxc") << part;
    EXPECT_EQ(at(cr, {"spec", part, "tolerations"}).as_array().back().at("key"), "tenant") << part;
    EXPECT_TRUE(at(cr, {"spec", part, "affinity", "advanced", "nodeAffinity"}).is_object()) << part;
    // What the corpus already says stays.
    EXPECT_EQ(at(cr, {"spec", part, "affinity", "antiAffinityTopologyKey"}),
              "kubernetes.io/hostname")
        << part;
  }
}

}  // namespace
}  // namespace planter
