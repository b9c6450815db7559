// kubectl 1.32 against `planter sim`: what a user types, and what they see back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "model/yaml.h"
#include "shared_dir.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::Not;

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

const char* kWidgetCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
)";

const char* kWidget = R"(apiVersion: example.org/v1
kind: Widget
metadata:
  name: w1
  namespace: default
spec:
  size: 3
)";

class KubectlTest : public ::testing::Test {
 protected:
  SimProcess sim_;
};

TEST_F(KubectlTest, ApiResourcesListsBuiltinKinds) {
  auto r = sim_.kubectl("api-resources");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("deployments"));
  EXPECT_THAT(r.out, HasSubstr("apps/v1"));
  EXPECT_THAT(r.out, HasSubstr("customresourcedefinitions"));
  EXPECT_THAT(r.out, HasSubstr("crd,crds"));
  EXPECT_EQ(r.err, "");
  auto versions = sim_.kubectl("api-versions");
  ASSERT_EQ(versions.code, 0) << versions.err;
  EXPECT_THAT(versions.out, HasSubstr("autoscaling/v2"));
  // The management cluster serves planter's and Cluster API's CRDs from the start.
  EXPECT_THAT(versions.out, HasSubstr("planter.nephio.org/v1alpha1"));
  EXPECT_THAT(versions.out, HasSubstr("cluster.x-k8s.io/v1beta1"));
  // Only served group-versions are listed: every one of them must answer.
  std::istringstream lines(versions.out);
  for (std::string gv; std::getline(lines, gv);) {
    if (gv.empty()) continue;
    auto raw = sim_.kubectl("get --raw " + std::string(gv == "v1" ? "/api/" : "/apis/") + gv);
    EXPECT_EQ(raw.code, 0) << gv << ": " << raw.err;
  }
}

TEST_F(KubectlTest, CreateNamespaceAndGetItAsYaml) {
  auto r = sim_.kubectl("create namespace cnf");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "namespace/cnf created\n");
  auto y = sim_.kubectl("get namespace cnf -o yaml");
  ASSERT_EQ(y.code, 0) << y.err;
  EXPECT_THAT(y.out, HasSubstr("phase: Active"));
  EXPECT_THAT(y.out, HasSubstr("kubernetes.io/metadata.name: cnf"));
  auto again = sim_.kubectl("create namespace cnf");
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err,
              HasSubstr("Error from server (AlreadyExists): namespaces \"cnf\" already exists"));
}

TEST_F(KubectlTest, NamespacedCreateInMissingNamespaceIsNotFound) {
  auto r = sim_.kubectl("create configmap c -n nowhere --from-literal=a=b");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("namespaces \"nowhere\" not found"));
}

// kubectl's imperative commands send protobuf bodies; `kubectl get` prints kubectl's own
// columns from the sim's Tables.
TEST_F(KubectlTest, ImperativeCommandsAndTheColumnsKubectlPrints) {
  for (const char* cmd : {"create deployment web --image=nginx:1.27 --replicas=2 --port=80",
                          "create job once --image=busybox -- echo hi",
                          "create cronjob nightly --image=busybox --schedule='0 0 * * *'",
                          "expose deployment web --port=8080 --target-port=80",
                          "create service nodeport np --tcp=80:8080", "create serviceaccount robot",
                          "create role reader --verb=get,list --resource=pods",
                          "create rolebinding reader --role=reader --serviceaccount=default:robot",
                          "create clusterrole creader --verb=get --resource=nodes",
                          "create clusterrolebinding creader --clusterrole=creader --user=alice",
                          // sleep-ok(child): the pod's command, which the sim never runs
                          "run solo --image=busybox --restart=Never -- sleep 1"}) {
    auto r = sim_.kubectl(cmd);
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
  }
  auto rollout = sim_.kubectl("rollout status deploy/web --timeout=20s");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  auto job = sim_.kubectl("wait --for=condition=Complete job/once --timeout=20s");
  ASSERT_EQ(job.code, 0) << job.err;
  auto ports = sim_.kubectl("get deploy web -o jsonpath={.spec.template.spec.containers[0].ports}");
  EXPECT_EQ(ports.out, R"([{"containerPort":80,"protocol":"TCP"}])");
  auto rules = sim_.kubectl("get role reader -o jsonpath={.rules}");
  EXPECT_EQ(rules.out, R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}])");
  auto node_port = sim_.kubectl("get svc np -o jsonpath={.spec.ports[0].nodePort}");
  EXPECT_THAT(node_port.out, ::testing::MatchesRegex("3[0-2][0-9][0-9][0-9]"));

  auto pods = sim_.kubectl("get pods -o wide");
  ASSERT_EQ(pods.code, 0) << pods.err;
  EXPECT_THAT(pods.out, HasSubstr("NAME"));
  EXPECT_THAT(pods.out,
              ::testing::ContainsRegex("READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE"));
  EXPECT_THAT(pods.out, ::testing::ContainsRegex("web-[a-z0-9]+-[a-z0-9]+ +1/1 +Running +0 +"
                                                 "[0-9]+s +10\\.244\\.[0-9.]+ +management-node-"));
  EXPECT_THAT(pods.out, ::testing::ContainsRegex("once-[a-z0-9]+ +0/1 +Completed"));
  auto deploy = sim_.kubectl("get deploy web");
  EXPECT_THAT(deploy.out, ::testing::ContainsRegex("web +2/2 +2 +2 +"));
  auto nodes = sim_.kubectl("get nodes");
  EXPECT_THAT(nodes.out, ::testing::ContainsRegex("management-node-1 +Ready +control-plane +"));
  auto svc = sim_.kubectl("get svc web");
  EXPECT_THAT(svc.out,
              ::testing::ContainsRegex("web +ClusterIP +10\\.96\\.[0-9.]+ +<none> +8080/TCP"));
  auto jobs = sim_.kubectl("get jobs");
  EXPECT_THAT(jobs.out, ::testing::ContainsRegex("once +Complete +1/1 +"));
  auto cordon = sim_.kubectl("cordon management-node-2");
  ASSERT_EQ(cordon.code, 0) << cordon.err;
  nodes = sim_.kubectl("get node management-node-2");
  EXPECT_THAT(nodes.out, HasSubstr("Ready,SchedulingDisabled"));
}

