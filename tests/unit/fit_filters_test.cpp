// The fit model's filters (src/fit/filters), one table per filter, in kube-scheduler's words.
// Each row is a pod, the nodes and the pods already bound, and the answer for one node, worked out
// from the Kubernetes documentation ("Assigning Pods to Nodes", "Taints and Tolerations",
// "Resource Management for Pods and Containers", "Sidecar containers", "Pod Overhead", "Pod
// Topology Spread Constraints", "Inter-pod affinity and anti-affinity"), in the manner of
// kube-scheduler's own plugin tests (pkg/scheduler/framework/plugins/*/..._test.go).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

#include "fit/filters/filters.h"
#include "fit/framework.h"
#include "fit/pod_info.h"
#include "fit/resources.h"
#include "fit/snapshot.h"

namespace planter::fit {
namespace {

namespace json = boost::json;

// A node: labels and spec as JSON members (its hostname label is added), allocatable as JSON.
std::string N(const std::string& name, const std::string& labels = "",
              const std::string& spec = "{}",
              const std::string& alloc = R"({"cpu":"4","memory":"8Gi","pods":"110"})") {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" + name +
         "\"" + (labels.empty() ? "" : "," + labels) + R"(}},"spec":)" + spec +
         R"(,"status":{"allocatable":)" + alloc + "}}";
}

// A pod in namespace default: its spec's members as JSON (containers default to one without
// requests), its labels as JSON, and the node it is bound to.
std::string P(const std::string& spec = "", const std::string& labels = "{}",
              const std::string& on = "") {
  std::string s = spec;
  if (s.find("\"containers\"") == std::string::npos)
    s = R"("containers":[{"name":"c"}])" + std::string(s.empty() ? "" : ",") + s;
  if (!on.empty()) s += R"(,"nodeName":")" + on + "\"";
  return R"({"metadata":{"name":"p","namespace":"default","labels":)" + labels + R"(},"spec":{)" +
         s + "}}";
}

struct Row {
  std::string name;
  std::vector<std::string> nodes;
  std::vector<std::string> bound;  // pods with a nodeName
  std::string pod;
  std::string on;                    // the node asked about
  std::vector<std::string> reasons;  // empty: it fits
  bool unresolvable = false;
  std::vector<std::string> volumes;  // PersistentVolumeClaims and PersistentVolumes
};

// Runs one plugin of the table for the row as a pod's cycle runs it (the PreFilters, then its
// Filter; a PreFilter's refusal stands for every node).
Status run(std::string_view plugin, const Row& r) {
  Snapshot s;
  for (const std::string& n : r.nodes) s.add_node(json::parse(n).as_object());
  for (const std::string& p : r.bound) s.add_pod(json::parse(p).as_object());
  for (const std::string& v : r.volumes) s.add_volume_object(json::parse(v).as_object());
  PodInfo pod = PodInfo::from(json::parse(r.pod).as_object());
  if (std::none_of(default_filters().begin(), default_filters().end(),
                   [&](const FilterPlugin& p) { return p.name == plugin; }))
    ADD_FAILURE() << "no plugin " << plugin;
  return PodCycle(s, pod).filter_only(plugin, *s.node(r.on));
}

void check(std::string_view plugin, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    Status s = run(plugin, r);
    EXPECT_EQ(s.reasons, r.reasons) << plugin << ": " << r.name;
    if (!r.reasons.empty()) {
      EXPECT_EQ(s.unresolvable, r.unresolvable) << plugin << ": " << r.name;
    }
  }
}

TEST(FitFiltersTest, TheTableIsKubeSchedulersDefaultOrder) {
  std::vector<std::string_view> names;
  for (const FilterPlugin& p : default_filters()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{
                       "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                       "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "VolumeBinding",
                       "PodTopologySpread", "InterPodAffinity", "DynamicResources"}));
}

TEST(FitFiltersTest, NodeUnschedulable) {
  const std::string cordoned = N("n", "", R"({"unschedulable":true})");
  check("NodeUnschedulable",
        {
            {"a schedulable node", {N("n")}, {}, P(), "n", {}},
            {"a cordoned node", {cordoned}, {}, P(), "n", {filters::kUnschedulable}, true},
            {"the cordon's taint tolerated",
             {cordoned},
             {},
             P(R"("tolerations":[{"key":"node.kubernetes.io/unschedulable","operator":"Exists",
                                  "effect":"NoSchedule"}])"),
             "n",
             {}},
            {"a toleration of another effect",
             {cordoned},
             {},
             P(R"("tolerations":[{"key":"node.kubernetes.io/unschedulable","operator":"Exists",
                                  "effect":"NoExecute"}])"),
             "n",
             {filters::kUnschedulable},
             true},
        });
}

