// planter keeps sight of what it planted on the clusters a seed creates, as on the management
// cluster: `diff` diffs there, `replant` prunes there, `uproot` leaves nothing anywhere, fleets of
// fleets included. Judged by kubectl on each cluster and the sim's audit log.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plant/audit_order.h"
#include "plant/plant_support.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// Writes by planter (the admin) on a cluster, from the audit log.
size_t writes_on(const SimProcess& sim, const std::string& cluster) {
  size_t n = 0;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    n += !e.verb.empty() && e.user == "admin" && e.cluster == cluster;
  return n;
}

bool deleted(const SimProcess& sim, const std::string& cluster, const std::string& key) {
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    if (e.verb == "delete" && e.cluster == cluster && e.object == key) return true;
  return false;
}

// hello-world planted, then edited as a user would (the Deployment's replicas changed, the
// Service removed), in a folder of the same name so that the seed keeps its name.
TEST(EveryClusterTest, TheClusterASeedCreatedIsDiffedPrunedAndUprooted) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string kubeconfig = "--kubeconfig " + q(sim.kubeconfig());
  fs::path original = kSource / "examples/hello-world/seed.yaml";
  CommandResult planted = planter("plant " + kubeconfig + " " + q(original) + " --timeout 60");
  ASSERT_EQ(planted.code, 0) << planted.out << planted.err;
  ASSERT_EQ(sim.kubectl("--context edge1 get service cnf -n cnf").code, 0);
  // Each unit's line says what its apply did, as kubectl does.
  EXPECT_THAT(planted.out, HasSubstr("edge1  apps/v1 Deployment cnf/cnf: created"));
  EXPECT_THAT(planted.out, HasSubstr(": 10 created\n"));

  CommandResult same = planter("diff " + kubeconfig + " " + q(original));
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_EQ(same.out, "");

  fs::path edited = sim.dir() / "hello-world" / "seed.yaml";
  fs::create_directories(edited.parent_path());
  std::string text = read_file(original);
  std::string edited_text;
  for (size_t at = 0; at < text.size();) {
    size_t next = text.find("\n---", at + 1);
    std::string doc = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    if (doc.find("\nkind: Service\n") == std::string::npos) edited_text += doc;
    at = next == std::string::npos ? text.size() : next;
  }
  ASSERT_NE(edited_text.find("replicas: 1"), std::string::npos);
  edited_text.replace(edited_text.find("replicas: 1"), 11, "replicas: 2");
  std::ofstream(edited) << edited_text;

  size_t before = writes_on(sim, "edge1") + writes_on(sim, "management");
  CommandResult diff = planter("diff " + kubeconfig + " " + q(edited));
  EXPECT_EQ(diff.code, 1) << diff.out << diff.err;
  EXPECT_THAT(diff.out, HasSubstr("edge1/apps.v1.Deployment.cnf.cnf"));
  EXPECT_THAT(diff.out, HasSubstr("-  replicas: 1"));
  EXPECT_THAT(diff.out, HasSubstr("+  replicas: 2"));
  EXPECT_THAT(diff.out, HasSubstr("to be pruned (the seed no longer holds them):\n"
                                  "  v1 Service cnf/cnf on edge1\n"));
  EXPECT_THAT(diff.out, Not(HasSubstr("not diffed now")));
  // The Cluster object (a custom resource the sim's controller writes the status of) is the same
  // object: its keys are compared in one order.
  EXPECT_THAT(diff.out, Not(HasSubstr("Cluster.network-service.edge1")));
  EXPECT_EQ(writes_on(sim, "edge1") + writes_on(sim, "management"), before);

  auto namespace_version = [&] {
    return sim
        .kubectl("--context edge1 get namespace cnf -o " +
                 q("jsonpath={.metadata.resourceVersion}"))
        .out;
  };
  std::string namespace_before = namespace_version();
  CommandResult replanted = planter("replant " + kubeconfig + " " + q(edited) + " --timeout 60");
  EXPECT_EQ(replanted.code, 0) << replanted.out << replanted.err;
  // The Deployment's replicas changed; the rest is as it was, and the server wrote none of it.
  EXPECT_THAT(replanted.out, HasSubstr("edge1  apps/v1 Deployment cnf/cnf: configured"));
  EXPECT_THAT(replanted.out, HasSubstr("edge1  v1 Namespace cnf: unchanged"));
  EXPECT_THAT(replanted.out, HasSubstr(": 1 configured, 8 unchanged\n"));
  EXPECT_EQ(namespace_version(), namespace_before);
  // Without the preflight planter has not seen the objects before: it says what kubectl
  // --server-side says rather than guess.
  CommandResult blind =
      planter("replant --preflight=false " + kubeconfig + " " + q(edited) + " --timeout 60");
  EXPECT_EQ(blind.code, 0) << blind.out << blind.err;
  EXPECT_THAT(blind.out, HasSubstr("edge1  v1 Namespace cnf: serverside-applied"));
  EXPECT_THAT(blind.out, HasSubstr(": 9 serverside-applied\n"));
  EXPECT_THAT(replanted.out, HasSubstr("pruned: v1 Service cnf/cnf on edge1: deleted"));
  EXPECT_TRUE(is_not_found(sim.kubectl("--context edge1 get service cnf -n cnf")));
  EXPECT_TRUE(deleted(sim, "edge1", "|Service|cnf|cnf"));
  EXPECT_EQ(
      sim.kubectl("--context edge1 get deployment cnf -n cnf -o jsonpath={.spec.replicas}").out,
      "2");
  // edge1's inventory no longer lists the Service.
  CommandResult inventory = sim.kubectl(
      "--context edge1 get configmap planter-inventory-hello-world -n kube-system "
      "-o jsonpath={.data.objects}");
  EXPECT_EQ(inventory.code, 0) << inventory.err;
  EXPECT_THAT(inventory.out, HasSubstr("apps/v1 Deployment cnf cnf"));
  EXPECT_THAT(inventory.out, Not(HasSubstr("v1 Service cnf cnf")));

  CommandResult uprooted = planter("uproot " + kubeconfig + " " + q(edited) + " --timeout 60");
  EXPECT_EQ(uprooted.code, 0) << uprooted.out << uprooted.err;
  EXPECT_THAT(uprooted.err, Not(HasSubstr("warning")));
  EXPECT_EQ(sim.kubectl("get clusters.planter.nephio.org -A -o name").out, "");
  EXPECT_TRUE(
      is_not_found(sim.kubectl("get configmap planter-inventory-hello-world -n kube-system")));
  EXPECT_TRUE(deleted(sim, "management", "|ConfigMap|kube-system|planter-inventory-hello-world"));
}