// The corpus's kube-prometheus in two steps, as its README says: setup (CRDs and the namespace)
// server-side, wait for the CRDs, then the rest client-side; applying again changes nothing.
TEST_F(KubectlTest, KubePrometheusInTwoSteps) {
  fs::path seed = fs::path(PLANTER_SHARED_DIR) / "corpus" / "kube-prometheus" / "seed.yaml";
  REQUIRE_SHARED(seed);
  auto docs = parse_yaml_stream(read_file(seed), seed.string());
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  std::vector<const json::value*> setup, rest;
  for (const auto& d : *docs) {
    if (!d.value.is_object()) continue;
    auto* kind = d.value.as_object().if_contains("kind");
    bool first = kind && (kind->as_string() == "CustomResourceDefinition" ||
                          kind->as_string() == "Namespace");
    (first ? setup : rest).push_back(&d.value);
  }
  ASSERT_EQ(setup.size(), 11u);
  write(sim_.dir() / "setup.yaml", to_yaml_stream(setup));
  write(sim_.dir() / "rest.yaml", to_yaml_stream(rest));

  auto s = sim_.kubectl("apply --server-side -f " + (sim_.dir() / "setup.yaml").string());
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_THAT(s.out, HasSubstr("customresourcedefinition.apiextensions.k8s.io/"
                               "prometheuses.monitoring.coreos.com serverside-applied"));
  auto w = sim_.kubectl("wait --for=condition=Established crd --all --timeout=20s");
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_THAT(w.out, HasSubstr("prometheuses.monitoring.coreos.com condition met"));

  auto a = sim_.kubectl("apply -f " + (sim_.dir() / "rest.yaml").string());
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.err, "");
  EXPECT_THAT(a.out, HasSubstr("prometheus.monitoring.coreos.com/k8s created"));
  EXPECT_THAT(a.out, HasSubstr("apiservice.apiregistration.k8s.io/v1beta1.metrics.k8s.io created"));
  EXPECT_THAT(a.out, HasSubstr("deployment.apps/grafana created"));

  auto again = sim_.kubectl("apply -f " + (sim_.dir() / "rest.yaml").string());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("deployment.apps/grafana unchanged"));
  EXPECT_THAT(again.out, HasSubstr("prometheus.monitoring.coreos.com/k8s unchanged"));

  // Server-side apply over the client-side apply: same values, so no conflicts.
  auto ssa = sim_.kubectl("apply --server-side -f " + (sim_.dir() / "rest.yaml").string());
  ASSERT_EQ(ssa.code, 0) << ssa.err;
  EXPECT_THAT(ssa.out, HasSubstr("deployment.apps/grafana serverside-applied"));

  auto get = sim_.kubectl("get prometheus k8s -n monitoring -o yaml");
  ASSERT_EQ(get.code, 0) << get.err;
  EXPECT_THAT(get.out, HasSubstr("kind: Prometheus"));
  EXPECT_THAT(get.out, HasSubstr("generation: 1"));

  // The audit log saw kubectl create each object of the second step exactly once (Lists count
  // by their items, as kubectl sends them one by one); the sim's controllers create more.
  size_t expected = 0;
  for (const auto* d : rest) {
    const auto& o = d->as_object();
    std::string_view kind = o.at("kind").as_string();
    expected += kind.ends_with("List") ? o.at("items").as_array().size() : 1;
  }
  size_t creates = 0;
  for (const auto& line : sim_.audit_lines())
    if (line.find("\"verb\":\"create\"") != std::string::npos &&
        line.find("\"code\":201") != std::string::npos &&
        line.find("\"user\":\"admin\"") != std::string::npos)
      ++creates;
  EXPECT_EQ(creates, expected);
}