TEST(FitFiltersTest, NodeName) {
  check("NodeName",
        {
            {"no nodeName", {N("n")}, {}, P(), "n", {}},
            {"its own node", {N("n")}, {}, P(R"("nodeName":"n")"), "n", {}},
            {"another node", {N("n")}, {}, P(R"("nodeName":"m")"), "n", {filters::kNodeName}, true},
        });
}

TEST(FitFiltersTest, TaintToleration) {
  const std::string tainted =
      N("n", "", R"({"taints":[{"key":"dedicated","value":"user1","effect":"NoSchedule"}]})");
  const std::string untolerated = "node(s) had untolerated taint {dedicated: user1}";
  check("TaintToleration",
        {
            {"no taint", {N("n")}, {}, P(), "n", {}},
            {"an untolerated NoSchedule taint", {tainted}, {}, P(), "n", {untolerated}, true},
            {"tolerated with Equal and the value",
             {tainted},
             {},
             P(R"("tolerations":[{"key":"dedicated","value":"user1","effect":"NoSchedule"}])"),
             "n",
             {}},
            {"another value",
             {tainted},
             {},
             P(R"("tolerations":[{"key":"dedicated","value":"user2","effect":"NoSchedule"}])"),
             "n",
             {untolerated},
             true},
            {"Exists tolerates every value",
             {tainted},
             {},
             P(R"("tolerations":[{"key":"dedicated","operator":"Exists"}])"),
             "n",
             {}},
            {"an empty key with Exists tolerates everything",
             {tainted},
             {},
             P(R"("tolerations":[{"operator":"Exists"}])"),
             "n",
             {}},
            {"a toleration of another effect",
             {tainted},
             {},
             P(R"("tolerations":[{"key":"dedicated","value":"user1","effect":"NoExecute"}])"),
             "n",
             {untolerated},
             true},
            {"PreferNoSchedule only scores",
             {N("n", "", R"({"taints":[{"key":"soft","effect":"PreferNoSchedule"}]})")},
             {},
             P(),
             "n",
             {}},
            {"NoExecute filters too",
             {N("n", "", R"({"taints":[{"key":"gone","value":"","effect":"NoExecute"}]})")},
             {},
             P(),
             "n",
             {"node(s) had untolerated taint {gone: }"},
             true},
        });
}

TEST(FitFiltersTest, NodeAffinity) {
  const std::string node = N("n", R"("zone":"a","gen":"5")");
  auto required = [](const std::string& terms) {
    return R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{)"
           R"("nodeSelectorTerms":)" +
           terms + "}}}";
  };
  auto expr = [](const std::string& key, const std::string& op, const std::string& values) {
    return R"([{"matchExpressions":[{"key":")" + key + R"(","operator":")" + op + "\"" +
           (values.empty() ? "" : R"(,"values":)" + values) + "}]}]";
  };
  const std::vector<std::string> no = {filters::kNodeAffinity};
  check(
      "NodeAffinity",
      {
          {"no constraint", {node}, {}, P(), "n", {}},
          {"nodeSelector matches", {node}, {}, P(R"("nodeSelector":{"zone":"a"})"), "n", {}},
          {"nodeSelector differs", {node}, {}, P(R"("nodeSelector":{"zone":"b"})"), "n", no, true},
          {"nodeSelector key missing",
           {node},
           {},
           P(R"("nodeSelector":{"gpu":"yes"})"),
           "n",
           no,
           true},
          {"In", {node}, {}, P(required(expr("zone", "In", R"(["a","b"])"))), "n", {}},
          {"In, not listed",
           {node},
           {},
           P(required(expr("zone", "In", R"(["b"])"))),
           "n",
           no,
           true},
          {"NotIn on a missing key",
           {node},
           {},
           P(required(expr("x", "NotIn", R"(["a"])"))),
           "n",
           {}},
          {"Exists", {node}, {}, P(required(expr("zone", "Exists", ""))), "n", {}},
          {"DoesNotExist",
           {node},
           {},
           P(required(expr("zone", "DoesNotExist", ""))),
           "n",
           no,
           true},
          {"Gt", {node}, {}, P(required(expr("gen", "Gt", R"(["4"])"))), "n", {}},
          {"Lt", {node}, {}, P(required(expr("gen", "Lt", R"(["5"])"))), "n", no, true},
          {"Gt on a value that is no integer",
           {N("n", R"("gen":"five")")},
           {},
           P(required(expr("gen", "Gt", R"(["4"])"))),
           "n",
           no,
           true},
          {"matchFields on metadata.name",
           {node},
           {},
           P(required(R"([{"matchFields":[{"key":"metadata.name","operator":"In",
                                             "values":["n"]}]}])")),
           "n",
           {}},
          {"terms are ORed",
           {node},
           {},
           P(required(R"([{"matchExpressions":[{"key":"zone","operator":"In","values":["b"]}]},
                            {"matchExpressions":[{"key":"gen","operator":"Exists"}]}])")),
           "n",
           {}},
          {"an empty term matches nothing", {node}, {}, P(required("[{}]")), "n", no, true},
          {"no terms match nothing", {node}, {}, P(required("[]")), "n", no, true},
          {"a value that is not a label value matches nothing",
           {N("n", R"("zone":"a")")},
           {},
           P(required(expr("zone", "In", R"(["a","not a value!"])"))),
           "n",
           no,
           true},
          {"nodeSelector and affinity must both hold",
           {node},
           {},
           P(R"("nodeSelector":{"zone":"b"},)" + required(expr("zone", "In", R"(["a"])"))),
           "n",
           no,
           true},
      });
}

