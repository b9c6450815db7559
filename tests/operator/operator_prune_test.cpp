// The operator keeps sight of what a Seed planted as the CLI does (plant/seed_run.h): an
// inventory on every cluster it plants on, the cluster the Seed created included; a new
// generation that drops an object prunes it there; deleting the Seed leaves nothing anywhere.
#include "operator/operator_support.h"

namespace planter::testing {
namespace {

// hello-world, with the Service left out when `without_service`, as a Seed's inline source.
std::string hello_world_inline(bool without_service) {
  std::string text = read_file(kSource / "examples/hello-world/seed.yaml");
  std::string kept;
  for (size_t at = 0; at < text.size();) {
    size_t next = text.find("\n---", at + 1);
    std::string doc = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    if (!without_service || doc.find("\nkind: Service\n") == std::string::npos) kept += doc;
    at = next == std::string::npos ? text.size() : next;
  }
  std::string indented = "    inline: |\n";
  for (size_t at = 0; at < kept.size();) {
    size_t end = kept.find('\n', at);
    std::string line = kept.substr(at, end == std::string::npos ? std::string::npos : end - at);
    indented += line.empty() ? "\n" : "      " + line + "\n";
    at = end == std::string::npos ? kept.size() : end + 1;
  }
  return indented;
}

TEST(OperatorTest, ANewGenerationThatDropsAnObjectPrunesItOnTheClusterTheSeedCreated) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(
      sim, seed_object("default", "hello", hello_world_inline(false), "  uprootOnDelete: true\n"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "default", "hello", "Planted"); }, 60s))
      << op.log();
  ASSERT_EQ(sim.kubectl("--context edge1 get service cnf -n cnf").code, 0);
  std::string inventories =
      "get configmaps -n kube-system -l planter.nephio.org/inventory -o " +
      q("jsonpath={.items[*].metadata.labels.planter\\.nephio\\.org/inventory}");
  EXPECT_EQ(sim.kubectl("--context edge1 " + inventories).out, "default.hello");
  EXPECT_EQ(sim.kubectl(inventories).out, "default.hello");

  apply_yaml(sim,
             seed_object("default", "hello", hello_world_inline(true), "  uprootOnDelete: true\n"));
  ASSERT_TRUE(eventually(
      [&] {
        return seed_field(sim, "default", "hello", ".status.observedGeneration") == "2" &&
               phase_is(sim, "default", "hello", "Planted");
      },
      60s))
      << op.log();
  EXPECT_TRUE(is_not_found(sim.kubectl("--context edge1 get service cnf -n cnf")));
  EXPECT_EQ(sim.kubectl("--context edge1 get deployment cnf -n cnf -o name").out,
            "deployment.apps/cnf\n");
  EXPECT_THAT(sim.kubectl("describe seed hello").out,
              HasSubstr("pruned 1 object(s) the Seed no longer holds"));
  // Deleted as the Seed's service account, as everything it writes.
  bool pruned_as_the_seed = false;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    pruned_as_the_seed = pruned_as_the_seed || (e.verb == "delete" && e.cluster == "edge1" &&
                                                e.object == "|Service|cnf|cnf" &&
                                                e.user == "system:serviceaccount:default:default");
  EXPECT_TRUE(pruned_as_the_seed);

  ASSERT_EQ(sim.kubectl("delete seed hello --wait=false").code, 0);
  ASSERT_TRUE(eventually([&] { return sim.kubectl("get seed hello").code != 0; }, 90s)) << op.log();
  EXPECT_EQ(sim.kubectl(inventories).out, "");
  EXPECT_EQ(sim.kubectl("get clusters.planter.nephio.org -A -o name").out, "");
}

std::string shop_inline(const std::string& name, const std::string& cpu) {
  return fmt::format(
      "    inline: |\n      apiVersion: v1\n      kind: Namespace\n      metadata: {{name: {0}}}\n"
      "      ---\n      apiVersion: apps/v1\n      kind: Deployment\n"
      "      metadata: {{name: {0}, namespace: {0}}}\n      spec:\n        replicas: 2\n"
      "        selector: {{matchLabels: {{app: {0}}}}}\n        template:\n"
      "          metadata: {{labels: {{app: {0}}}}}\n          spec:\n"
      "            containers: [{{name: c, image: nginx:1.27, resources: {{requests: {{cpu: "
      "\"{1}\"}}}}}}]\n",
      name, cpu);
}

// spec.wait: a Seed is Ready once declared and Healthy once its objects are (kstatus), which
// `kubectl wait --for=condition=Healthy` waits for; one whose Deployment never fits says which
// object is not healthy and why.
TEST(OperatorTest, WithSpecWaitASeedIsHealthyOnlyOnceItsObjectsAre) {
  SimProcess sim({"--workload-delay", "2000"});
  ASSERT_TRUE(sim.running());
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("default", "web", shop_inline("web", "100m"), "  wait: true\n"));
  CommandResult waited = sim.kubectl("wait --for=condition=Healthy seed/web --timeout=60s");
  ASSERT_EQ(waited.code, 0) << waited.out << waited.err << op.log();
  CommandResult rollout = sim.kubectl("rollout status deployment/web -n web --timeout=1s");
  EXPECT_EQ(rollout.code, 0) << rollout.out << rollout.err;
  EXPECT_THAT(sim.kubectl("describe seed web").out, HasSubstr("all 2 objects are healthy"));

  apply_yaml(sim, seed_object("default", "big", shop_inline("big", "1000"), "  wait: true\n"));
  std::string healthy = ".status.conditions[?(@.type==\"Healthy\")].message";
  ASSERT_TRUE(eventually(
      [&] {
        return seed_field(sim, "default", "big", healthy).find("big/big on SELF") !=
               std::string::npos;
      },
      60s))
      << op.log();
  EXPECT_THAT(seed_field(sim, "default", "big", healthy),
              HasSubstr("not yet: apps/v1 Deployment big/big on SELF: 0 of 2 updated replicas "
                        "available"));
  EXPECT_EQ(seed_field(sim, "default", "big", ".status.conditions[?(@.type==\"Ready\")].status"),
            "True");
}

}  // namespace
}  // namespace planter::testing