TEST_F(KubectlTest, ServerSideApplyConflictNamesTheOtherManager) {
  const char* web = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: IMAGE
)";
  auto with_image = [&](const std::string& image) {
    std::string text = web;
    text.replace(text.find("IMAGE"), 5, image);
    return text;
  };
  write(sim_.dir() / "web1.yaml", with_image("nginx:1"));
  write(sim_.dir() / "web.yaml", with_image("nginx:2"));
  auto csa = sim_.kubectl("apply -f " + (sim_.dir() / "web1.yaml").string());
  ASSERT_EQ(csa.code, 0) << csa.err;
  auto r = sim_.kubectl("apply --server-side -f " + (sim_.dir() / "web.yaml").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("conflict with \"kubectl-client-side-apply\" using apps/v1"));
  EXPECT_THAT(r.err, HasSubstr(".spec.template.spec.containers[name=\"nginx\"].image"));
  auto forced = sim_.kubectl("apply --server-side --force-conflicts -f " +
                             (sim_.dir() / "web.yaml").string());
  ASSERT_EQ(forced.code, 0) << forced.err;
  auto image = sim_.kubectl(
      "get deployment web -n default -o jsonpath={.spec.template.spec.containers[0].image}");
  EXPECT_EQ(image.out, "nginx:2");
}

// What kube-apiserver's validation refuses in any object's metadata and in a workload's
// selector, refused with its words: kubectl prints them as users know them.
TEST_F(KubectlTest, InvalidLabelsAnnotationsAndSelectorsAreRefusedWithKubeApiserversWords) {
  write(sim_.dir() / "labels.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  labels: {"bad key!": "x", ok: "-no-", "a/b/c": "v", "Example.com/x": "y"}
  annotations: {"/x": "y"}
)");
  auto r = sim_.kubectl("apply -f " + q(sim_.dir() / "labels.yaml"));
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr("The ConfigMap \"a\" is invalid"));
  EXPECT_THAT(r.err, HasSubstr("metadata.labels: Invalid value: \"bad key!\": name part must "
                               "consist of alphanumeric characters, '-', '_' or '.'"));
  EXPECT_THAT(r.err, HasSubstr("metadata.labels: Invalid value: \"-no-\": a valid label must be "
                               "an empty string"));
  EXPECT_THAT(r.err, HasSubstr("Invalid value: \"a/b/c\": a qualified name must consist"));
  EXPECT_THAT(r.err, HasSubstr("Invalid value: \"Example.com/x\": prefix part a lowercase RFC "
                               "1123 subdomain"));
  EXPECT_THAT(r.err, HasSubstr("metadata.annotations: Invalid value: \"/x\": prefix part must "
                               "be non-empty"));
  EXPECT_TRUE(is_not_found(sim_.kubectl("get configmap a")));

  write(sim_.dir() / "number.json",
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","labels":{"n":5}}})");
  r = sim_.kubectl("create --raw /api/v1/namespaces/default/configmaps -f " +
                   q(sim_.dir() / "number.json"));
  EXPECT_THAT(r.err, HasSubstr("(BadRequest): ConfigMap in version \"v1\" cannot be handled as a "
                               "ConfigMap: json: cannot unmarshal number into Go struct field "
                               "ObjectMeta.metadata.labels of type string"));

  std::string deployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default}
