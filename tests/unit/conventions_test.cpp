// Other tools' conventions (docs/annotations.md): kpt's Kptfile, local config and depends-on,
// Helm's install hooks, Argo CD's sync waves and hooks, each switched off by
// --ignore-annotations; and the `healthy` predicate those rules wait for.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "plan/apply_time_mutation.h"
#include "plan/render.h"
#include "plan/rules.h"
#include "plant/health.h"
#include "test_support.h"

namespace planter {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing::all_errors;
using testing::find_requirement;
using testing::find_unit;
using testing::plan_yaml;

const fs::path kData = PLANTER_TEST_DATA;

PlanOutcome plan_sources(const std::vector<std::string>& sources, PlanOptions options = {}) {
  Diagnostics diags;
  Seed seed = load_seed(sources, diags);
  return plan_loaded(std::move(seed), std::move(diags), {}, {}, options);
}

// "Kind/ns/name when (rule)" for each requirement of a unit, in order (but the Namespace
// default, which is not in these seeds).
std::vector<std::string> waits(const Plan& plan, const std::string& unit) {
  const Unit* u = find_unit(plan, unit);
  EXPECT_TRUE(u) << unit;
  std::vector<std::string> out;
  if (!u) return out;
  for (const Requirement& r : u->requirements) {
    if (r.external() && r.rule == "namespace" && plan.target(r).name == "default") continue;
    out.push_back(plan.target(r).short_form() + " " + r.when.str() + " (" + std::string(r.rule) +
                  ")");
  }
  return out;
}

std::vector<std::string> set_aside_names(const Plan& plan) {
  std::vector<std::string> out;
  for (const SetAside& a : plan.set_aside) out.push_back(a.ref.short_form());
  return out;
}

TEST(Conventions, KptPackageLeavesItsKptfileAndFunctionConfigAndFollowsDependsOn) {
  PlanOutcome out = plan_sources({(kData / "kpt/shop").string()});
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  EXPECT_EQ(set_aside_names(out.plan),
            (std::vector<std::string>{"Kptfile/shop", "ConfigMap/set-labels"}));
  EXPECT_EQ(out.plan.set_aside[0].convention, "kpt");
  EXPECT_FALSE(find_unit(out.plan, "ConfigMap/default/set-labels"));
  // The pipeline is not run: planter says so.
  ASSERT_EQ(out.diags.warnings().size(), 1u);
  EXPECT_NE(out.diags.warnings()[0].message.find("kpt fn render"), std::string::npos);

  EXPECT_EQ(waits(out.plan, "Deployment/shop/api"),
            (std::vector<std::string>{"Namespace/shop active (namespace)",
                                      "StatefulSet/shop/db healthy (depends-on)"}));
  EXPECT_EQ(waits(out.plan, "Cache/shop/sessions"),
            (std::vector<std::string>{
                "Namespace/shop active (namespace)",
                "CustomResourceDefinition/caches.shop.example.org established (crd)",
                "Deployment/shop/api healthy (depends-on)"}));
  EXPECT_EQ(waits(out.plan, "Deployment/shop/web"),
            (std::vector<std::string>{"Namespace/shop active (namespace)",
                                      "Deployment/shop/api healthy (depends-on)",
                                      "Cache/shop/sessions healthy (depends-on)"}));
}

// `planter annotate` prints the other tools' annotations back: planning its output derives their
// requirements again with their own predicates (not restated as planter.nephio.org/dependencies,
// where the earlier rule would wait for mere existence).
TEST(Conventions, AnnotateKeepsTheToolsRequirementsAsTheyWere) {
  PlanOutcome out = plan_sources({(kData / "kpt/shop").string()});
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  PlanOutcome again = plan_yaml(render_annotated_seed(out.plan));
  ASSERT_TRUE(again.ok()) << all_errors(again.diags);
  for (const char* unit :
       {"ConfigMap/shop/web-config", "Deployment/shop/web", "Deployment/shop/api"})
    EXPECT_EQ(waits(again.plan, unit), waits(out.plan, unit)) << unit;
  EXPECT_EQ(waits(again.plan, "ConfigMap/shop/web-config"),
            (std::vector<std::string>{
                "Namespace/shop active (namespace)",
                "Service/shop/api jsonpath={.spec.clusterIP} (apply-time-mutation)"}));
  // What was set aside (the Kptfile, local-config) is printed back, and set aside again.
  ASSERT_FALSE(out.plan.set_aside.empty());
  ASSERT_EQ(again.plan.set_aside.size(), out.plan.set_aside.size());
  for (size_t i = 0; i < out.plan.set_aside.size(); ++i) {
    EXPECT_EQ(again.plan.set_aside[i].ref.id(), out.plan.set_aside[i].ref.id());
    EXPECT_EQ(again.plan.set_aside[i].why, out.plan.set_aside[i].why);
  }
}

TEST(Conventions, DependsOnReferencesClusterScopedObjectsAndReportsBadOnes) {
  auto out = plan_yaml(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n"
      "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: default,"
      " annotations: {config.kubernetes.io/depends-on: "
      "rbac.authorization.k8s.io/ClusterRole/reader}}\n"
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
      " annotations: {config.kubernetes.io/depends-on: /namespaces/default/ServiceAccount/sa}}\n"
      "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: default, annotations:"
      " {config.kubernetes.io/depends-on: 'apps/Deployment/x,/namespaces/default/ConfigMap/nope,"
      "/namespaces/default/Secret/s'}}\n");
  std::string errors = all_errors(out.diags);
  EXPECT_NE(errors.find("v1 Secret default/s: config.kubernetes.io/depends-on: "
                        "\"apps/Deployment/x\" is not in the seed"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("\"/namespaces/default/ConfigMap/nope\" is not in the seed"),
            std::string::npos);
  EXPECT_NE(errors.find("\"/namespaces/default/Secret/s\" is the object itself"),
            std::string::npos);
  EXPECT_EQ(out.diags.size(), 3u) << errors;

  auto good = plan_yaml(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n"
      "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: default,"
      " annotations: {config.kubernetes.io/depends-on: "
      "rbac.authorization.k8s.io/ClusterRole/reader}}\n"
      "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
      " annotations: {config.kubernetes.io/depends-on: /namespaces/default/ServiceAccount/sa}}\n");
  ASSERT_TRUE(good.ok()) << all_errors(good.diags);
  EXPECT_EQ(waits(good.plan, "ServiceAccount/default/sa"),
            (std::vector<std::string>{"ClusterRole/reader healthy (depends-on)"}));
  EXPECT_EQ(waits(good.plan, "ConfigMap/default/c"),
            (std::vector<std::string>{"ServiceAccount/default/sa healthy (depends-on)"}));

  auto malformed = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
      " annotations: {config.kubernetes.io/depends-on: 'apps/Deployment/default/x'}}\n");
  EXPECT_NE(all_errors(malformed.diags).find("is not group/namespaces/namespace/Kind/name"),
            std::string::npos)
      << all_errors(malformed.diags);
}

// `helm template` output of tests/data/charts/hooks (release "demo"), as helm 3.17 prints it.
const char* kHelmOutput = R"(---
# Source: hooks/templates/app.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-config
data:
  greeting: hello
---
# Source: hooks/templates/app.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
spec:
  replicas: 2
  selector: {matchLabels: {app: demo}}
  template:
    metadata: {labels: {app: demo}}
    spec: {containers: [{name: hello, image: hello}]}
---
# Source: hooks/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: demo-seed-data
  annotations:
    "helm.sh/hook": pre-install
    "helm.sh/hook-weight": "-5"
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: seed, image: hello}]}}
---
# Source: hooks/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: demo-migrate
  annotations:
    "helm.sh/hook": pre-install
    "helm.sh/hook-weight": "-5"
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: migrate, image: hello}]}}
---
# Source: hooks/templates/schema.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-schema
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": "-10"
---
# Source: hooks/templates/notify.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: demo-notify
  annotations:
    "helm.sh/hook": post-install
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: notify, image: hello}]}}
---
# Source: hooks/templates/tests.yaml
apiVersion: v1
kind: Pod
metadata:
  name: demo-test-connection
  annotations:
    "helm.sh/hook": test
