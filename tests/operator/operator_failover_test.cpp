// Failover (issue 51): the operator probes the workload clusters, taints one whose API server stops
// answering planter.nephio.org/unreachable:NoSelect, and a Seed whose choice held it moves that
// share to another cluster once the choice's toleration of the taint ends, never before; when the
// cluster answers again the taint goes. Judged by kubectl and the sim's audit log.
#include "model/rfc3339.h"
#include "operator_support.h"

namespace planter::testing {
namespace {

using Clock = std::chrono::system_clock;

// The audit lines of successful writes, as JSON.
std::vector<json::object> writes(const SimProcess& sim) {
  std::vector<json::object> out;
  for (const std::string& line : sim.audit_lines()) {
    json::object o = json::parse(line).as_object();
    if (o.contains("verb") && o.at("code").as_int64() < 300) out.push_back(std::move(o));
  }
  return out;
}

Clock::time_point ts_of(const json::object& entry) {
  auto t = parse_rfc3339(entry.at("ts").as_string());
  EXPECT_TRUE(t) << entry.at("ts");
  return t.value_or(Clock::time_point{});
}

std::string field(const json::object& o, const char* key) {
  return std::string(o.at(key).as_string());
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

TEST(OperatorTest, AClusterThatStopsAnsweringIsTaintedAndItsShareMovesWhenTheTolerationEnds) {
  SimProcess sim({"--clusters", "3"});
  ASSERT_TRUE(sim.running());
  // With sig-multicluster's ClusterProfile served, the operator publishes each cluster's.
  ASSERT_EQ(sim.kubectl("apply -f " + q(kData / "clusterprofile-crd.yaml")).code, 0);
  ASSERT_EQ(sim.kubectl("wait --for=condition=Established "
                        "crd/clusterprofiles.multicluster.x-k8s.io --timeout=30s")
                .code,
            0);
  OperatorProcess op(sim.kubeconfig(), sim.dir(),
                     {"--cluster-probe-interval", "0.5", "--cluster-unreachable-after", "2"});
  apply_yaml(sim, seed_object("default", "pick", R"(    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: pick
        namespace: default
        annotations:
          planter.nephio.org/cluster-selector: sim.planter.io/index
          planter.nephio.org/cluster-count: "1"
          planter.nephio.org/cluster-tolerations: >-
            [{"key": "planter.nephio.org/unreachable", "operator": "Exists",
              "tolerationSeconds": 4}]
      data: {a: b})"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "default", "pick", "Planted"); }, 30s))
      << sim.kubectl("get seed pick -o yaml").out << op.log();
  std::string first = seed_field(sim, "default", "pick", ".status.clusterChoices[0].clusters[0]");
  ASSERT_THAT(first, ::testing::StartsWith("edge"));
  auto healthy = [&] {
    return sim
        .kubectl("get clusterprofiles.multicluster.x-k8s.io " + first +
                 " -n default -o jsonpath='{.status.conditions[?(@.type==\"ControlPlaneHealthy\")]"
                 ".status}'")
        .out;
  };
  EXPECT_TRUE(eventually([&] { return healthy() == "True"; }, 20s)) << op.log();
  EXPECT_EQ(sim.kubectl("get clusterprofiles.multicluster.x-k8s.io " + first +
                        " -n default -o jsonpath='{.metadata.labels.x-k8s\\.io/cluster-manager}'")
                .out,
            "planter");

  // Its API server stops: every request answered 503 (sim.planter.io/down).
  ASSERT_EQ(
      sim.kubectl("annotate clusters.planter.nephio.org " + first + " sim.planter.io/down=true")
          .code,
      0);
  auto taint_key = [&] {
    return sim
        .kubectl("get clusters.planter.nephio.org " + first +
                 " -o jsonpath='{.spec.taints[*].key}'")
        .out;
  };
  ASSERT_TRUE(eventually([&] { return taint_key() == "planter.nephio.org/unreachable"; }, 20s))
      << op.log();
  EXPECT_EQ(sim.kubectl("get clusters.planter.nephio.org " + first +
                        " -o jsonpath='{.spec.taints[0].effect}'")
                .out,
            "NoSelect");
  auto added = parse_rfc3339(sim.kubectl("get clusters.planter.nephio.org " + first +
                                         " -o jsonpath='{.spec.taints[0].timeAdded}'")
                                 .out);
  ASSERT_TRUE(added);
  EXPECT_TRUE(eventually([&] { return healthy() == "False"; }, 20s)) << op.log();

  // The share moves once the 4 s toleration ends.
  std::string moved_to;
  ASSERT_TRUE(eventually(
      [&] {
        moved_to = seed_field(sim, "default", "pick", ".status.clusterChoices[0].clusters[0]");
        return moved_to.starts_with("edge") && moved_to != first &&
               phase_is(sim, "default", "pick", "Planted");
      },
      30s))
      << sim.kubectl("get seed pick -o yaml").out << op.log();
  EXPECT_EQ(sim.kubectl("--context " + moved_to + " get configmap pick -n default -o name").out,
            "configmap/pick\n");
  // In the audit log: the taint (the last write of the Cluster before the failover; kubectl's
  // annotation came before it), then the ConfigMap's write on the new cluster, no sooner than
  // timeAdded + tolerationSeconds and within 2 s after.
  std::optional<Clock::time_point> tainted, written;
  for (const json::object& w : writes(sim)) {
    std::string object = field(w, "object");
    if (!written && field(w, "cluster") == "management" && field(w, "verb") == "patch" &&
        object.ends_with("|Cluster|default|" + first))
      tainted = ts_of(w);
    if (tainted && !written && field(w, "cluster") == moved_to &&
        object == "v1|ConfigMap|default|pick")
      written = ts_of(w);
  }
  ASSERT_TRUE(tainted && written);
  EXPECT_GE(seconds_between(*added, *written), 4.0);
  EXPECT_LE(seconds_between(*tainted, *written), 6.0) << op.log();
  // Said in Events: the cluster's, and the Seed's.
  std::string events = sim.kubectl("get events -n default -o json").out;
  EXPECT_THAT(events, HasSubstr("ClusterUnreachable"));
  EXPECT_THAT(events, HasSubstr("\"Failover\""));
  EXPECT_THAT(events, HasSubstr("ConfigMap default/pick chose " + moved_to));

  // It answers again: the taint goes, and what the Seed left there is pruned; the share stays
  // where it moved.
  ASSERT_EQ(sim.kubectl("annotate --overwrite clusters.planter.nephio.org " + first +
                        " sim.planter.io/down=false")
                .code,
            0);
  EXPECT_TRUE(eventually([&] { return taint_key().empty(); }, 20s)) << op.log();
  EXPECT_THAT(sim.kubectl("get events -n default -o json").out, HasSubstr("ClusterReachable"));
  EXPECT_TRUE(eventually(
      [&] {
        return sim.kubectl("--context " + first + " get configmap pick -n default").code != 0;
      },
      20s))
      << op.log();
  EXPECT_EQ(seed_field(sim, "default", "pick", ".status.clusterChoices[0].clusters[0]"), moved_to);
  EXPECT_EQ(sim.kubectl("--context " + moved_to + " get configmap pick -n default -o name").out,
            "configmap/pick\n");

  // The Cluster owns its ClusterProfile: deleted, the profile goes with it.
  EXPECT_EQ(sim.kubectl("get clusterprofiles.multicluster.x-k8s.io " + first +
                        " -n default -o jsonpath='{.metadata.ownerReferences[0].kind}/"
                        "{.metadata.ownerReferences[0].name}'")
                .out,
            "Cluster/" + first);
  ASSERT_EQ(sim.kubectl("delete clusters.planter.nephio.org " + first + " --wait=false").code, 0);
  EXPECT_TRUE(eventually(
      [&] {
        return sim.kubectl("get clusterprofiles.multicluster.x-k8s.io -n default -o name").out ==
               fmt::format(
                   "clusterprofile.multicluster.x-k8s.io/{}\n"
                   "clusterprofile.multicluster.x-k8s.io/{}\n",
                   first == "edge1" ? "edge2" : "edge1", first == "edge3" ? "edge2" : "edge3");
      },
      30s))
      << sim.kubectl("get clusterprofiles.multicluster.x-k8s.io -A").out << op.log();
  EXPECT_TRUE(op.running());
}

// A Seed whose units wait for a Cluster API Cluster being provisioned gives its worker back, and
// the Cluster's change (provisioned) wakes it: the operator says so, naming the Seed and the
// cluster, and the Seed plants onto the new cluster.
TEST(OperatorTest, ASeedRestingForAClusterApiClusterIsWokenWhenItIsProvisioned) {
  SimProcess sim({"--provision-delay", "5000"});
  ASSERT_TRUE(sim.running());
  OperatorProcess op(sim.kubeconfig(), sim.dir());
  apply_yaml(sim, seed_object("default", "capi", R"(    inline: |
      apiVersion: cluster.x-k8s.io/v1beta1
      kind: Cluster
      metadata: {name: edge-capi, namespace: default}
      spec:
        clusterNetwork: {pods: {cidrBlocks: [192.168.0.0/16]}}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: default
        annotations: {planter.nephio.org/cluster: edge-capi}
      data: {a: b})"));
  ASSERT_TRUE(eventually([&] { return phase_is(sim, "default", "capi", "Planted"); }, 60s))
      << sim.kubectl("get seed capi -o yaml").out << op.log();
  bool created = false;  // by server-side apply: the audit log's verb is apply, 201
  for (const json::object& w : writes(sim))
    created = created || (w.at("code").as_int64() == 201 &&
                          field(w, "object") == "v1|ConfigMap|default|settings" &&
                          field(w, "cluster") == "edge-capi");
  EXPECT_TRUE(created) << "the ConfigMap was not created on edge-capi";
  std::istringstream lines(op.log());
  bool woken = false;
  for (std::string line; std::getline(lines, line);)
    woken = woken || (line.find("seed woken") != std::string::npos &&
                      line.find("default/capi") != std::string::npos &&
                      line.find("edge-capi") != std::string::npos);
  EXPECT_TRUE(woken) << op.log();
}

}  // namespace
}  // namespace planter::testing
