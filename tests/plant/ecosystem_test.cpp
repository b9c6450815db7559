// Seeds as people already write them (docs/annotations.md, "Other tools' conventions"): a kpt
// package, `helm template` output with hooks, a Kustomize overlay and an Argo CD application with
// sync waves, each planted on the simulated fleet with the sim's audit log as the judge of the
// order, and the plan naming the rule behind each requirement.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const fs::path kData = PLANTER_TEST_DATA;

// A folder of the test's own, removed at the end.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : dir_(fs::temp_directory_path() / fmt::format("planter-{}-{}", name, getpid())) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  fs::path operator/(const std::string& f) const { return dir_ / f; }

 private:
  fs::path dir_;
};

// The audit log of a plant, read as a sequence of events on the management cluster.
class Audit {
 public:
  explicit Audit(const fs::path& path) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
    entries_ = parse_audit(lines_);
  }
  const std::vector<std::string>& lines() const { return lines_; }

  // The line of the first write of `key` ("group|Kind|ns|name"), if any.
  std::optional<size_t> written(const std::string& key) const {
    for (const AuditEntry& e : entries_)
      if (e.object == key && (e.verb == "create" || e.verb == "patch" || e.verb == "apply"))
        return e.index;
    return std::nullopt;
  }
  // The line where the sim said `key` became `what` (available, complete, ...).
  std::optional<size_t> became(const std::string& key, const std::string& what) const {
    for (const AuditEntry& e : entries_)
      if (e.object == key && e.what == what) return e.index;
    return std::nullopt;
  }

 private:
  std::vector<std::string> lines_;
  std::vector<AuditEntry> entries_;
};

// Each event happened, in this order.
void expect_sequence(const std::vector<std::pair<std::string, std::optional<size_t>>>& events) {
  std::optional<size_t> last;
  std::string last_name;
  for (const auto& [name, at] : events) {
    ASSERT_TRUE(at) << name << " never happened";
    if (last) {
      EXPECT_LT(*last, *at) << last_name << " should come before " << name;
    }
    last = at;
    last_name = name;
  }
}

void expect_plan_order(const std::string& plan_args, const Audit& audit, size_t units) {
  CommandResult plan = planter("plan -o json " + plan_args);
  ASSERT_EQ(plan.code, 0) << plan.err;
  OrderCheck check =
      check_plant_order(json::parse(plan.out).as_object(), parse_audit(audit.lines()));
  EXPECT_EQ(check.units_written, units);
  EXPECT_THAT(check.violations, IsEmpty());
}

TEST(EcosystemTest, AKptPackagePlantsInDependsOnOrderWithoutItsLocalConfig) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path pkg = kData / "kpt/shop";
  CommandResult plan = planter("plan -o wide " + q(pkg));
  ASSERT_EQ(plan.code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("StatefulSet/shop/db healthy (depends-on)"));
  EXPECT_THAT(plan.out,
              HasSubstr("Service/shop/api jsonpath={.spec.clusterIP} (apply-time-mutation)"));
  EXPECT_THAT(plan.out, HasSubstr("set aside (2: read, never declared):"));
  EXPECT_THAT(plan.out, HasSubstr("Kptfile.kpt.dev shop"));
  EXPECT_THAT(plan.err, HasSubstr("run `kpt fn render` on the package first"));

  CommandResult r = planter("plant " + q(pkg) + " --kubeconfig " + q(sim.kubeconfig()));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 8 units"));
  EXPECT_THAT(r.out, HasSubstr("not declared: ConfigMap/set-labels"));
  Audit audit(sim.audit_log());
  EXPECT_FALSE(audit.written("|ConfigMap|default|set-labels"));
  EXPECT_FALSE(audit.written("kpt.dev|Kptfile||shop"));
  expect_sequence({{"db available", audit.became("apps|StatefulSet|shop|db", "available")},
                   {"api written", audit.written("apps|Deployment|shop|api")},
                   {"api available", audit.became("apps|Deployment|shop|api", "available")},
                   {"sessions written", audit.written("shop.example.org|Cache|shop|sessions")},
                   {"web written", audit.written("apps|Deployment|shop|web")}});
  expect_plan_order(q(pkg), audit, 8);

  // Apply-time mutation: the Service's cluster IP and port, copied in place of the tokens.
  std::string ip = sim.kubectl("get service api -n shop -o jsonpath={.spec.clusterIP}").out;
  ASSERT_FALSE(ip.empty());
  EXPECT_EQ(sim.kubectl("get configmap web-config -n shop -o jsonpath={.data.API_URL}").out,
            "http://" + ip + ":8080/v1");
  EXPECT_EQ(sim.kubectl("get configmap web-config -n shop -o jsonpath={.data.API_PORT}").out,
            "8080");
}