TEST(FitFiltersTest, NodePorts) {
  auto port = [](const std::string& p) {
    return R"("containers":[{"name":"c","ports":[)" + p + "]}]";
  };
  const std::string taken = P(port(R"({"containerPort":80,"hostPort":8080})"), "{}", "n");
  const std::string on_ip =
      P(port(R"({"containerPort":80,"hostPort":8080,"hostIP":"127.0.0.1"})"), "{}", "n");
  const std::vector<std::string> no = {filters::kNodePorts};
  check("NodePorts",
        {
            {"a free port", {N("n")}, {taken}, P(port(R"({"hostPort":9090})")), "n", {}},
            {"the same port", {N("n")}, {taken}, P(port(R"({"hostPort":8080})")), "n", no},
            {"another protocol",
             {N("n")},
             {taken},
             P(port(R"({"hostPort":8080,"protocol":"UDP"})")),
             "n",
             {}},
            {"two host IPs do not clash",
             {N("n")},
             {on_ip},
             P(port(R"({"hostPort":8080,"hostIP":"127.0.0.2"})")),
             "n",
             {}},
            {"0.0.0.0 clashes with every IP",
             {N("n")},
             {on_ip},
             P(port(R"({"hostPort":8080})")),
             "n",
             no},
            {"a containerPort alone takes nothing",
             {N("n")},
             {P(port(R"({"containerPort":8080})"), "{}", "n")},
             P(port(R"({"hostPort":8080})")),
             "n",
             {}},
        });
}

TEST(FitFiltersTest, NodeResourcesFit) {
  auto asks = [](const std::string& requests) {
    return R"("containers":[{"name":"c","resources":{"requests":)" + requests + "}}]";
  };
  const std::string gpu_node =
      N("n", "", "{}", R"({"cpu":"4","memory":"8Gi","pods":"110","nvidia.com/gpu":"1",
                          "hugepages-1Gi":"2Gi","ephemeral-storage":"10Gi"})");
  const std::string one_gpu_used = P(asks(R"({"nvidia.com/gpu":"1"})"), "{}", "n");
  check("NodeResourcesFit",
        {
            {"room for cpu and memory",
             {N("n")},
             {},
             P(asks(R"({"cpu":"2","memory":"4Gi"})")),
             "n",
             {}},
            {"every shortage is a reason",
             {N("n")},
             {P(asks(R"({"cpu":"3","memory":"7Gi"})"), "{}", "n")},
             P(asks(R"({"cpu":"2","memory":"4Gi"})")),
             "n",
             {"Insufficient cpu", "Insufficient memory"}},
            {"a limit stands for a request it does not state",
             {N("n")},
             {},
             P(R"("containers":[{"name":"c","resources":{"limits":{"cpu":"5"}}}])"),
             "n",
             {"Insufficient cpu"}},
            {"an extended resource used up",
             {gpu_node},
             {one_gpu_used},
             P(asks(R"({"nvidia.com/gpu":"1"})")),
             "n",
             {"Insufficient nvidia.com/gpu"}},
            {"an extended resource the node does not have",
             {N("n")},
             {},
             P(asks(R"({"intel.com/sriov":"1"})")),
             "n",
             {"Insufficient intel.com/sriov"}},
            {"hugepages",
             {gpu_node},
             {},
             P(asks(R"({"hugepages-1Gi":"3Gi"})")),
             "n",
             {"Insufficient hugepages-1Gi"}},
            {"ephemeral-storage",
             {gpu_node},
             {},
             P(asks(R"({"ephemeral-storage":"11Gi"})")),
             "n",
             {"Insufficient ephemeral-storage"}},
            {"no pod slot left",
             {N("n", "", "{}", R"({"cpu":"4","memory":"8Gi","pods":"1"})")},
             {P("", "{}", "n")},
             P(),
             "n",
             {"Too many pods"}},
            {"the biggest init container counts",
             {N("n")},
             {},
             P(R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}],
                "initContainers":[{"name":"i","resources":{"requests":{"cpu":"5"}}}])"),
             "n",
             {"Insufficient cpu"}},
            {"a sidecar runs beside the containers",
             {N("n")},
             {},
             P(R"("containers":[{"name":"c","resources":{"requests":{"cpu":"3"}}}],
                "initContainers":[{"name":"s","restartPolicy":"Always",
                                   "resources":{"requests":{"cpu":"1500m"}}}])"),
             "n",
             {"Insufficient cpu"}},
            {"the pod's overhead adds",
             {N("n")},
             {},
             P(asks(R"({"cpu":"3900m"})") + R"(,"overhead":{"cpu":"200m"})"),
             "n",
             {"Insufficient cpu"}},
            {"finished pods use nothing",
             {N("n")},
             {R"({"metadata":{"name":"done","namespace":"default"},"spec":{"nodeName":"n",
               "containers":[{"name":"c","resources":{"requests":{"cpu":"4"}}}]},
               "status":{"phase":"Succeeded"}})"},
             P(asks(R"({"cpu":"4"})")),
             "n",
             {}},
        });
}