spec:
SELECTOR  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c, image: nginx}]}
)";
  auto with_selector = [&](const std::string& selector) {
    std::string text = deployment;
    text.replace(text.find("SELECTOR"), 8, selector);
    write(sim_.dir() / "d.yaml", text);
    return sim_.kubectl("apply -f " + q(sim_.dir() / "d.yaml"));
  };
  EXPECT_THAT(with_selector("").err,
              HasSubstr("The Deployment \"d\" is invalid: spec.selector: Required value"));
  EXPECT_THAT(with_selector("  selector: {}\n").err,
              HasSubstr("empty selector is invalid for deployment"));
  EXPECT_THAT(with_selector("  selector: {matchLabels: {app: e}}\n").err,
              HasSubstr("spec.template.metadata.labels: Invalid value: "
                        "map[string]string{\"app\":\"d\"}: `selector` does not match template "
                        "`labels`"));
  auto good = with_selector(
      "  selector: {matchExpressions: [{key: app, operator: In, values: "
      "[d]}]}\n");
  EXPECT_EQ(good.code, 0) << good.err;
}

// `kubectl get seeds -w` (the README says to watch Seeds) shows the CRD's columns on every
// change, as `kubectl get` does: the watch answers as=Table with one-row Tables. Before, a watch
// ignored as=Table and kubectl showed NAME and AGE only. A built-in kind's columns too.
TEST_F(KubectlTest, GetWatchShowsTheColumnsOfEveryChange) {
  ASSERT_EQ(sim_.kubectl("create configmap first --from-literal=a=b").code, 0);
  write(sim_.dir() / "seed.yaml",
        "apiVersion: planter.nephio.org/v1alpha1\nkind: Seed\nmetadata: {name: s1, namespace: "
        "default}\nspec: {source: {inline: \"a: b\"}}\n");
  ASSERT_EQ(sim_.kubectl("apply -f " + q(sim_.dir() / "seed.yaml")).code, 0);
  fs::path seeds = sim_.dir() / "seeds-watch.txt", maps = sim_.dir() / "maps-watch.txt";
  std::string base = kubectl_binary() + " --kubeconfig " + q(sim_.kubeconfig()) + " --cache-dir " +
                     q(sim_.dir() / "watch-cache");
  ASSERT_EQ(
      run_shell("(timeout 20 " + base + " get seeds -w > " + q(seeds) + " 2>&1 &); (timeout 20 " +
                base + " get configmaps -w > " + q(maps) + " 2>&1 &)")
          .code,
      0);
  auto shows = [](const fs::path& f, const std::string& text) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < end) {
      std::ifstream in(f);
      std::stringstream ss;
      ss << in.rdbuf();
      if (ss.str().find(text) != std::string::npos) return ss.str();
      // sleep-ok(poll): the step of a wait for observed state with a deadline
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::string("(not shown) ") + text;
  };
  ASSERT_THAT(shows(seeds, "s1"),
              HasSubstr("NAME   PHASE   READY   DECLARED   TOTAL   AGE   STATUS"));
  ASSERT_THAT(shows(maps, "first"), HasSubstr("DATA"));
  // Changes after the watch began: a row each, with the columns filled.
  ASSERT_EQ(sim_.kubectl("patch seed s1 --subresource=status --type merge -p "
                         "'{\"status\":{\"phase\":\"Planted\",\"counts\":{\"declared\":3,"
                         "\"total\":3},\"conditions\":[{\"type\":\"Ready\",\"status\":"
                         "\"True\",\"reason\":\"Planted\",\"message\":\"3 units\"}]}}'")
                .code,
            0);
  ASSERT_EQ(sim_.kubectl("create configmap second --from-literal=a=b --from-literal=c=d").code, 0);
  std::string seen = shows(seeds, "Planted");
  EXPECT_THAT(seen, HasSubstr("s1     Planted   True    3          3"));
  EXPECT_THAT(seen, HasSubstr("3 units"));
  EXPECT_EQ(seen.find("PHASE"), seen.rfind("PHASE"));  // the header once
  EXPECT_THAT(shows(maps, "second"), HasSubstr("second   2"));
  // Kinds kubectl is commonly used with have their columns in a plain get too.
  EXPECT_THAT(sim_.kubectl("get crd seeds.planter.nephio.org").out, HasSubstr("CREATED AT"));
  EXPECT_THAT(
      sim_.kubectl("create secret generic s --from-literal=a=b && " + base + " get secret s").out,
      HasSubstr("NAME   TYPE     DATA   AGE\ns      Opaque   1 "));
  run_shell("pkill -f " + q(seeds.parent_path() / "watch-cache") + " || true");
}