// A first run that stops after writing on a cluster it just created has left the inventory there
// (written before the first unit on it), so the next run prunes what the seed dropped.
TEST(EveryClusterTest, AnInterruptedFirstRunLeavesTheInventoryOnTheClusterItCreated) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  auto config_map = [](const std::string& name, const std::string& more) {
    return "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations:\n    planter.nephio.org/cluster: edge1\n" + more;
  };
  std::string cluster =
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
      "metadata: {name: edge1, namespace: default}\nspec: {}\n";
  // `waits` waits for a Secret nobody makes: the run ends at its --timeout.
  std::string waits = config_map(
      "waits", "    planter.nephio.org/external-dependencies: v1|Secret|default|never\n");
  fs::path seed = sim.dir() / "edge" / "seed.yaml";
  fs::create_directories(seed.parent_path());
  std::ofstream(seed) << cluster << config_map("dropped", "") << waits;
  std::string kubeconfig = "--kubeconfig " + q(sim.kubeconfig()) + " ";
  CommandResult first = planter("plant " + kubeconfig + q(seed) + " --timeout 8");
  ASSERT_EQ(first.code, 1) << first.out << first.err;
  ASSERT_EQ(sim.kubectl("--context edge1 get configmap dropped").code, 0) << first.out;
  CommandResult inventory =
      sim.kubectl("--context edge1 get configmap planter-inventory-edge -n kube-system -o " +
                  q("jsonpath={.data.objects}"));
  ASSERT_EQ(inventory.code, 0) << inventory.err << first.out;
  EXPECT_THAT(inventory.out, HasSubstr("v1 ConfigMap default dropped"));
  EXPECT_THAT(inventory.out, HasSubstr("v1 ConfigMap default waits"));

  std::ofstream(seed) << cluster << config_map("waits", "");
  CommandResult second = planter("replant " + kubeconfig + q(seed) + " --timeout 60");
  EXPECT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_THAT(second.out, HasSubstr("pruned: v1 ConfigMap default/dropped on edge1: deleted"));
  EXPECT_TRUE(is_not_found(sim.kubectl("--context edge1 get configmap dropped")));
}