TEST(FitFiltersTest, InterPodAffinity) {
  auto term = [](const std::string& kind, const std::string& key, const std::string& app) {
    return R"("affinity":{")" + kind +
           R"(":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":")" + key +
           R"(","labelSelector":{"matchLabels":{"app":")" + app + R"("}}}]}})";
  };
  const std::string a1 = N("a1", R"("zone":"a")"), a2 = N("a2", R"("zone":"a")"),
                    b1 = N("b1", R"("zone":"b")"), bare = N("bare");
  const std::string db_on_a1 = P("", R"({"app":"db"})", "a1");
  const std::vector<std::string> aff = {filters::kAffinity}, anti = {filters::kAntiAffinity},
                                 existing = {filters::kExistingAntiAffinity};
  check("InterPodAffinity",
        {
            {"affinity to a pod in the zone",
             {a1, a2, b1},
             {db_on_a1},
             P(term("podAffinity", "zone", "db")),
             "a2",
             {}},
            {"affinity, the pod is in another zone",
             {a1, a2, b1},
             {db_on_a1},
             P(term("podAffinity", "zone", "db")),
             "b1",
             aff,
             true},
            {"affinity, the node lacks the key",
             {a1, bare},
             {db_on_a1},
             P(term("podAffinity", "zone", "db")),
             "bare",
             aff,
             true},
            {"the first pod of a group that follows itself",
             {a1, b1},
             {},
             P(term("podAffinity", "zone", "web"), R"({"app":"web"})"),
             "b1",
             {}},
            {"a first pod that does not match itself",
             {a1, b1},
             {},
             P(term("podAffinity", "zone", "web"), R"({"app":"other"})"),
             "b1",
             aff,
             true},
            {"anti-affinity in the same zone",
             {a1, a2},
             {db_on_a1},
             P(term("podAntiAffinity", "zone", "db")),
             "a2",
             anti},
            {"anti-affinity on the hostname spares the zone's other node",
             {a1, a2},
             {db_on_a1},
             P(term("podAntiAffinity", "kubernetes.io/hostname", "db")),
             "a2",
             {}},
            {"anti-affinity, the node lacks the key",
             {a1, bare},
             {db_on_a1},
             P(term("podAntiAffinity", "zone", "db")),
             "bare",
             {}},
            {"an existing pod's anti-affinity",
             {a1, a2},
             {P(term("podAntiAffinity", "zone", "web"), R"({"app":"db"})", "a1")},
             P("", R"({"app":"web"})"),
             "a2",
             existing},
            {"another namespace is not matched",
             {a1, a2},
             {R"({"metadata":{"name":"x","namespace":"other","labels":{"app":"db"}},
                 "spec":{"nodeName":"a1","containers":[{"name":"c"}]}})"},
             P(term("podAntiAffinity", "zone", "db")),
             "a2",
             {}},
        });
}