// ConfigMap and Secret keys as kube-apiserver validates them (IsConfigMapKey): an empty key, one
// that starts with "..", a key in both data and binaryData; a key of 100 characters is fine.
TEST_F(KubectlTest, ConfigMapAndSecretKeysAreValidatedAsKubeApiserverDoes) {
  write(sim_.dir() / "keys.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keys, namespace: default}\n"
        "data: {\"\": v, ..x: w}\nbinaryData: {..x: d3c=}\n---\napiVersion: v1\nkind: Secret\n"
        "metadata: {name: keys, namespace: default}\nstringData: {\"a b\": c}\n");
  CommandResult r = sim_.kubectl("apply -f " + q(sim_.dir() / "keys.yaml"));
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr("data[]: Invalid value: \"\": a valid config key must consist of "
                               "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
                               "'KEY_NAME',  or 'key-name', regex used for validation is "
                               "'[-._a-zA-Z0-9]+')"));
  EXPECT_THAT(r.err, HasSubstr("data[..x]: Invalid value: \"..x\": must not start with '..'"));
  EXPECT_THAT(r.err, HasSubstr("binaryData[..x]: Invalid value: \"..x\": duplicate of key "
                               "present in data"));
  // stringData is merged into data before validation, so the path says data.
  EXPECT_THAT(r.err, HasSubstr("Secret \"keys\" is invalid: data[a b]: Invalid value"));
  write(sim_.dir() / "long.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long, "
        "namespace: default}\ndata: {" +
            std::string(100, 'k') + ": v}\n");
  r = sim_.kubectl("apply -f " + q(sim_.dir() / "long.yaml"));
  EXPECT_EQ(r.code, 0) << r.err;
}

// Applying the same thing again a second later changes nothing a user (or a watch) can see,
// even though the sim's CRD controller wrote the CRD's status in between: kube-apiserver does not
// write a change that would only move managedFields timestamps.
TEST_F(KubectlTest, ServerSideApplyAgainIsNoWrite) {
  std::string ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: again, labels: {a: b}}\n";
  write(sim_.dir() / "again.yaml", ns + "---\n" + kWidgetCrd);
  std::string apply = "apply --server-side -f " + (sim_.dir() / "again.yaml").string();
  ASSERT_EQ(sim_.kubectl(apply).code, 0);
  ASSERT_EQ(sim_.kubectl("wait --for=condition=Established crd/widgets.example.org").code, 0);
  std::string versions =
      "get ns/again crd/widgets.example.org -o jsonpath={.items[*].metadata.resourceVersion}";
  std::string before = sim_.kubectl(versions).out;
  // sleep-ok(time): managedFields timestamps are in seconds
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // timestamps are in seconds
  auto again = sim_.kubectl(apply);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(sim_.kubectl(versions).out, before);
  size_t applies = 0;
  for (const auto& line : sim_.audit_lines())
    if (line.find("\"verb\":\"apply\"") != std::string::npos) ++applies;
  EXPECT_EQ(applies, 2u);

  // A second manager taking a share of the same fields is a change: it is written.
  auto other = sim_.kubectl(apply + " --field-manager other");
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(sim_.kubectl(versions).out, before);
}

// The object created after kubectl printed its initial list can only reach it through the watch.
TEST_F(KubectlTest, GetWatchSeesEvents) {
  ASSERT_EQ(sim_.kubectl("create configmap listed -n default --from-literal=a=b").code, 0);
  std::string out = (sim_.dir() / "watch.out").string();
  std::string cmd = kubectl_binary() + " --kubeconfig " + sim_.kubeconfig().string() +
                    " --cache-dir " + (sim_.dir() / "kubectl-cache").string() +
                    " get configmaps -n default -w -o name --request-timeout=20s > " + out +
                    " 2>&1 & echo $!";
  auto started = run_shell(cmd);
  ASSERT_EQ(started.code, 0);
  auto wait_for = [&](const std::string& text) {
    std::string seen;
    for (int i = 0; i < 200 && seen.find(text) == std::string::npos; ++i) {
      // sleep-ok(poll): the step of a wait for observed state with a deadline
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      seen = read_file(out);
    }
    return seen;
  };
  ASSERT_THAT(wait_for("configmap/listed"), HasSubstr("configmap/listed"));
  ASSERT_EQ(sim_.kubectl("create configmap watched -n default --from-literal=a=b").code, 0);
  std::string seen = wait_for("configmap/watched");
  run_shell("kill " + started.out);
  EXPECT_THAT(seen, HasSubstr("configmap/watched"));
}