// The source of an apply-time mutation can be on another cluster than its target, which
// cli-utils cannot do: here the workload cluster's own Cluster object on the management cluster.
TEST(EcosystemTest, ApplyTimeMutationCopiesAFieldAcrossClusters) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "edge.yaml";
  std::ofstream(seed) << R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge1, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: whoami
  namespace: default
  annotations:
    planter.nephio.org/cluster: edge1
    config.kubernetes.io/apply-time-mutation: |
      - sourceRef: {group: planter.nephio.org, kind: Cluster, name: edge1, namespace: default}
        sourcePath: $.status.context
        targetPath: $.data.context
data: {context: unknown}
)";
  CommandResult plan = planter("plan -o wide " + q(seed));
  ASSERT_EQ(plan.code, 0) << plan.err;
  // One requirement per object and cluster: the workload cluster's readiness stands for it.
  EXPECT_THAT(plan.out, HasSubstr("cluster edge1 ready (cluster-ready)"));
  CommandResult r = planter("plant " + q(seed) + " --kubeconfig " + q(sim.kubeconfig()));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(sim.kubectl("--context edge1 get configmap whoami -n default "
                        "-o jsonpath={.data.context}")
                .out,
            "edge1-admin@edge1");

  // What planter cannot follow is bad input before anything is written.
  std::ofstream(seed) << R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: broken
  namespace: default
  annotations:
    config.kubernetes.io/apply-time-mutation: |
      - sourceRef: {kind: Secret, name: missing}
        sourcePath: $.data.key
        targetPath: $.data.key
        token: ${key}
data: {key: none}
)";
  r = planter("plant " + q(seed) + " --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("substitution 1: the token \"${key}\" is not in the string at "
                               "targetPath {.data.key}"));
}