spec:
  containers: [{name: wget, image: busybox}]
---
# Source: hooks/templates/tests.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: demo-backup
  annotations:
    "helm.sh/hook": pre-delete
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: backup, image: hello}]}}
)";

TEST(Conventions, HelmHooksRunInHelmsOrderAroundTheRelease) {
  auto out = plan_yaml(kHelmOutput);
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  // By weight, then name: schema (-10), migrate (-5), seed-data (-5); each after the one
  // before it is done.
  EXPECT_EQ(waits(out.plan, "ConfigMap/default/demo-schema"), std::vector<std::string>{});
  EXPECT_EQ(waits(out.plan, "Job/default/demo-migrate"),
            (std::vector<std::string>{"ConfigMap/default/demo-schema exists (helm-hooks)"}));
  EXPECT_EQ(waits(out.plan, "Job/default/demo-seed-data"),
            (std::vector<std::string>{"Job/default/demo-migrate condition=Complete (helm-hooks)"}));
  for (const char* member : {"ConfigMap/default/demo-config", "Deployment/default/demo"})
    EXPECT_EQ(
        waits(out.plan, member),
        (std::vector<std::string>{"Job/default/demo-seed-data condition=Complete (helm-hooks)"}))
        << member;
  EXPECT_EQ(waits(out.plan, "Job/default/demo-notify"),
            (std::vector<std::string>{"ConfigMap/default/demo-config exists (helm-hooks)",
                                      "Deployment/default/demo exists (helm-hooks)"}));
  EXPECT_EQ(set_aside_names(out.plan),
            (std::vector<std::string>{"Pod/demo-test-connection", "Job/demo-backup"}));
  EXPECT_EQ(out.plan.set_aside[0].why, "a Helm test hook runs on `helm test`, not on install");
  EXPECT_EQ(out.plan.set_aside[1].why,
            "a Helm pre-delete hook runs on `helm uninstall`, not on install");
}