TEST(KubectlCrdTest, WaitForEstablishedThenCustomResources) {
  SimProcess sim({"--crd-delay", "3000"});
  write(sim.dir() / "crd.yaml", kWidgetCrd);
  write(sim.dir() / "widget.yaml", kWidget);
  ASSERT_EQ(sim.kubectl("apply -f " + (sim.dir() / "crd.yaml").string()).code, 0);
  // Not established yet: kubectl's usual error, exactly as against a real server.
  auto early = sim.kubectl("apply -f " + (sim.dir() / "widget.yaml").string());
  EXPECT_EQ(early.code, 1);
  EXPECT_THAT(early.err, HasSubstr("no matches for kind \"Widget\" in version \"example.org/v1\""));
  EXPECT_THAT(early.err, HasSubstr("ensure CRDs are installed first"));

  auto w = sim.kubectl("wait --for=condition=Established crd/widgets.example.org --timeout=20s");
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(w.out,
            "customresourcedefinition.apiextensions.k8s.io/widgets.example.org condition met\n");
  auto late = sim.kubectl("apply -f " + (sim.dir() / "widget.yaml").string());
  ASSERT_EQ(late.code, 0) << late.err;
  EXPECT_EQ(late.out, "widget.example.org/w1 created\n");
  auto get = sim.kubectl("get wd w1 -n default -o jsonpath={.spec.size}");
  EXPECT_EQ(get.out, "3");

  // The audit log shows the CRD established before the custom resource was created.
  auto lines = sim.audit_lines();
  auto established = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("\"what\":\"established\"") != std::string::npos;
  });
  auto created = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("example.org/v1|Widget|default|w1") != std::string::npos;
  });
  ASSERT_NE(established, lines.end());
  ASSERT_NE(created, lines.end());
  EXPECT_LT(established - lines.begin(), created - lines.begin());
}

TEST(KubectlCrdTest, StrictFieldValidationRejectsUnknownFields) {
  SimProcess sim({"--crd-delay", "0"});
  write(sim.dir() / "crd.yaml", kWidgetCrd);
  ASSERT_EQ(sim.kubectl("apply -f " + (sim.dir() / "crd.yaml").string()).code, 0);
  ASSERT_EQ(
      sim.kubectl("wait --for=condition=Established crd/widgets.example.org --timeout=20s").code,
      0);
  write(sim.dir() / "bad.yaml", std::string(kWidget) + "  colour: red\n");
  auto r = sim.kubectl("apply -f " + (sim.dir() / "bad.yaml").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown field \"spec.colour\""));
  auto warn = sim.kubectl("apply --validate=warn -f " + (sim.dir() / "bad.yaml").string());
  EXPECT_EQ(warn.code, 0) << warn.err;
  EXPECT_THAT(warn.err, HasSubstr("unknown field \"spec.colour\""));
}

