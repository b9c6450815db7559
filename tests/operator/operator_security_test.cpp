// The operator as a tenant meets it: a Seed writes only what its service account may, on every
// cluster; the shipped RBAC (deploy/) is enough and no more; a hostile Seed writes nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "operator/operator_support.h"

namespace planter::testing {
namespace {

TEST(OperatorTest, ASeedCannotCreateWhatItsServiceAccountMayNot) {
  SimProcess sim({"--authorization", "RBAC"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  apply_yaml(sim, role_for("team", "deployer", kConfigMapRules));
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  std::string seed = R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: settings}
      data: {mode: fast}
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: {name: team-escalation}
      rules:
      - apiGroups: ["*"]
        resources: ["*"]
        verbs: ["*"])";
  apply_yaml(sim, seed_object("team", "app", seed, "  serviceAccountName: deployer\n"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Failed"); }, 60s)) << op.log();
  std::string message =
      seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].message");
  EXPECT_THAT(message, HasSubstr("is forbidden: User \"system:serviceaccount:team:deployer\""));
  EXPECT_THAT(message, HasSubstr("clusterroles"));
  EXPECT_THAT(sim.kubectl("get clusterrole team-escalation").err, HasSubstr("NotFound"));
  // Its preflight (a server-side dry run as the service account) refused it before any write.
  EXPECT_THAT(message, HasSubstr("server-side dry run"));
  EXPECT_THAT(sim.kubectl("get configmap settings -n team").err, HasSubstr("NotFound"));
  EXPECT_THAT(sim.kubectl("get events -n team -o jsonpath='{.items[*].reason}'").out,
              HasSubstr("PreflightRefused"));
}

// On a workload cluster a Seed's objects are written as its service account too (impersonated
// with the cluster's admin kubeconfig), so the workload cluster's RBAC decides: what the platform
// team granted there is written, a Secret it did not grant is refused, by that cluster.
TEST(OperatorTest, ASeedWritesOnAWorkloadClusterOnlyWhatItsServiceAccountMayThere) {
  SimProcess sim({"--authorization", "RBAC", "--clusters", "1"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  apply_yaml(sim, role_for("team", "deployer", kConfigMapRules));
  // The platform team's setup: the Seed's identity may read edge1's kubeconfig here, and may
  // write ConfigMaps (only) in edge1's default namespace.
  ASSERT_EQ(sim.kubectl("create role read-edge1 -n default --verb get --resource secrets "
                        "--resource-name edge1-kubeconfig")
                .code,
            0);
  ASSERT_EQ(sim.kubectl("create rolebinding read-edge1 -n default --role read-edge1 "
                        "--serviceaccount team:deployer")
                .code,
            0);
  ASSERT_EQ(sim.kubectl("--context edge1 create role deployer -n default --verb get,create,patch "
                        "--resource configmaps")
                .code,
            0);
  ASSERT_EQ(sim.kubectl("--context edge1 create rolebinding deployer -n default --role deployer "
                        "--serviceaccount team:deployer")
                .code,
            0);
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("team", "app", R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: default
        annotations: {planter.nephio.org/cluster: edge1}
      ---
      apiVersion: v1
      kind: Secret
      metadata:
        name: token
        namespace: default
        annotations: {planter.nephio.org/cluster: edge1}
      stringData: {token: x})",
                              "  serviceAccountName: deployer\n"));
  // The preflight judges edge1's objects as the service account before anything is written: the
  // Secret is refused, and nothing is written there.
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Failed"); }, 60s)) << op.log();
  EXPECT_EQ(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].reason"),
            "PreflightRefused");
  EXPECT_THAT(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].message"),
              HasSubstr("secrets \"token\" is forbidden: User "
                        "\"system:serviceaccount:team:deployer\" cannot patch resource "
                        "\"secrets\""));
  auto written_on_edge1 = [&] {
    std::vector<AuditEntry> out;
    for (const AuditEntry& e : parse_audit(sim.audit_lines()))
      if (e.cluster == "edge1" && !e.verb.empty() &&
          e.object.find("|ConfigMap|kube-system|planter-inventory-") == std::string::npos &&
          e.user.starts_with("system:serviceaccount:team:"))
        out.push_back(e);
    return out;
  };
  EXPECT_TRUE(written_on_edge1().empty());
  EXPECT_THAT(sim.kubectl("--context edge1 get configmap settings").err, HasSubstr("NotFound"));
  EXPECT_THAT(sim.kubectl("--context edge1 get secret token").err, HasSubstr("NotFound"));