TEST(Conventions, HelmHooksOfAnotherFileAndNamespacesAreNotOrdered) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: init, namespace: app, annotations:"
      " {helm.sh/hook: pre-install}}\nspec: {template: {spec: {containers: []}}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: app}\n");
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  // The Namespace is created first, as helm install --create-namespace does: no cycle.
  EXPECT_EQ(waits(out.plan, "Namespace/app"), std::vector<std::string>{});
  EXPECT_EQ(waits(out.plan, "ConfigMap/app/c"),
            (std::vector<std::string>{"Namespace/app active (namespace)",
                                      "Job/app/init condition=Complete (helm-hooks)"}));
}

TEST(Conventions, MalformedHookAnnotationsAreBadInput) {
  auto out = plan_yaml(
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a, namespace: default, annotations:"
      " {helm.sh/hook: pre-install, helm.sh/hook-weight: heavy}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default, annotations:"
      " {argocd.argoproj.io/sync-wave: first}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default, annotations:"
      " {argocd.argoproj.io/hook: PreInstall}}\n");
  std::string errors = all_errors(out.diags);
  EXPECT_EQ(out.diags.size(), 3u) << errors;
  EXPECT_NE(errors.find("seed.yaml:1: batch/v1 Job default/a: helm.sh/hook-weight: \"heavy\" is "
                        "not an integer"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("argocd.argoproj.io/sync-wave: \"first\" is not an integer"),
            std::string::npos);
  EXPECT_NE(errors.find("unknown hook \"PreInstall\"; Argo CD knows PreSync, Sync, PostSync"),
            std::string::npos);
}

TEST(Conventions, ArgoCdSyncWavesWaitForTheWaveBeforeToBeHealthy) {
  PlanOutcome out = plan_sources({(kData / "argocd/guestbook").string()});
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  const std::string ns = "Namespace/guestbook active (namespace)";
  EXPECT_EQ(waits(out.plan, "Namespace/guestbook"), std::vector<std::string>{});
  EXPECT_EQ(waits(out.plan, "Job/guestbook/db-migrate"), (std::vector<std::string>{ns}));
  EXPECT_EQ(waits(out.plan, "ConfigMap/guestbook/guestbook-config"),
            (std::vector<std::string>{ns, "Job/guestbook/db-migrate healthy (sync-waves)"}));
  for (const char* wave0 : {"Deployment/guestbook/redis", "Service/guestbook/redis"})
    EXPECT_EQ(
        waits(out.plan, wave0),
        (std::vector<std::string>{ns, "ConfigMap/guestbook/guestbook-config healthy (sync-waves)"}))
        << wave0;
  EXPECT_EQ(waits(out.plan, "Deployment/guestbook/frontend"),
            (std::vector<std::string>{ns, "Deployment/guestbook/redis healthy (sync-waves)",
                                      "Service/guestbook/redis healthy (sync-waves)"}));
  EXPECT_EQ(waits(out.plan, "Job/guestbook/smoke-test"),
            (std::vector<std::string>{ns, "Deployment/guestbook/frontend healthy (sync-waves)"}));
  ASSERT_EQ(set_aside_names(out.plan), (std::vector<std::string>{"Job/guestbook/notify-failure"}));
  EXPECT_EQ(out.plan.set_aside[0].why, "an Argo CD SyncFail hook runs only when a sync fails");
}

TEST(Conventions, WavesOrderOnlyTheirOwnCluster) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first, namespace: default, annotations:"
      " {argocd.argoproj.io/sync-wave: '-2'}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\n---\n"
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, "
      "namespace: default}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: far, namespace: default, annotations:"
      " {planter.nephio.org/cluster: edge1}}\n");
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  EXPECT_EQ(waits(out.plan, "ConfigMap/default/plain"),
            (std::vector<std::string>{"ConfigMap/default/first healthy (sync-waves)"}));
  const Unit* far = find_unit(out.plan, "ConfigMap/default/far", "edge1");
  ASSERT_TRUE(far);
  EXPECT_FALSE(find_requirement(out.plan, *far, "ConfigMap/default/first"));
}