// A hub creates a regional cluster, which creates a far-edge cluster; a ConfigMap the seed drops
// from the far edge is pruned there, two levels down.
TEST(EveryClusterTest, AFleetOfFleetsIsPrunedOnItsEdge) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string crd = cluster_crd_on_regional();
  auto config_map = [](const std::string& name, const std::string& cluster) {
    return "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {planter.nephio.org/cluster: " + cluster + "}\n";
  };
  std::string fleet =
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
      "metadata: {name: regional, namespace: default}\nspec: {}\n---\n" +
      crd +
      "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata:\n"
      "  name: faredge\n  namespace: default\n"
      "  annotations: {planter.nephio.org/cluster: regional}\nspec: {}\n" +
      config_map("kept", "faredge");
  fs::path seed = sim.dir() / "fleet" / "seed.yaml";
  fs::create_directories(seed.parent_path());
  std::ofstream(seed) << fleet << config_map("dropped", "faredge");
  std::string args = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60";
  CommandResult planted = planter("plant " + args);
  ASSERT_EQ(planted.code, 0) << planted.out << planted.err;
  ASSERT_EQ(sim.kubectl("--context faredge get configmap dropped -n default").code, 0);

  std::ofstream(seed) << fleet;
  CommandResult diff = planter("diff " + args);
  EXPECT_EQ(diff.code, 1) << diff.out << diff.err;
  EXPECT_THAT(diff.out, HasSubstr("  v1 ConfigMap default/dropped on faredge\n"));
  CommandResult replanted = planter("replant " + args);
  EXPECT_EQ(replanted.code, 0) << replanted.out << replanted.err;
  EXPECT_TRUE(is_not_found(sim.kubectl("--context faredge get configmap dropped -n default")));
  EXPECT_EQ(sim.kubectl("--context faredge get configmap kept -n default").code, 0);
  EXPECT_TRUE(deleted(sim, "faredge", "|ConfigMap|default|dropped"));
}

// A fleet whose edge1 exists already (`planter sim --clusters 3`): hello-world's own Cluster edge1
// (in another namespace) can never be provisioned. The preflight says so in the user's words,
// with nothing declared; planted anyway (--preflight=false), its units fail naming the Cluster
// that holds the name, and uproot deletes the Cluster and finishes, leaving the other edge1 and
// everything on it alone.
TEST(EveryClusterTest, ACreatedClusterWhoseNameIsTakenIsRefusedAndUprootFinishes) {
  SimProcess sim({"--clusters", "3"});
  ASSERT_TRUE(sim.running());
  std::string args = "--kubeconfig " + q(sim.kubeconfig()) + " " +
                     q(kSource / "examples/hello-world/seed.yaml") + " --timeout 20";
  CommandResult refused = planter("plant " + args);
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_THAT(refused.err,
              HasSubstr("planter.nephio.org/v1alpha1 Cluster fleet/edge1: cluster SELF: the "
                        "workload cluster name \"edge1\" is taken: Cluster default/edge1 "
                        "(planter.nephio.org/v1alpha1) already holds it"));
  EXPECT_THAT(refused.err, HasSubstr("planter.nephio.org/cluster: edge1"));
  EXPECT_EQ(writes_on(sim, "management") + writes_on(sim, "edge1"), 0u);

  CommandResult planted = planter("plant --preflight=false " + args);
  EXPECT_EQ(planted.code, 1) << planted.out << planted.err;
  EXPECT_THAT(planted.out, HasSubstr("NameTaken: a workload cluster named \"edge1\" is already "
                                     "provisioned for Cluster default/edge1 (planter.nephio.org)"));
  EXPECT_EQ(writes_on(sim, "edge1"), 0u);

  CommandResult uprooted = planter("uproot " + args);
  EXPECT_EQ(uprooted.code, 0) << uprooted.out << uprooted.err;
  EXPECT_THAT(uprooted.out, HasSubstr("planter.nephio.org/v1alpha1 Cluster fleet/edge1: deleted"));
  EXPECT_TRUE(is_not_found(sim.kubectl("get clusters.planter.nephio.org edge1 -n fleet")));
  EXPECT_EQ(sim.kubectl("get clusters.planter.nephio.org edge1 -n default -o name").out,
            "cluster.planter.nephio.org/edge1\n");
  EXPECT_EQ(writes_on(sim, "edge1"), 0u);
}

}  // namespace
}  // namespace planter::testing