  // Without the Secret, the ConfigMap is written, as the service account, through the operator's
  // impersonation.
  apply_yaml(sim, seed_object("team", "app", R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: default
        annotations: {planter.nephio.org/cluster: edge1})",
                              "  serviceAccountName: deployer\n"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Planted"); }, 60s)) << op.log();
  EXPECT_EQ(sim.kubectl("--context edge1 get configmap settings -o name").out,
            "configmap/settings\n");
  std::vector<AuditEntry> writes = written_on_edge1();
  ASSERT_FALSE(writes.empty());
  for (const AuditEntry& e : writes) {
    EXPECT_EQ(e.object, "|ConfigMap|default|settings");
    EXPECT_EQ(e.user, "system:serviceaccount:team:deployer");
  }
}

// Admin objects (CRDs, by the built-in rules) are written as the operator itself only for Seeds
// in the --admin-namespaces; elsewhere the Seed's service account must be allowed to.
TEST(OperatorTest, AdminObjectsAreTheOperatorsOnlyInAdminNamespaces) {
  SimProcess sim({"--authorization", "RBAC"});
  ASSERT_TRUE(sim.running());
  for (std::string ns : {"platform", "team"}) {
    ASSERT_EQ(sim.kubectl("create namespace " + ns).code, 0);
    apply_yaml(sim, role_for(ns, "deployer", kConfigMapRules));
  }
  OperatorProcess op(sim.kubeconfig(), sim.dir(), {"--admin-namespaces", "platform,infra"});
  auto seed = [](const std::string& ns) {
    return fmt::format(R"(    inline: |
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {{name: gadgets.{0}.example.org}}
      spec:
        group: {0}.example.org
        scope: Namespaced
        names: {{plural: gadgets, kind: Gadget}}
        versions:
        - name: v1
          served: true
          storage: true
          schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata: {{name: settings}})",
                       ns);
  };
  apply_yaml(sim,
             seed_object("platform", "app", seed("platform"), "  serviceAccountName: deployer\n"));
  apply_yaml(sim, seed_object("team", "app", seed("team"), "  serviceAccountName: deployer\n"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "platform", "app", "Planted"); }, 60s))
      << sim.kubectl("get seed app -n platform -o yaml").out << op.log();
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Failed"); }, 60s)) << op.log();
  EXPECT_THAT(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].message"),
              HasSubstr("is forbidden: User \"system:serviceaccount:team:deployer\" cannot patch "
                        "resource \"customresourcedefinitions\""));
  EXPECT_THAT(sim.kubectl("get crd gadgets.team.example.org").err, HasSubstr("NotFound"));
  // Who wrote what: the CRD the operator as itself, the ConfigMap its service account.
  std::map<std::string, std::string> writer;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    if (!e.verb.empty()) writer.emplace(e.object, e.user);  // the first write: its create
  EXPECT_EQ(writer["apiextensions.k8s.io|CustomResourceDefinition||gadgets.platform.example.org"],
            "admin");
  EXPECT_EQ(writer["|ConfigMap|platform|settings"], "system:serviceaccount:platform:deployer");
  // The team's Seed was refused by its preflight (a dry run as its service account): nothing of
  // it was written.
  EXPECT_FALSE(writer.contains("|ConfigMap|team|settings"));
  EXPECT_EQ(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].reason"),
            "PreflightRefused");
}