TEST(FitFiltersTest, PodTopologySpread) {
  auto spread = [](int skew, const std::string& extra = "") {
    return R"("topologySpreadConstraints":[{"maxSkew":)" + std::to_string(skew) +
           R"(,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",)"
           R"("labelSelector":{"matchLabels":{"app":"web"}})" +
           extra + "}]";
  };
  const std::string a1 = N("a1", R"("zone":"a")"), b1 = N("b1", R"("zone":"b")"),
                    c1 = N("c1", R"("zone":"c")"), bare = N("bare");
  const std::string web = R"({"app":"web"})";
  const std::vector<std::string> two_on_a = {P("", web, "a1"), P("", web, "a1")};
  check("PodTopologySpread",
        {
            {"the emptier zone", {a1, b1}, two_on_a, P(spread(1), web), "b1", {}},
            {"the fuller zone", {a1, b1}, two_on_a, P(spread(1), web), "a1", {filters::kSpread}},
            {"within a larger skew", {a1, b1}, two_on_a, P(spread(3), web), "a1", {}},
            {"a node without the key",
             {a1, bare},
             {},
             P(spread(1), web),
             "bare",
             {filters::kSpreadMissingLabel},
             true},
            {"ScheduleAnyway only scores",
             {a1, b1},
             two_on_a,
             P(R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone",
                  "whenUnsatisfiable":"ScheduleAnyway",
                  "labelSelector":{"matchLabels":{"app":"web"}}}])",
               web),
             "a1",
             {}},
            {"fewer domains than minDomains: the smallest count is 0",
             {a1, b1},
             {P("", web, "a1"), P("", web, "b1")},
             P(spread(1, R"(,"minDomains":3)"), web),
             "b1",
             {filters::kSpread}},
            {"a zone the pod's node affinity excludes is not counted",
             {a1, b1, c1},
             {P("", web, "a1")},
             P(spread(1) + R"(,"nodeSelector":{"zone":"a"})", web),
             "a1",
             {}},
        });
}