TEST(Conventions, IgnoreAnnotationsPlantsTheObjectsAsPlantersOwnRulesSay) {
  auto helm_off = Conventions::ignoring({"helm,argocd"});
  ASSERT_TRUE(helm_off);
  PlanOptions options;
  options.conventions = helm_off.value();
  auto out = plan_yaml(kHelmOutput, options);
  ASSERT_TRUE(out.ok()) << all_errors(out.diags);
  EXPECT_TRUE(out.plan.set_aside.empty());
  EXPECT_TRUE(find_unit(out.plan, "Pod/default/demo-test-connection"));
  EXPECT_EQ(waits(out.plan, "Deployment/default/demo"), std::vector<std::string>{});

  auto kpt_off = Conventions::ignoring({"kpt"});
  ASSERT_TRUE(kpt_off);
  options.conventions = kpt_off.value();
  // kpt's set-labels configuration is no valid ConfigMap (its data keys are label keys): without
  // the kpt convention it is declared, and refused before anything is written.
  PlanOutcome kpt = plan_sources({(kData / "kpt/shop").string()}, options);
  ASSERT_FALSE(kpt.ok());
  EXPECT_NE(all_errors(kpt.diags).find("v1 ConfigMap default/set-labels: "
                                       "data[app.kubernetes.io/part-of]: Invalid value"),
            std::string::npos)
      << all_errors(kpt.diags);
  EXPECT_TRUE(kpt.plan.set_aside.empty());

  auto bad = Conventions::ignoring({"helm,flux"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "--ignore-annotations: unknown convention \"flux\"; one of kpt, helm, argocd, kapp");
}

TEST(Conventions, ASeedOfHooksOnlyIsBadInput) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: t, namespace: default, annotations:"
      " {helm.sh/hook: test}}\nspec: {containers: []}\n");
  ASSERT_EQ(out.diags.size(), 1u);
  EXPECT_NE(out.diags.items()[0].message.find("nothing of the seed would be declared"),
            std::string::npos)
      << all_errors(out.diags);
  EXPECT_EQ(out.diags.items()[0].hint,
            "give planter the objects to declare, or --ignore-annotations=helm to declare these");
}

json::object parse(const char* text) {
  return json::parse(text).as_object();
}

TEST(Health, WorkloadsAreHealthyOnceRolledOutAsArgoCdJudgesThem) {
  using plant::check_health;
  EXPECT_FALSE(check_health(parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"generation":2},"spec":{"replicas":3},
      "status":{"observedGeneration":1,"updatedReplicas":3,"replicas":3,"availableReplicas":3}})"))
                   .holds);
  auto partial = check_health(parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"generation":2},"spec":{"replicas":3},
      "status":{"observedGeneration":2,"updatedReplicas":3,"replicas":3,"availableReplicas":1}})"));
  EXPECT_FALSE(partial.holds);
  EXPECT_EQ(partial.why, "1 of 3 updated replicas available");
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"generation":2},"spec":{"replicas":3},
      "status":{"observedGeneration":2,"updatedReplicas":3,"replicas":3,"availableReplicas":3}})"))
                  .holds);
  EXPECT_EQ(check_health(parse(R"({"apiVersion":"apps/v1","kind":"StatefulSet",
      "spec":{"replicas":2},"status":{"readyReplicas":1,"updatedReplicas":2}})"))
                .why,
            "1 of 2 pods ready");
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"apps/v1","kind":"DaemonSet",
      "status":{"desiredNumberScheduled":2,"updatedNumberScheduled":2,"numberAvailable":2}})"))
                  .holds);
}