// A workload cluster is reached with the kubeconfig its cluster object points at; the Seed's
// service account must be allowed to read that Secret, or any Seed could use any cluster whose
// credentials the operator can read.
TEST(OperatorTest, AWorkloadClusterNeedsTheRightToReadItsKubeconfig) {
  SimProcess sim({"--authorization", "RBAC", "--provision-delay", "300"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  apply_yaml(sim, role_for("team", "deployer",
                           "[{apiGroups: [planter.nephio.org], resources: [clusters], verbs: [get, "
                           "create, patch]}]"));
  // The workload cluster's kubeconfig identity writes there (its RBAC is not what is tested):
  // reading the kubeconfig is the Seed's right to have, whoever then writes.
  OperatorProcess op(sim.kubeconfig(), sim.dir(), {"--workload-identity", "kubeconfig"});
  std::string seed = R"(    inline: |
      apiVersion: planter.nephio.org/v1alpha1
      kind: Cluster
      metadata: {name: edge}
      spec: {nodes: [{count: 1}]}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: default
        annotations: {planter.nephio.org/cluster: edge})";
  apply_yaml(sim, seed_object("team", "app", seed, "  serviceAccountName: deployer\n"));
  std::string denied;
  ASSERT_TRUE(eventually(
      [&] {
        denied = seed_field(sim, "team", "app", ".status.notDeclared[0].waitingFor");
        return denied.find("may not read its kubeconfig") != std::string::npos;
      },
      60s))
      << sim.kubectl("get seed app -n team -o yaml").out << op.log();
  EXPECT_THAT(denied, HasSubstr("cluster edge ready: system:serviceaccount:team:deployer may not "
                                "read its kubeconfig (Secret team/edge-kubeconfig)"));
  EXPECT_TRUE(phase_is(sim, "team", "app", "Planting"));
  EXPECT_TRUE(is_not_found(sim.kubectl("--context edge get configmap settings -n default")));
  // Granted the right, it goes on by itself.
  apply_yaml(sim, R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-kubeconfigs, namespace: team}
rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-kubeconfigs, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-kubeconfigs}
subjects:
- {kind: ServiceAccount, name: deployer, namespace: team}
)");
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Planted"); }, 60s))
      << sim.kubectl("get seed app -n team -o yaml").out << op.log();
  EXPECT_EQ(sim.kubectl("--context edge get configmap settings -n default -o name").out,
            "configmap/settings\n");
}