// kubectl logs, exec, attach and port-forward on a simulated container: a log line that says no
// process runs, and a Status saying why the others are not served; kube-apiserver's refusals
// before (a container not started, a container that is not the pod's).
TEST(KubectlPodTest, LogsExecAttachAndPortForwardSayWhatASimulatedContainerIs) {
  // Long enough for `kubectl logs` to find the container not started yet, however slow kubectl.
  SimProcess sim({"--workload-delay", "5000"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("run web --image=nginx").code, 0);
  CommandResult early = sim.kubectl("logs web");
  EXPECT_NE(early.code, 0);
  EXPECT_THAT(early.err, HasSubstr("container \"web\" in pod \"web\" is waiting to start: "
                                   "ContainerCreating"));
  ASSERT_EQ(sim.kubectl("wait --for=jsonpath={.status.phase}=Running pod/web --timeout=30s").code,
            0);
  CommandResult logs = sim.kubectl("logs web");
  EXPECT_EQ(logs.code, 0) << logs.err;
  EXPECT_EQ(logs.out,
            "planter sim: container web of pod default/web is simulated: no process runs "
            "in it, so it writes no log\n");
  EXPECT_THAT(sim.kubectl("logs web -c sidecar").err,
              HasSubstr("container sidecar is not valid for pod web"));
  for (const char* command : {"exec web -- ls", "attach web", "port-forward pod/web 0:80"}) {
    CommandResult r = sim.kubectl(std::string("--request-timeout=10s ") + command);
    EXPECT_NE(r.code, 0) << command;
    EXPECT_THAT(r.err, HasSubstr("is not served for pod \"web\": the sim's containers are "
                                 "simulated and run no process"))
        << command;
  }
  EXPECT_THAT(sim.kubectl("logs nothing").err, HasSubstr("pods \"nothing\" not found"));
}

// What kube-apiserver's defaulting gives a pod, as `kubectl get -o yaml` shows it back: the
// probes' timings and thresholds, an httpGet's path and scheme, the image pull policy.
TEST_F(KubectlTest, PodsComeBackWithKubeApiserversDefaults) {
  fs::path file = sim_.dir() / "probed.yaml";
  write(file, R"(apiVersion: v1
kind: Pod
metadata: {name: probed, namespace: default}
spec:
  containers:
  - name: web
    image: nginx:1.27
    readinessProbe:
      httpGet: {port: 8080}
    livenessProbe:
      tcpSocket: {port: 8080}
      periodSeconds: 5
      failureThreshold: 0
    lifecycle:
      preStop:
        httpGet: {port: 8080, path: /drain}
  - name: sidecar
    image: busybox
)");
  auto created = sim_.kubectl("apply -f " + file.string());
  ASSERT_EQ(created.code, 0) << created.err;
  auto field = [&](const std::string& path) {
    auto r = sim_.kubectl("get pod probed -o jsonpath={" + path + "}");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  const std::string web = ".spec.containers[0]";
  EXPECT_EQ(field(web + ".readinessProbe.timeoutSeconds"), "1");
  EXPECT_EQ(field(web + ".readinessProbe.periodSeconds"), "10");
  EXPECT_EQ(field(web + ".readinessProbe.successThreshold"), "1");
  EXPECT_EQ(field(web + ".readinessProbe.failureThreshold"), "3");
  EXPECT_EQ(field(web + ".readinessProbe.httpGet.path"), "/");
  EXPECT_EQ(field(web + ".readinessProbe.httpGet.scheme"), "HTTP");
  EXPECT_EQ(field(web + ".livenessProbe.periodSeconds"), "5");     // given: kept
  EXPECT_EQ(field(web + ".livenessProbe.failureThreshold"), "3");  // 0 is defaulted
  EXPECT_EQ(field(web + ".lifecycle.preStop.httpGet.path"), "/drain");
  EXPECT_EQ(field(web + ".lifecycle.preStop.httpGet.scheme"), "HTTP");
  EXPECT_EQ(field(web + ".imagePullPolicy"), "IfNotPresent");
  EXPECT_EQ(field(".spec.containers[1].imagePullPolicy"), "Always");  // no tag
  EXPECT_EQ(field(web + ".terminationMessagePath"), "/dev/termination-log");
  EXPECT_EQ(field(".spec.containers[1].readinessProbe"), "");  // no probe, none made up
}

// As a pod starts, its node's kubelet records, per container (init containers first), what
// `kubectl describe pod` shows from a real one: the image present (or pulled, for an image without
// a tag, which imagePullPolicy Always pulls each time), the container created, started.
TEST_F(KubectlTest, DescribePodShowsTheKubeletsEventsAsItStarts) {
  fs::path file = sim_.dir() / "started.yaml";
  write(file, R"(apiVersion: v1
kind: Pod
metadata: {name: started, namespace: default}
spec:
  initContainers:
  - {name: setup, image: busybox:1.36}
  containers:
  - {name: web, image: nginx:1.27}
  - {name: sidecar, image: envoyproxy/envoy}
)");
  ASSERT_EQ(sim_.kubectl("apply -f " + file.string()).code, 0);
  auto ready = sim_.kubectl("wait --for=condition=Ready pod/started --timeout=60s");
  ASSERT_EQ(ready.code, 0) << ready.err;
  auto described = sim_.kubectl("describe pod started");
  ASSERT_EQ(described.code, 0) << described.err;
  std::string events = described.out.substr(described.out.find("Events:"));
  for (const char* line :
       {"Scheduled", "Container image \"busybox:1.36\" already present on machine",
        "Created container: setup", "Started container setup",
        "Container image \"nginx:1.27\" already present on machine", "Created container: web",
        "Started container web", "Pulling image \"envoyproxy/envoy\"", "Started container sidecar"})
    EXPECT_THAT(events, HasSubstr(line)) << events;
  // kubelet's own wording, in the sim's --workload-delay, no bytes fetched.
  EXPECT_THAT(events,
              ::testing::ContainsRegex(
                  "Successfully pulled image \"envoyproxy/envoy\" in [0-9.]+m?s \\([0-9.]+m?s "
                  "including waiting\\)\\. Image size: 0 bytes\\."));
  EXPECT_THAT(events, Not(HasSubstr("Container image \"envoyproxy/envoy\" already present")));
  EXPECT_THAT(events, ::testing::ContainsRegex("Normal +Started +[0-9a-z]+ +kubelet"));
  // The init container's events come before the main container's.
  EXPECT_LT(events.find("Started container setup"), events.find("Created container: web"));
  auto listed = sim_.kubectl(
      "get events --field-selector involvedObject.name=started,reason=Started "
      "-o jsonpath={.items[*].source.component}");
  EXPECT_EQ(listed.out, "kubelet kubelet kubelet");
}

// `kubectl top` once a metrics server's APIService is Available (docs/sim.md: a running container
// uses what it requests); before that, kubectl's own answer that the API is not there.
TEST_F(KubectlTest, TopShowsWhatPodsRequestOnceAMetricsServerIsAvailable) {
  auto before = sim_.kubectl("top node");
  EXPECT_NE(before.code, 0);
  EXPECT_THAT(before.err, HasSubstr("Metrics API not available"));
  fs::path file = sim_.dir() / "metrics-server.yaml";
  write(file, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: metrics-server, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: metrics-server}}
  template:
    metadata: {labels: {k8s-app: metrics-server}}
    spec:
      containers:
      - name: metrics-server
        image: registry.k8s.io/metrics-server/metrics-server:v0.7.2
        ports: [{name: https, containerPort: 10250}]
---
apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system}
spec:
  selector: {k8s-app: metrics-server}
  ports: [{name: https, port: 443, targetPort: https}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  service: {name: metrics-server, namespace: kube-system}
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
---
apiVersion: v1
kind: Pod
metadata: {name: busy, namespace: default, labels: {app: busy}}
spec:
  containers:
  - name: main
    image: busybox:1.36
    resources: {requests: {cpu: 250m, memory: 64Mi}}
  - name: idle
    image: busybox:1.36
)");
  auto applied = sim_.kubectl("apply -f " + file.string());
  ASSERT_EQ(applied.code, 0) << applied.err;
  auto available = sim_.kubectl(
      "wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io --timeout=30s");
  ASSERT_EQ(available.code, 0) << available.err;
  auto ready = sim_.kubectl("wait --for=condition=Ready pod/busy --timeout=30s");
  ASSERT_EQ(ready.code, 0) << ready.err;

  auto pod = sim_.kubectl("top pod busy --no-headers");
  ASSERT_EQ(pod.code, 0) << pod.err;
  EXPECT_THAT(pod.out, ::testing::MatchesRegex("busy +251m +68Mi *\n")) << pod.out;  // 250m+1m
  auto containers = sim_.kubectl("top pod -l app=busy --containers --no-headers");
  ASSERT_EQ(containers.code, 0) << containers.err;
  EXPECT_THAT(containers.out, ::testing::ContainsRegex("busy +main +250m +64Mi"));
  EXPECT_THAT(containers.out, ::testing::ContainsRegex("busy +idle +1m +4Mi"));
  auto node = sim_.kubectl("get pod busy -o jsonpath={.spec.nodeName}").out;
  auto nodes = sim_.kubectl("top node " + node);
  ASSERT_EQ(nodes.code, 0) << nodes.err;
  EXPECT_THAT(nodes.out, HasSubstr("CPU(cores)"));
  EXPECT_THAT(nodes.out, ::testing::ContainsRegex(node + " +[0-9]+m +[0-9]+% +[0-9]+Mi +[0-9]+%"));
  // Not a stored API: nothing can be written to it.
  auto write_attempt =
      sim_.kubectl("delete --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/busy");
  EXPECT_NE(write_attempt.code, 0);
  auto gone = sim_.kubectl("top pod nothing-here");
  EXPECT_NE(gone.code, 0);
  EXPECT_THAT(gone.err, HasSubstr("NotFound"));
}