// Claims, volumes and classes from "Persistent Volumes" and "Storage Classes" (volume binding
// mode, allowedTopologies, local volumes with kubernetes.io/no-provisioner), as in
// volume_binding_test.go's rows: bound, pre-bound to a missing volume, unbound Immediate,
// unbound WaitForFirstConsumer with a static volume or a provisioner.
TEST(FitFiltersTest, VolumeBinding) {
  // A claim in default: its spec's members after volumeName, and a selected node. The cluster
  // holds it (it has a uid); seed_claim is one the seed will create.
  auto claim = [](const std::string& name, const std::string& volume, const std::string& spec = "",
                  const std::string& selected = "") {
    return R"({"kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
           R"(","namespace":"default","uid":"u-)" + name + "\"" +
           (selected.empty()
                ? ""
                : R"(,"annotations":{"volume.kubernetes.io/selected-node":")" + selected + "\"}") +
           R"(},"spec":{"volumeName":")" + volume + "\"" + (spec.empty() ? "" : "," + spec) + "}}";
  };
  auto on_node = [](const std::string& node) {
    return R"("nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":
           "kubernetes.io/hostname","operator":"In","values":[")" +
           node + "\"]}]}]}}";
  };
  // A volume: its name and spec's members.
  auto volume = [](const std::string& name, const std::string& spec) {
    return R"({"kind":"PersistentVolume","metadata":{"name":")" + name + R"("},"spec":{)" + spec +
           "}}";
  };
  auto storage_class = [](const std::string& name, const std::string& mode,
                          const std::string& provisioner, const std::string& more = "") {
    return R"({"kind":"StorageClass","metadata":{"name":")" + name + R"("},"volumeBindingMode":")" +
           mode + R"(","provisioner":")" + provisioner + "\"" + (more.empty() ? "" : "," + more) +
           "}";
  };
  const std::string local_on_a = volume("pv-a", on_node("a"));
  const std::string network = volume("pv-net", "");
  auto mounts = [](const std::string& claim, const std::string& second = "") {
    std::string v = R"({"name":"v","persistentVolumeClaim":{"claimName":")" + claim + "\"}}";
    if (!second.empty())
      v += R"(,{"name":"w","persistentVolumeClaim":{"claimName":")" + second + "\"}}";
    return P(R"("volumes":[)" + v + "]");
  };
  const std::string wffc_local =
      storage_class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner");
  const std::string wffc_dynamic = storage_class(
      "zonal", "WaitForFirstConsumer", "csi.example.com",
      R"("allowedTopologies":[{"matchLabelExpressions":[{"key":"zone","values":["z1","z2"]}]}])");
  const std::string immediate = storage_class("standard", "Immediate", "csi.example.com");
  const std::string default_local =
      R"({"kind":"StorageClass","metadata":{"name":"local","annotations":{
         "storageclass.kubernetes.io/is-default-class":"true"}},
         "volumeBindingMode":"WaitForFirstConsumer","provisioner":"kubernetes.io/no-provisioner"})";
  auto seed_claim = [](const std::string& name, const std::string& spec) {
    return R"({"kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
           R"(","namespace":"default"},"spec":{)" + spec + "}}";
  };
  const std::string want_local =
      R"("storageClassName":"local","accessModes":["ReadWriteOnce"],
         "resources":{"requests":{"storage":"10Gi"}})";
  auto local_volume = [&](const std::string& name, const std::string& node, const std::string& size,
                          const std::string& more = "") {
    return volume(name, on_node(node) + R"(,"storageClassName":"local","accessModes":
                  ["ReadWriteOnce"],"capacity":{"storage":")" +
                            size + "\"}" + (more.empty() ? "" : "," + more));
  };
  const std::vector<std::string> conflict = {filters::kVolumeNodeConflict};
  const std::vector<std::string> bind = {filters::kVolumeBindConflict};
  const std::vector<std::string> nodes = {N("a"), N("b", R"("zone":"z1")"),
                                          N("c", R"("zone":"z3")")};
  check("VolumeBinding",
        {
            {"no claim", nodes, {}, P(), "b", {}},
            {"a claim bound to a local volume of the node",
             nodes,
             {},
             mounts("data"),
             "a",
             {},
             false,
             {claim("data", "pv-a"), local_on_a}},
            {"a claim bound to a local volume of another node",
             nodes,
             {},
             mounts("data"),
             "b",
             conflict,
             true,
             {claim("data", "pv-a"), local_on_a}},
            {"a volume without node affinity goes anywhere",
             nodes,
             {},
             mounts("data"),
             "b",
             {},
             false,
             {claim("data", "pv-net"), network}},
            {"a claim bound to a volume that is not there",
             nodes,
             {},
             mounts("data"),
             "a",
             {"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"},
             true,
             {claim("data", "pv-gone")}},
            {"an unbound claim of an Immediate class",
             nodes,
             {},
             mounts("data"),
             "a",
             {filters::kUnboundImmediate},
             true,
             {claim("data", "", R"("storageClassName":"standard")"), immediate}},
            {"an unbound claim without a class binds at once too",
             nodes,
             {},
             mounts("data"),
             "a",
             {filters::kUnboundImmediate},
             true,
             {claim("data", "")}},
            {"a claim being provisioned for another node",
             nodes,
             {},
             mounts("data"),
             "b",
             bind,
             true,
             {claim("data", "", R"("storageClassName":"zonal")", "a"), wffc_dynamic}},
            {"a claim being provisioned for this node",
             nodes,
             {},
             mounts("data"),
             "a",
             {},
             false,
             {claim("data", "", R"("storageClassName":"zonal")", "a"), wffc_dynamic}},
            {"waiting for its first consumer: a static local volume on the node",
             nodes,
             {},
             mounts("data"),
             "a",
             {},
             false,
             {claim("data", "", want_local), wffc_local, local_volume("pv-a", "a", "20Gi")}},
            {"waiting for its first consumer: the only static volume is on another node",
             nodes,
             {},
             mounts("data"),
             "b",
             bind,
             true,
             {claim("data", "", want_local), wffc_local, local_volume("pv-a", "a", "20Gi")}},
            {"a static volume too small for the claim",
             nodes,
             {},
             mounts("data"),
             "a",
             bind,
             true,
             {claim("data", "", want_local), wffc_local, local_volume("pv-a", "a", "5Gi")}},
            {"a static volume claimed by another claim",
             nodes,
             {},
             mounts("data"),
             "a",
             bind,
             true,
             {claim("data", "", want_local), wffc_local,
              local_volume("pv-a", "a", "20Gi",
                           R"("claimRef":{"namespace":"default","name":"other"})")}},
            {"a static volume without the access mode asked for",
             nodes,
             {},
             mounts("data"),
             "a",
             bind,
             true,
             {claim("data", "",
                    R"("storageClassName":"local","accessModes":["ReadWriteMany"],
                       "resources":{"requests":{"storage":"1Gi"}})"),
              wffc_local, local_volume("pv-a", "a", "20Gi")}},
            {"two claims cannot both bind the node's one volume",
             nodes,
             {},
             mounts("data", "logs"),
             "a",
             bind,
             true,
             {claim("data", "", want_local), claim("logs", "", want_local), wffc_local,
              local_volume("pv-a", "a", "20Gi")}},
            {"two claims, two volumes on the node",
             nodes,
             {},
             mounts("data", "logs"),
             "a",
             {},
             false,
             {claim("data", "", want_local), claim("logs", "", want_local), wffc_local,
              local_volume("pv-a", "a", "20Gi"), local_volume("pv-a2", "a", "10Gi")}},
            {"a claim's selector picks among volumes",
             nodes,
             {},
             mounts("data"),
             "a",
             bind,
             true,
             {claim("data", "", want_local + R"(,"selector":{"matchLabels":{"tier":"fast"}})"),
              wffc_local, local_volume("pv-a", "a", "20Gi")}},
            {"provisioned where allowedTopologies admit the node",
             nodes,
             {},
             mounts("data"),
             "b",
             {},
             false,
             {claim("data", "", R"("storageClassName":"zonal")"), wffc_dynamic}},
            {"not provisioned where allowedTopologies do not admit the node",
             nodes,
             {},
             mounts("data"),
             "c",
             bind,
             true,
             {claim("data", "", R"("storageClassName":"zonal")"), wffc_dynamic}},
            {"nor on a node without the label",
             nodes,
             {},
             mounts("data"),
             "a",
             bind,
             true,
             {claim("data", "", R"("storageClassName":"zonal")"), wffc_dynamic}},
            {"bound and unbound claims each say their reason",
             nodes,
             {},
             mounts("data", "logs"),
             "b",
             {filters::kVolumeNodeConflict, filters::kVolumeBindConflict},
             true,
             {claim("data", "pv-a"), local_on_a, claim("logs", "", want_local), wffc_local,
              local_volume("pv-c", "c", "20Gi")}},
            {"a claim not there yet ties nothing", nodes, {}, mounts("later"), "b", {}},
            {"one the seed will create, of an Immediate class, binds at once: it ties nothing",
             nodes,
             {},
             mounts("data"),
             "a",
             {},
             false,
             {seed_claim("data", R"("storageClassName":"standard")"), immediate}},
            {"one the seed will create without a class gets the default class: here, local "
             "volumes made by hand, none of them on this node",
             nodes,
             {},
             mounts("data"),
             "b",
             bind,
             true,
             {seed_claim("data", R"("accessModes":["ReadWriteOnce"])"), default_local,
              local_volume("pv-a", "a", "20Gi")}},
            {"and one on that node",
             nodes,
             {},
             mounts("data"),
             "a",
             {},
             false,
             {seed_claim("data", R"("accessModes":["ReadWriteOnce"])"), default_local,
              local_volume("pv-a", "a", "20Gi")}},
        });
}