// The operator as deploy/ ships it: its own ServiceAccount with deploy/rbac.yaml's ClusterRole, not
// an admin. A tenant's Seed plants as the tenant's service account (the audit log says who wrote
// and who impersonated), which only works if what the operator sends is what deploy/ grants.
TEST(OperatorTest, WithTheShippedRbacATenantsSeedPlantsAsItsServiceAccount) {
  fs::path tokens = fs::temp_directory_path() / fmt::format("planter-op-shipped-{}.csv", getpid());
  std::ofstream(tokens) << "operator-token,system:serviceaccount:planter-system:planter-operator,"
                           "1,\"system:serviceaccounts,system:serviceaccounts:planter-system\"\n";
  SimProcess sim({"--authorization", "RBAC", "--token-auth-file", tokens.string()});
  ASSERT_TRUE(sim.running());
  CommandResult deployed =
      sim.kubectl(fmt::format("apply -f {} -f {} -f {}", q(kSource / "deploy/namespace.yaml"),
                              q(kSource / "deploy/crds"), q(kSource / "deploy/rbac.yaml")));
  ASSERT_EQ(deployed.code, 0) << deployed.err;
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  apply_yaml(sim, role_for("team", "deployer", kConfigMapRules));
  OperatorProcess op(sim.kubeconfig_with_token("operator-token"), sim.dir(),
                     {"--leader-elect", "--leader-elect-resource-namespace", "planter-system"});
  std::string seed = R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: settings}
      data: {mode: fast})";
  apply_yaml(sim, seed_object("team", "app", seed, "  serviceAccountName: deployer\n"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Planted"); }, 60s))
      << sim.kubectl("get seed app -n team -o yaml").out << op.log();
  EXPECT_EQ(sim.kubectl("get configmap settings -n team -o jsonpath={.data.mode}").out, "fast");
  bool seen = false;
  for (const std::string& line : sim.audit_lines()) {
    if (line.find("ConfigMap|team|settings") == std::string::npos) continue;
    json::object a = json::parse(line).as_object();
    if (a.at("code").as_int64() >= 300) continue;
    seen = true;
    EXPECT_EQ(a.at("user").as_string(), "system:serviceaccount:team:deployer") << line;
    EXPECT_EQ(a.at("impersonator").as_string(),
              "system:serviceaccount:planter-system:planter-operator")
        << line;
  }
  EXPECT_TRUE(seen) << "no write of team/settings in the audit log";
}

// The issue's hostile Seed: a line break in spec.serviceAccountName would add
// "Impersonate-Group: system:masters" to every request. The Seed's schema refuses it (kubectl's
// exit code and the API server's words), and the operator, shown a Seed the schema did not check
// (a CRD without it), fails it without a request: nothing is written, the ClusterRole never exists.
TEST(OperatorTest, AServiceAccountNameWithALineBreakWritesNothing) {
  SimProcess sim({"--authorization", "RBAC"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  apply_yaml(sim, role_for("team", "deployer", kConfigMapRules));
  std::string seed = R"(    inline: |
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: {name: team-escalation}
      rules:
      - apiGroups: ["*"]
        resources: ["*"]
        verbs: ["*"])";
  std::string hostile =
      seed_object("team", "app", seed,
                  "  serviceAccountName: \"deployer\\r\\nImpersonate-Group: system:masters\"\n");
  fs::path file = sim.dir() / "hostile.yaml";
  std::ofstream(file) << hostile;
  CommandResult refused = sim.kubectl("apply -f " + q(file));
  EXPECT_NE(refused.code, 0) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("spec.serviceAccountName"));
  EXPECT_THAT(refused.err, HasSubstr("should match"));
  // The same Seed under a CRD that does not check the field: the operator's own check.
  CommandResult crd = sim.kubectl("get crd seeds.planter.nephio.org -o json");
  ASSERT_EQ(crd.code, 0) << crd.err;
  json::object lax = json::parse(crd.out).as_object();
  json::object& schema = lax["spec"]
                             .as_object()["versions"]
                             .as_array()[0]
                             .as_object()["schema"]
                             .as_object()["openAPIV3Schema"]
                             .as_object();
  json::object& spec_props =
      schema["properties"].as_object()["spec"].as_object()["properties"].as_object();
  spec_props["serviceAccountName"] = json::object{{"type", "string"}};
  lax["metadata"].as_object().erase("resourceVersion");
  fs::path lax_file = sim.dir() / "lax-crd.json";
  std::ofstream(lax_file) << json::serialize(lax);
  CommandResult replaced = sim.kubectl("replace -f " + q(lax_file));
  ASSERT_EQ(replaced.code, 0) << replaced.err;
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  CommandResult applied = sim.kubectl("apply -f " + q(file));
  ASSERT_EQ(applied.code, 0) << applied.err;
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Failed"); }, 60s)) << op.log();
  EXPECT_THAT(failed_message(sim, "team", "app"),
              HasSubstr("spec.serviceAccountName \"deployer\\r\\nImpersonate-Group: "
                        "system:masters\" is not a ServiceAccount name"));
  EXPECT_THAT(sim.kubectl("get clusterrole team-escalation").err, HasSubstr("NotFound"));
  for (const std::string& line : sim.audit_lines())
    EXPECT_EQ(line.find("system:masters"), std::string::npos) << line;
}

// A Seed's Cluster may not take the name of a workload cluster another Cluster holds (edge1, in
// default): the operator refuses it before any write, from the cluster objects as its watch has
// them, in the words the CLI's preflight uses.
TEST(OperatorTest, ASeedsClusterThatTakesAnotherClustersNameIsRefusedBeforeAnyWrite) {
  SimProcess sim({"--clusters", "1"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace team").code, 0);
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("team", "app", R"(    inline: |
      apiVersion: planter.nephio.org/v1alpha1
      kind: Cluster
      metadata: {name: edge1}
      spec:
        nodes: [{count: 1}]
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: default
        annotations: {planter.nephio.org/cluster: edge1})"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "team", "app", "Failed"); }, 60s)) << op.log();
  EXPECT_EQ(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].reason"),
            "PreflightRefused");
  EXPECT_THAT(seed_field(sim, "team", "app", ".status.conditions[?(@.type==\"Failed\")].message"),
              HasSubstr("the workload cluster name \"edge1\" is taken: Cluster default/edge1"));
  EXPECT_EQ(sim.kubectl("get clusters.planter.nephio.org -n team -o name").out, "");
  EXPECT_THAT(sim.kubectl("--context edge1 get configmap settings -n default").err,
              HasSubstr("NotFound"));
}

}  // namespace
}  // namespace planter::testing