TEST_F(KubectlTest, DeleteNamespaceTerminatesItsContents) {
  ASSERT_EQ(sim_.kubectl("create namespace doomed").code, 0);
  ASSERT_EQ(sim_.kubectl("create configmap c -n doomed --from-literal=a=b").code, 0);
  auto d = sim_.kubectl("delete namespace doomed --timeout=20s");
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(d.out, "namespace \"doomed\" deleted\n");
  auto get = sim_.kubectl("get namespace doomed");
  EXPECT_EQ(get.code, 1);
  EXPECT_THAT(get.err, HasSubstr("namespaces \"doomed\" not found"));
  auto lines = sim_.audit_lines();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("\"verb\":\"delete\",\"object\":\"v1|ConfigMap|doomed|c\"") != std::string::npos;
  }));
}

TEST(KubectlTransportTest, PlainHttp) {
  SimProcess sim({"--insecure-http"});
  ASSERT_TRUE(sim.running());
  EXPECT_EQ(sim.url().substr(0, 7), "http://");
  auto r = sim.kubectl("get namespaces -o name");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("namespace/kube-system"));
}

TEST(KubectlTransportTest, WrongTokenIsUnauthorized) {
  SimProcess sim;
  auto r = sim.kubectl("get namespaces --token wrong");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: You must be logged in to the server"));
}

}  // namespace
}  // namespace planter::testing