// A scheduler's cache holds every claim of its cluster: a pod whose claim it does not hold, or
// whose claim is being deleted, is refused at PreFilter for every node (kube-scheduler's
// VolumeBinding), and retried when the claim comes; a plan's snapshot lets it wait for nothing.
TEST(FitFiltersTest, ACompleteViewRefusesAPodWhoseClaimIsMissingOrGoing) {
  const std::string pod =
      P(R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"work"}}])");
  auto refusal = [&](bool complete, const std::string& claim) {
    Snapshot s;
    if (complete) s.set_volumes_complete();
    s.add_node(json::parse(N("a")).as_object());
    if (!claim.empty()) s.add_volume_object(json::parse(claim).as_object());
    PodInfo p = PodInfo::from(json::parse(pod).as_object());
    PodCycle cycle(s, p);
    Status st = cycle.filter(*s.node("a"));
    EXPECT_EQ(st.ok(), cycle.prefilter_refusal().empty());
    if (!st.ok()) {
      EXPECT_EQ(st.plugin, "VolumeBinding");
      EXPECT_TRUE(st.unresolvable);
    }
    return cycle.prefilter_refusal();
  };
  const std::string going =
      R"({"kind":"PersistentVolumeClaim","metadata":{"name":"work","namespace":"default",
         "uid":"u1","deletionTimestamp":"2026-01-01T00:00:00Z"},"spec":{"volumeName":"pv"}})";
  const std::string elsewhere =
      R"({"kind":"PersistentVolumeClaim","metadata":{"name":"work","namespace":"other",
         "uid":"u2"},"spec":{"volumeName":"pv"}})";
  EXPECT_EQ(refusal(true, ""), R"(persistentvolumeclaim "work" not found)");
  EXPECT_EQ(refusal(true, elsewhere), R"(persistentvolumeclaim "work" not found)")
      << "a claim is looked up in the pod's namespace";
  EXPECT_EQ(refusal(true, going), R"(persistentvolumeclaim "work" is being deleted)");
  EXPECT_EQ(refusal(false, going), R"(persistentvolumeclaim "work" is being deleted)");
  EXPECT_EQ(refusal(false, ""), "") << "a plan's snapshot: it may yet come";
}