TEST(EcosystemTest, HelmTemplateWithHooksPlantsInHelmsInstallOrder) {
  Scratch tmp("helm");
  std::string helm_env = fmt::format(
      "HELM_CACHE_HOME={0}/cache HELM_CONFIG_HOME={0}/config "
      "HELM_DATA_HOME={0}/data ",
      (tmp / "helm").string());
  CommandResult rendered = run_shell(helm_env + helm_binary() + " template demo " +
                                     q(kData / "charts/hooks") + " > " + q(tmp / "demo.yaml"));
  ASSERT_EQ(rendered.code, 0) << rendered.err;
  std::string seed = q(tmp / "demo.yaml") + " -n shop --create-namespace";

  CommandResult plan = planter("plan -o wide " + seed);
  ASSERT_EQ(plan.code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("Job/shop/demo-migrate condition=Complete (helm-hooks)"));
  EXPECT_THAT(plan.out, HasSubstr("Pod demo-test-connection"));

  CommandResult r = planter("plant --sim " + seed + " --sim-audit-log " + q(tmp / "audit"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 8 units"));
  EXPECT_THAT(r.out, HasSubstr("not declared: Pod/demo-test-connection"));
  Audit audit(tmp / "audit");
  // Hooks by weight, then name; each Job complete before the next hook; the release after the
  // last pre-install hook; the post-install hook after the release.
  expect_sequence(
      {{"schema", audit.written("|ConfigMap|shop|demo-schema")},
       {"migrate", audit.written("batch|Job|shop|demo-migrate")},
       {"migrate complete", audit.became("batch|Job|shop|demo-migrate", "complete")},
       {"seed-data", audit.written("batch|Job|shop|demo-seed-data")},
       {"seed-data complete", audit.became("batch|Job|shop|demo-seed-data", "complete")},
       {"deployment", audit.written("apps|Deployment|shop|demo")},
       {"notify", audit.written("batch|Job|shop|demo-notify")}});
  auto seed_done = audit.became("batch|Job|shop|demo-seed-data", "complete");
  for (const char* key : {"|ConfigMap|shop|demo-config", "|Service|shop|demo"}) {
    ASSERT_TRUE(audit.written(key)) << key;
    EXPECT_LT(*seed_done, *audit.written(key)) << key;
    EXPECT_LT(*audit.written(key), *audit.written("batch|Job|shop|demo-notify")) << key;
  }
  EXPECT_FALSE(audit.written("|Pod|shop|demo-test-connection"));
  EXPECT_FALSE(audit.written("batch|Job|shop|demo-backup"));
  expect_plan_order(seed, audit, 8);
}

TEST(EcosystemTest, AKustomizeOverlayIsBuiltWithMinusK) {
  Scratch tmp("kustomize");
  // kubectl kustomize builds it (the kubectl of `make clients` first in PATH).
  std::string path = "PATH=" + fs::path(kubectl_binary()).parent_path().string() + ":$PATH ";
  fs::path overlay = kData / "kustomize/overlays/prod";
  CommandResult r = run_shell(path + PLANTER_BINARY + " plant --sim -k " + q(overlay) +
                              " --sim-audit-log " + q(tmp / "audit"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 4 units"));
  Audit audit(tmp / "audit");
  EXPECT_TRUE(audit.written("apps|Deployment|hello-prod|prod-hello"));
  EXPECT_TRUE(audit.written("|Service|hello-prod|prod-hello"));
  expect_sequence({{"namespace", audit.written("|Namespace||hello-prod")},
                   {"deployment", audit.written("apps|Deployment|hello-prod|prod-hello")}});

  // A seed folder: each kustomization found in it is built, its files not read one by one
  // (here the base and the overlay, two releases of hello).
  CommandResult plan = run_shell(path + PLANTER_BINARY + " plan " + q(kData / "kustomize"));
  ASSERT_EQ(plan.code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("default/hello "));
  EXPECT_THAT(plan.out, HasSubstr("hello-prod/prod-hello "));
  EXPECT_THAT(plan.out, HasSubstr("6 units of 6 objects"));

  // Without kustomize or kubectl, the error says what to install.
  CommandResult none =
      run_shell("PATH=/nonexistent " + std::string(PLANTER_BINARY) + " plan -k " + q(overlay));
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, HasSubstr("neither kustomize nor kubectl is in PATH"));
  CommandResult not_one = planter("plan -k " + q(kData / "kustomize"));
  EXPECT_EQ(not_one.code, 2);
  EXPECT_THAT(not_one.err, HasSubstr("no kustomization.yaml"));
}

TEST(EcosystemTest, AKustomizationsRemoteResourcesAreFetchedOnlyWhenAllowed) {
  Scratch tmp("kustomize-remote");
  fs::create_directories(tmp / "served");
  std::ofstream(tmp / "served/remote.yaml")
      << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched, namespace: default}\n";
  // A web server on loopback serves the remote resource.
  ServerProcess server(file_server_command(tmp / "served"));
  int port = server.port();
  ASSERT_GT(port, 0);
  fs::create_directories(tmp / "app");
  std::ofstream(tmp / "app/kustomization.yaml")
      << fmt::format("resources:\n- http://127.0.0.1:{}/remote.yaml\n", port);
  std::string path = "PATH=" + fs::path(kubectl_binary()).parent_path().string() + ":$PATH ";
  CommandResult off = run_shell(path + PLANTER_BINARY + " plan -k " + q(tmp / "app"));
  CommandResult on =
      run_shell(path + PLANTER_BINARY + " plan --allow-remote-bases -k " + q(tmp / "app"));
  EXPECT_EQ(off.code, 2) << off.out << off.err;
  EXPECT_THAT(off.err, HasSubstr("building its kustomization failed"));
  EXPECT_THAT(off.err, HasSubstr("pass --allow-remote-bases to fetch them"));
  EXPECT_EQ(on.code, 0) << on.err;
  EXPECT_THAT(on.out, HasSubstr("default/fetched"));
}

TEST(EcosystemTest, AnArgoCdApplicationPlantsWaveByWave) {
  Scratch tmp("argocd");
  fs::path app = kData / "argocd/guestbook";
  CommandResult plan = planter("plan -o wide " + q(app));
  ASSERT_EQ(plan.code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("Deployment/guestbook/redis healthy (sync-waves)"));

  CommandResult r = planter("plant --sim " + q(app) + " --sim-audit-log " + q(tmp / "audit"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 7 units"));
  Audit audit(tmp / "audit");
  expect_sequence(
      {{"PreSync job", audit.written("batch|Job|guestbook|db-migrate")},
       {"PreSync job complete", audit.became("batch|Job|guestbook|db-migrate", "complete")},
       {"wave -1", audit.written("|ConfigMap|guestbook|guestbook-config")},
       {"wave 0", audit.written("apps|Deployment|guestbook|redis")},
       {"wave 0 healthy", audit.became("apps|Deployment|guestbook|redis", "available")},
       {"wave 1", audit.written("apps|Deployment|guestbook|frontend")},
       {"wave 1 healthy", audit.became("apps|Deployment|guestbook|frontend", "available")},
       {"PostSync job", audit.written("batch|Job|guestbook|smoke-test")}});
  EXPECT_FALSE(audit.written("batch|Job|guestbook|notify-failure"));
  expect_plan_order(q(app), audit, 7);
}

TEST(EcosystemTest, UprootLeavesWhatHelmKeeps) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "release.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: data, namespace: "
                         "default, annotations: {helm.sh/resource-policy: keep}}\n---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cache, namespace: "
                         "default}\n";
  std::string kubeconfig = " --kubeconfig " + q(sim.kubeconfig());
  ASSERT_EQ(planter("plant " + q(seed) + kubeconfig).code, 0);
  CommandResult r = planter("uproot -v " + q(seed) + kubeconfig);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("helm.sh/resource-policy: keep: left alone"));
  EXPECT_EQ(sim.kubectl("get configmap data -n default").code, 0);
  EXPECT_TRUE(is_not_found(sim.kubectl("get configmap cache -n default")));
  // Without Helm's convention, uproot deletes it like anything else the seed planted.
  r = planter("uproot --ignore-annotations helm " + q(seed) + kubeconfig);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(is_not_found(sim.kubectl("get configmap data -n default")));
}

// Argo CD's Prune=false and kapp's orphan strategy keep an object the seed no longer holds from
// planting's prune, as Helm's keep does; Argo CD's Delete=false keeps one from uproot only.
TEST(EcosystemTest, PruneLeavesWhatArgoCdAndKappKeep) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "app.yaml";
  auto config_map = [](const std::string& name, const std::string& annotations) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name +
           ", namespace: default, annotations: {" + annotations + "}}\n---\n";
  };
  std::string kubeconfig = " --kubeconfig " + q(sim.kubeconfig()) + " --seed-name app";
  std::ofstream(seed) << config_map("argo", "argocd.argoproj.io/sync-options: 'Prune=false'")
                      << config_map("kapp", "kapp.k14s.io/delete-strategy: orphan")
                      << config_map("nodelete",
                                    "argocd.argoproj.io/sync-options: "
                                    "'ServerSideApply=true,Delete=false'")
                      << config_map("plain", "") << config_map("stays", "");
  ASSERT_EQ(planter("plant " + q(seed) + kubeconfig).code, 0);
  std::ofstream(seed, std::ios::trunc) << config_map("stays", "");
  CommandResult r = planter("plant " + q(seed) + kubeconfig);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("argocd.argoproj.io/sync-options: Prune=false: left alone"));
  EXPECT_THAT(r.out, HasSubstr("kapp.k14s.io/delete-strategy: orphan: left alone"));
  EXPECT_EQ(sim.kubectl("get configmap argo -n default").code, 0);
  EXPECT_EQ(sim.kubectl("get configmap kapp -n default").code, 0);
  EXPECT_TRUE(is_not_found(sim.kubectl("get configmap plain -n default")));
  // Delete=false is about deleting the app, not pruning: the prune deletes it.
  EXPECT_TRUE(is_not_found(sim.kubectl("get configmap nodelete -n default")));
  // An uproot leaves what Delete=false keeps.
  std::ofstream(seed, std::ios::trunc)
      << config_map("stays", "argocd.argoproj.io/sync-options: Delete=false");
  ASSERT_EQ(planter("plant " + q(seed) + kubeconfig).code, 0);
  r = planter("uproot -v " + q(seed) + kubeconfig);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("Delete=false: left alone, as Argo CD's app deletion does"));
  EXPECT_EQ(sim.kubectl("get configmap stays -n default").code, 0);
}

}  // namespace
}  // namespace planter::testing