TEST(Health, JobsPodsClaimsAndAddressesAsArgoCdJudgesThem) {
  using plant::check_health;
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "status":{"conditions":[{"type":"Complete","status":"True"}]}})"))
                  .holds);
  EXPECT_EQ(check_health(parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "status":{"conditions":[{"type":"Failed","status":"True","reason":"BackoffLimitExceeded"}]}})"))
                .why,
            "the Job failed (BackoffLimitExceeded)");
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"v1","kind":"Pod","spec":{},
      "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"))
                  .holds);
  EXPECT_FALSE(check_health(parse(R"({"apiVersion":"v1","kind":"Pod",
      "spec":{"restartPolicy":"Never"},
      "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"))
                   .holds);
  EXPECT_EQ(check_health(parse(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "status":{"phase":"Pending"}})"))
                .why,
            "the claim is Pending");
  EXPECT_FALSE(check_health(parse(R"({"apiVersion":"v1","kind":"Service",
      "spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{}}})"))
                   .holds);
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"v1","kind":"Service",
      "spec":{"type":"ClusterIP"}})"))
                  .holds);
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress",
      "status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.1"}]}}})"))
                  .holds);
  EXPECT_TRUE(check_health(parse(R"({"apiVersion":"v1","kind":"ConfigMap"})")).holds);
}

}  // namespace
}  // namespace planter

namespace planter {
namespace {

Object object_of(const std::string& yaml) {
  Seed seed;
  Diagnostics diags;
  parse_seed_text(yaml, "seed.yaml", seed, diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  return seed.objects.at(0);
}

TEST(ApplyTimeMutation, ReadsCliUtilsSubstitutionsAndWritesThem) {
  Object target = object_of(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  annotations:
    config.kubernetes.io/apply-time-mutation: |
      - sourceRef: {apiVersion: apps/v1, kind: Deployment, name: d, namespace: x}
        sourcePath: $.status.readyReplicas
        targetPath: $.spec.replicas
      - sourceRef: {kind: Service, name: s}
        sourcePath: $.metadata.annotations['example.org/url']
        targetPath: $.data.URL
        token: ${url}
data: {URL: "${url}/v1"}
)");
  auto subs = read_substitutions(target);
  ASSERT_TRUE(subs) << subs.error().message;
  ASSERT_EQ(subs->size(), 2u);
  EXPECT_EQ((*subs)[0].group, "apps");
  EXPECT_EQ((*subs)[0].ns, "x");
  EXPECT_EQ((*subs)[0].source_path, "{.status.readyReplicas}");
  EXPECT_EQ((*subs)[1].source_path, "{.metadata.annotations['example.org/url']}");
  EXPECT_EQ((*subs)[1].token, "${url}");

  json::object body = target.body;
  ASSERT_TRUE(substitute(body, (*subs)[0], json::value(3)));
  EXPECT_EQ(body.at("spec").at("replicas").as_int64(), 3);  // a missing map is made
  ASSERT_TRUE(substitute(body, (*subs)[1], json::value("http://s:80")));
  EXPECT_EQ(body.at("data").at("URL").as_string(), "http://s:80/v1");
}

TEST(ApplyTimeMutation, WhatPlanterCannotFollowIsSaid) {
  auto error_of = [](const std::string& entry) {
    Object o = object_of(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n"
        "    config.kubernetes.io/apply-time-mutation: |\n" +
        entry + "data: {a: b}\n");
    auto subs = read_substitutions(o);
    return subs ? std::string("no error") : subs.error().message;
  };
  EXPECT_EQ(error_of("      - sourcePath: $.a\n        targetPath: $.b\n"),
            "substitution 1: sourceRef (kind, name) is missing");
  EXPECT_EQ(error_of("      - sourceRef: {kind: S, name: s}\n        sourcePath: .a\n"
                     "        targetPath: $.b\n"),
            "substitution 1: sourcePath \".a\" must start with $. (JSONPath from the object's "
            "root)");
  EXPECT_EQ(error_of("      - sourceRef: {kind: S, name: s}\n        sourcePath: $.a\n"
                     "        targetPath: $.data.a\n        token: ${t}\n"),
            "substitution 1: the token \"${t}\" is not in the string at targetPath {.data.a}");
  EXPECT_EQ(error_of("      sourceRef: {kind: S}\n"),
            "the annotation must be a YAML list of substitutions");
}

}  // namespace
}  // namespace planter