// ReadWriteOncePod ("Persistent Volumes", access modes): one pod in the cluster may use such a
// claim; any other pod that mounts it fits nowhere while that one is there.
TEST(FitFiltersTest, VolumeRestrictions) {
  auto claim = [](const std::string& name, const std::string& mode) {
    return R"({"kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
           R"(","namespace":"default"},"spec":{"volumeName":"pv","accessModes":[")" + mode +
           "\"]}}";
  };
  auto mounts = [](const std::string& claim, const std::string& on = "") {
    return P(R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":")" + claim + "\"}}]",
             "{}", on);
  };
  const std::vector<std::string> taken = {filters::kReadWriteOncePodConflict};
  check("VolumeRestrictions",
        {
            {"no claim", {N("a")}, {}, P(), "a", {}},
            {"a ReadWriteOncePod claim nobody uses",
             {N("a"), N("b")},
             {},
             mounts("solo"),
             "a",
             {},
             false,
             {claim("solo", "ReadWriteOncePod")}},
            {"a ReadWriteOncePod claim another pod uses, on another node",
             {N("a"), N("b")},
             {mounts("solo", "b")},
             mounts("solo"),
             "a",
             taken,
             false,
             {claim("solo", "ReadWriteOncePod")}},
            {"and on the same node",
             {N("a"), N("b")},
             {mounts("solo", "b")},
             mounts("solo"),
             "b",
             taken,
             false,
             {claim("solo", "ReadWriteOncePod")}},
            {"a ReadWriteOnce claim is shared on any node (its node is the kubelet's matter)",
             {N("a"), N("b")},
             {mounts("shared", "b")},
             mounts("shared"),
             "a",
             {},
             false,
             {claim("shared", "ReadWriteOnce")}},
        });
}

// A node capability is what the node has at all, not what its pods leave: a node whose one GPU
// is in use still has a GPU; one without the resource, or with less, lacks it.
TEST(FitFiltersTest, LacksCapacityReadsAllocatableNotRoom) {
  Snapshot snapshot;
  snapshot.add_node(
      json::parse(N("gpu", "", "{}", R"({"cpu":"4","nvidia.com/gpu":"1"})")).as_object());
  snapshot.add_node(json::parse(N("plain")).as_object());
  snapshot.add_pod(
      json::parse(
          P(R"("containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"1"}}}])", "{}",
            "gpu"))
          .as_object());
  const std::vector<std::pair<std::string, int64_t>> one_gpu{{"nvidia.com/gpu", 1}};
  const std::vector<std::pair<std::string, int64_t>> two_gpus{{"nvidia.com/gpu", 2}};
  for (const NodeInfo& node : snapshot.nodes()) {
    if (node.name == "gpu") {
      EXPECT_EQ(lacks_capacity(node, one_gpu), "");
      EXPECT_EQ(lacks_capacity(node, two_gpus), "Insufficient nvidia.com/gpu");
    } else {
      EXPECT_EQ(lacks_capacity(node, one_gpu), "Insufficient nvidia.com/gpu");
    }
  }
}

TEST(FitResourcesTest, AmountsAreRoundedUpAndSumsSaturate) {
  json::object list = json::parse(R"({"cpu":"0.1","memory":"1.5Gi","nvidia.com/gpu":2,
                                      "example.com/odd":"1.2","pods":"10"})")
                          .as_object();
  Resources r = resources_of(&list);
  EXPECT_EQ(r.milli_cpu, 100) << "0.1 is 100m, not 101m";
  EXPECT_EQ(r.memory, 1610612736);
  EXPECT_EQ(r.get("nvidia.com/gpu"), 2);
  EXPECT_EQ(r.get("example.com/odd"), 2) << "Value() rounds up";
  EXPECT_EQ(r.get("pods"), 0) << "pods is a slot count, not a request";
  Resources huge = r.times(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(huge.memory, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(resources_text(r), "100m cpu, 1.5Gi, 2 example.com/odd, 2 nvidia.com/gpu");
}

TEST(FitDiagnosisTest, SaidAsKubeSchedulersFitError) {
  Diagnosis d;
  d.add(Status{"", {"Insufficient nvidia.com/gpu"}, false});
  d.add(Status{"", {"Insufficient nvidia.com/gpu"}, false});
  d.add(Status{"", {"node(s) had untolerated taint {gpu: only}"}, true});
  EXPECT_EQ(d.message(3),
            "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: only}, 2 "
            "Insufficient nvidia.com/gpu.");
}

}  // namespace
}  // namespace planter::fit
