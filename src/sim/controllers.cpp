#include "sim/controllers.h"

#include <boost/json/serialize.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/audit.h"
#include "sim/cluster.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

// Every key=value of `selector` is among `labels`; an empty selector selects nothing (a Service
// without a selector has its endpoints managed by someone else).
bool selects(const json::object* selector, const json::object* labels) {
  if (!selector || selector->empty()) return false;
  for (const auto& [k, v] : *selector) {
    auto* l = labels ? labels->if_contains(k) : nullptr;
    if (!l || *l != v) return false;
  }
  return true;
}

// A short stable hash for names ("web-7c9f5"), as controllers derive ReplicaSet and revision
// names.
std::string short_hash(std::string_view s, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  static const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (size_t i = 0; i < len; ++i, h /= 27) out += alphabet[h % 27];
  return out;
}

std::string object_id(std::string_view api_version, std::string_view kind, std::string_view ns,
                      std::string_view name) {
  std::string id(api_version);
  id.append("|").append(kind).append("|").append(ns).append("|").append(name);
  return id;
}

enum class Kind { kDeployment, kStatefulSet, kDaemonSet, kPod, kService, kAPIService };

struct WorkloadType {
  Kind kind;
  const char* storage_key;
  const char* path;  // below /apis/apps/v1/namespaces/<ns>/
  const char* name;
  const char* controller;  // the service account its status writes come from
};
constexpr WorkloadType kWorkloads[] = {
    {Kind::kDeployment, "apps/deployments", "deployments", "Deployment", "deployment-controller"},
    {Kind::kStatefulSet, "apps/statefulsets", "statefulsets", "StatefulSet",
     "statefulset-controller"},
    {Kind::kDaemonSet, "apps/daemonsets", "daemonsets", "DaemonSet", "daemon-set-controller"},
};
const WorkloadType& workload(Kind k) {
  for (const auto& w : kWorkloads)
    if (w.kind == k) return w;
  return kWorkloads[0];
}

// A ready endpoint behind a Service.
struct Backend {
  std::string ip;
  std::string node;
  const json::object* pod_spec = nullptr;  // for named target ports
};

}  // namespace

struct Controllers::Impl {
  Cluster& c;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::vector<uint64_t> watch_ids;
  std::set<std::tuple<Kind, std::string, std::string>> queue;  // kind, namespace, name
  bool flush_scheduled = false;
  std::set<std::string> timers;            // "kind/ns/name@generation" waiting to be ready
  std::map<std::string, std::string> ips;  // "uid#replica" -> pod IP
  uint64_t next_pod_ip = 0;
  size_t next_node = 0;

  explicit Impl(Cluster& cluster) : c(cluster) {}

  std::string now() const { return rfc3339(c.environment().now()); }

  void ready_event(const std::string& id, std::string_view what) {
    if (c.audit()) c.audit()->ready(c.environment().now(), c.name(), id, what);
  }

  // ---- the queue ----

  void enqueue(Kind kind, std::string ns, std::string name) {
    queue.emplace(kind, std::move(ns), std::move(name));
    if (flush_scheduled) return;
    flush_scheduled = true;
    auto live = alive;
    c.environment().after(milliseconds(0), [this, live] {
      if (*live) flush();
    });
  }

  void flush() {
    flush_scheduled = false;
    auto work = std::move(queue);
    queue.clear();
    for (const auto& [kind, ns, name] : work) {
      switch (kind) {
        case Kind::kDeployment:
        case Kind::kStatefulSet:
        case Kind::kDaemonSet:
          reconcile_workload(workload(kind), ns, name);
          break;
        case Kind::kPod:
          reconcile_pod(ns, name);
          break;
        case Kind::kService:
          reconcile_service(ns, name);
          break;
        case Kind::kAPIService:
          reconcile_apiservice(name);
          break;
      }
    }
  }

  void enqueue_services(const std::string& ns) {
    const auto& b = c.store().bucket("/services");
    for (auto it = b.lower_bound(ns + "/"); it != b.end() && it->first.starts_with(ns + "/"); ++it)
      enqueue(Kind::kService, ns, meta_string(*it->second, "name"));
  }

  void enqueue_apiservices_of(const std::string& ns, const std::string& service) {
    for (const auto& [_, api] : c.store().bucket("apiregistration.k8s.io/apiservices")) {
      const json::object* svc = object_at(*api, "spec");
      svc = svc ? object_at(*svc, "service") : nullptr;
      if (svc && string_at(svc, "namespace") == ns && string_at(svc, "name") == service)
        enqueue(Kind::kAPIService, "", meta_string(*api, "name"));
    }
  }

  void watch(const std::string& storage_key, std::function<void(const Change&)> fn) {
    watch_ids.push_back(c.store().add_watch(storage_key, std::move(fn)));
  }

  void start() {
    ensure_nodes();
    for (const auto& w : kWorkloads) {
      Kind kind = w.kind;
      watch(w.storage_key, [this, kind](const Change& ch) {
        enqueue(kind, ch.ns, meta_string(*ch.object, "name"));
        enqueue_services(ch.ns);
      });
    }
    watch("/pods", [this](const Change& ch) {
      enqueue(Kind::kPod, ch.ns, meta_string(*ch.object, "name"));
      enqueue_services(ch.ns);
    });
    watch("/services", [this](const Change& ch) {
      enqueue(Kind::kService, ch.ns, meta_string(*ch.object, "name"));
    });
    watch("discovery.k8s.io/endpointslices", [this](const Change& ch) {
      const json::object* labels = object_at(*object_at(*ch.object, "metadata"), "labels");
      std::string service = string_at(labels, "kubernetes.io/service-name");
      if (!service.empty()) enqueue_apiservices_of(ch.ns, service);
    });
    watch("apiregistration.k8s.io/apiservices", [this](const Change& ch) {
      if (ch.type != EventType::kDeleted)
        enqueue(Kind::kAPIService, "", meta_string(*ch.object, "name"));
    });
    watch("/namespaces", [this](const Change& ch) {
      if (ch.type == EventType::kAdded)
        ready_event(object_id("v1", "Namespace", "", meta_string(*ch.object, "name")), "active");
    });
    watch("/nodes", [this](const Change&) {
      for (const auto& [_, ds] : c.store().bucket("apps/daemonsets"))
        enqueue(Kind::kDaemonSet, meta_string(*ds, "namespace"), meta_string(*ds, "name"));
    });
    // Catch up with everything already stored (a restored cluster).
    for (const auto& w : kWorkloads)
      for (const auto& [_, o] : c.store().bucket(w.storage_key))
        enqueue(w.kind, meta_string(*o, "namespace"), meta_string(*o, "name"));
    for (const auto& [_, o] : c.store().bucket("/pods"))
      enqueue(Kind::kPod, meta_string(*o, "namespace"), meta_string(*o, "name"));
    for (const auto& [_, o] : c.store().bucket("/services"))
      enqueue(Kind::kService, meta_string(*o, "namespace"), meta_string(*o, "name"));
    for (const auto& [_, o] : c.store().bucket("apiregistration.k8s.io/apiservices"))
      enqueue(Kind::kAPIService, "", meta_string(*o, "name"));
  }

  ~Impl() {
    *alive = false;
    for (uint64_t id : watch_ids) c.store().remove_watch(id);
  }

  // ---- writes, as the controllers' own users ----

  Response write(std::string method, std::string path, std::string content_type,
                 const json::object& body, std::string_view component,
                 std::map<std::string, std::string> query = {}) {
    // The default field manager is the user agent's program name.
    std::string program =
        component == "kube-scheduler" || component == "kubelet" || component == "kube-apiserver"
            ? std::string(component)
            : "kube-controller-manager";
    return c.call(std::move(method), std::move(path), std::move(content_type), body,
                  "system:serviceaccount:kube-system:" + std::string(component),
                  program + "/v1.32.0 (linux/amd64) kubernetes/planter-sim", std::move(query));
  }

  // Replaces the status of a stored object (PUT .../status), unless it is already `status`.
  void put_status(const std::string& path, const json::object& current, json::object status,
                  std::string_view component) {
    if (auto* old = current.if_contains("status"); old && *old == status) return;
    json::object obj = current;
    obj["status"] = std::move(status);
    write("PUT", path + "/status", "application/json", obj, component);
  }

  // A condition as controllers write it; the times stay as they were while nothing changes.
  json::object condition(const json::object* old_status, std::string_view type,
                         std::string_view status, std::string_view reason, std::string_view message,
                         bool update_time = false) {
    const json::object* old = find_condition(old_status, type);
    if (old && string_at(old, "status") == status && string_at(old, "reason") == reason &&
        string_at(old, "message") == message)
      return *old;
    json::object cond{{"type", type}, {"status", status}};
    std::string t = now();
    if (update_time) cond["lastUpdateTime"] = t;
    cond["lastTransitionTime"] = t;
    cond["reason"] = reason;
    cond["message"] = message;
    return cond;
  }

  // ---- nodes ----

  void ensure_nodes() {
    int index = 0;
    const auto& opts = c.options();
    for (const auto& pool : opts.nodes) {
      for (int i = 0; i < pool.count; ++i) {
        ++index;
        std::string name = c.name() + "-node-" + std::to_string(index);
        if (c.store().get("/nodes", "", name)) continue;
        json::object labels{{"kubernetes.io/hostname", name},
                            {"kubernetes.io/os", "linux"},
                            {"kubernetes.io/arch", "amd64"},
                            {"node.kubernetes.io/instance-type", "planter-sim"}};
        if (index == 1) labels["node-role.kubernetes.io/control-plane"] = "";
        for (const auto& [k, v] : pool.labels) labels[k] = v;
        std::string ip =
            "172.18." + std::to_string(index / 250) + "." + std::to_string(index % 250 + 1);
        json::object resources{{"cpu", opts.node_cpu},
                               {"memory", opts.node_memory},
                               {"pods", "110"},
                               {"ephemeral-storage", "100Gi"}};
        std::string t = now();
        auto cond = [&](const char* type, const char* status, const char* reason,
                        const char* message) {
          return json::object{{"type", type},           {"status", status},
                              {"lastHeartbeatTime", t}, {"lastTransitionTime", t},
                              {"reason", reason},       {"message", message}};
        };
        json::object node{
            {"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
            {"spec",
             {{"podCIDR", "10.244." + std::to_string(index) + ".0/24"},
              {"podCIDRs", json::array{json::value("10.244." + std::to_string(index) + ".0/24")}}}},
            {"status",
             {{"capacity", resources},
              {"allocatable", resources},
              {"conditions",
               json::array{
                   cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                        "kubelet has sufficient memory available"),
                   cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                        "kubelet has no disk pressure"),
                   cond("PIDPressure", "False", "KubeletHasSufficientPID",
                        "kubelet has sufficient PID available"),
                   cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
              {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", ip}},
                                        json::object{{"type", "Hostname"}, {"address", name}}}},
              {"nodeInfo",
               {{"architecture", "amd64"},
                {"bootID", short_hash(name + "boot", 16)},
                {"containerRuntimeVersion", "containerd://1.7.24"},
                {"kernelVersion", "6.1.0-planter-sim"},
                {"kubeProxyVersion", "v1.32.0"},
                {"kubeletVersion", "v1.32.0"},
                {"machineID", short_hash(name + "machine", 16)},
                {"operatingSystem", "linux"},
                {"osImage", "planter sim"},
                {"systemUUID", short_hash(name + "uuid", 16)}}}}}};
        write("POST", "/api/v1/nodes", "application/json", node, "kubelet");
      }
    }
  }

  std::vector<std::pair<std::string, const json::object*>> nodes() {
    std::vector<std::pair<std::string, const json::object*>> out;
    for (const auto& [_, n] : c.store().bucket("/nodes")) {
      const json::object* m = object_at(*n, "metadata");
      out.emplace_back(string_at(m, "name"), object_at(*m, "labels"));
    }
    return out;
  }

  std::string node_ip(const std::string& node) {
    StoredObject n = c.store().get("/nodes", "", node);
    const json::object* st = n ? object_at(*n, "status") : nullptr;
    if (auto* a = st ? st->if_contains("addresses") : nullptr; a && a->is_array())
      for (const auto& addr : a->as_array())
        if (addr.is_object() && string_at(&addr.as_object(), "type") == "InternalIP")
          return string_at(&addr.as_object(), "address");
    return "";
  }

  std::string pod_ip(const std::string& key) {
    auto [it, fresh] = ips.try_emplace(key);
    if (fresh) {
      uint64_t n = next_pod_ip++;
      it->second = "10.244." + std::to_string(1 + n / 250) + "." + std::to_string(2 + n % 250);
    }
    return it->second;
  }

  // ---- workloads ----

  static std::string workload_path(const WorkloadType& w, const std::string& ns,
                                   const std::string& name) {
    return "/apis/apps/v1/namespaces/" + ns + "/" + w.path + "/" + name;
  }

  int64_t desired_replicas(const WorkloadType& w, const json::object& obj) {
    const json::object* spec = object_at(obj, "spec");
    if (w.kind != Kind::kDaemonSet) return int_at(spec, "replicas", 1);
    // A DaemonSet runs on every node its node selector admits.
    const json::object* tmpl = spec ? object_at(*spec, "template") : nullptr;
    const json::object* pod_spec = tmpl ? object_at(*tmpl, "spec") : nullptr;
    const json::object* selector = pod_spec ? object_at(*pod_spec, "nodeSelector") : nullptr;
    int64_t n = 0;
    for (const auto& [_, labels] : nodes())
      if (!selector || selector->empty() || selects(selector, labels)) ++n;
    return n;
  }

  int64_t ready_replicas(const WorkloadType& w, const json::object& obj) {
    const json::object* st = object_at(obj, "status");
    return int_at(st, w.kind == Kind::kDaemonSet ? "numberReady" : "readyReplicas");
  }

  // The status a workload's controller writes: `ready` of `want` replicas ready at `gen`.
  json::object workload_status(const WorkloadType& w, const json::object& obj, int64_t gen,
                               int64_t want, bool ready) {
    const json::object* old = object_at(obj, "status");
    std::string name = meta_string(obj, "name");
    json::object st;
    int64_t n = ready ? want : 0;
    auto set_count = [&](const char* key, int64_t v) {
      if (v != 0) st[key] = v;  // the API omits zero counts
    };
    switch (w.kind) {
      case Kind::kDeployment: {
        std::string rs = name + "-" + short_hash(name + std::to_string(gen), 10);
        st["observedGeneration"] = gen;
        set_count("replicas", want);
        set_count("updatedReplicas", want);
        set_count("readyReplicas", n);
        set_count("availableReplicas", n);
        set_count("unavailableReplicas", want - n);
        json::array conds;
        if (ready)
          conds.push_back(condition(old, "Available", "True", "MinimumReplicasAvailable",
                                    "Deployment has minimum availability.", true));
        else
          conds.push_back(condition(old, "Available", "False", "MinimumReplicasUnavailable",
                                    "Deployment does not have minimum availability.", true));
        if (ready)
          conds.push_back(condition(old, "Progressing", "True", "NewReplicaSetAvailable",
                                    "ReplicaSet \"" + rs + "\" has successfully progressed.",
                                    true));
        else
          conds.push_back(condition(old, "Progressing", "True", "ReplicaSetUpdated",
                                    "ReplicaSet \"" + rs + "\" is progressing.", true));
        st["conditions"] = std::move(conds);
        break;
      }
      case Kind::kStatefulSet: {
        std::string revision = name + "-" + short_hash(name + std::to_string(gen), 10);
        st["observedGeneration"] = gen;
        st["replicas"] = want;
        set_count("readyReplicas", n);
        set_count("currentReplicas", n);
        set_count("updatedReplicas", n);
        set_count("availableReplicas", n);
        std::string previous = string_at(old, "currentRevision");
        st["currentRevision"] = ready || previous.empty() ? revision : previous;
        st["updateRevision"] = revision;
        st["collisionCount"] = 0;
        break;
      }
      case Kind::kDaemonSet:
        st["currentNumberScheduled"] = want;
        st["desiredNumberScheduled"] = want;
        set_count("numberAvailable", n);
        st["numberMisscheduled"] = 0;
        st["numberReady"] = n;
        set_count("numberUnavailable", want - n);
        st["observedGeneration"] = gen;
        set_count("updatedNumberScheduled", want);
        break;
      default:
        break;
    }
    return st;
  }

  void reconcile_workload(const WorkloadType& w, const std::string& ns, const std::string& name) {
    StoredObject obj = c.store().get(w.storage_key, ns, name);
    if (!obj || !meta_string(*obj, "deletionTimestamp").empty()) return;
    int64_t gen = int_at(object_at(*obj, "metadata"), "generation", 1);
    int64_t want = desired_replicas(w, *obj);
    std::string path = workload_path(w, ns, name);
    const json::object* st = object_at(*obj, "status");
    bool done = int_at(st, "observedGeneration", -1) == gen && ready_replicas(w, *obj) == want &&
                (w.kind == Kind::kDaemonSet ? int_at(st, "desiredNumberScheduled") == want
                                            : int_at(st, "replicas") == want);
    if (done) return;
    put_status(path, *obj, workload_status(w, *obj, gen, want, false), w.controller);
    std::string timer = std::string(w.name) + "/" + ns + "/" + name + "@" + std::to_string(gen) +
                        "x" + std::to_string(want);
    if (!timers.insert(timer).second) return;
    auto live = alive;
    c.environment().after(c.options().workload_delay, [this, live, &w, ns, name, gen, want, timer] {
      if (!*live) return;
      timers.erase(timer);
      StoredObject cur = c.store().get(w.storage_key, ns, name);
      if (!cur || !meta_string(*cur, "deletionTimestamp").empty()) return;
      if (int_at(object_at(*cur, "metadata"), "generation", 1) != gen) return;
      if (desired_replicas(w, *cur) != want) return;
      put_status(workload_path(w, ns, name), *cur, workload_status(w, *cur, gen, want, true),
                 w.controller);
      ready_event(object_id("apps/v1", w.name, ns, name), "available");
    });
  }

  // ---- pods ----

  void reconcile_pod(const std::string& ns, const std::string& name) {
    StoredObject pod = c.store().get("/pods", ns, name);
    if (!pod || !meta_string(*pod, "deletionTimestamp").empty()) return;
    std::string path = "/api/v1/namespaces/" + ns + "/pods/" + name;
    const json::object* spec = object_at(*pod, "spec");
    std::string node = string_at(spec, "nodeName");
    if (node.empty()) {
      // The scheduler: the next node in turn (constraints come with the stack policies).
      auto all = nodes();
      if (all.empty()) return;
      node = all[next_node++ % all.size()].first;
      json::object bound = *pod;
      bound["spec"].as_object()["nodeName"] = node;
      Response r = write("PUT", path, "application/json", bound, "kube-scheduler");
      if (r.status >= 300) return;
      pod = c.store().get("/pods", ns, name);
      if (!pod) return;
      const json::object* old = object_at(*pod, "status");
      json::object st{{"phase", "Pending"},
                      {"conditions", json::array{condition(old, "PodScheduled", "True", "", "")}},
                      {"qosClass", "BestEffort"}};
      put_status(path, *pod, std::move(st), "kube-scheduler");
      pod = c.store().get("/pods", ns, name);
      if (!pod) return;
    }
    const json::object* st = object_at(*pod, "status");
    if (string_at(st, "phase") == "Running") return;
    std::string uid = meta_string(*pod, "uid");
    std::string timer = "Pod/" + ns + "/" + name + "@" + uid;
    if (!timers.insert(timer).second) return;
    auto live = alive;
    c.environment().after(c.options().workload_delay, [this, live, ns, name, uid, timer, path] {
      if (!*live) return;
      timers.erase(timer);
      StoredObject cur = c.store().get("/pods", ns, name);
      if (!cur || meta_string(*cur, "uid") != uid ||
          !meta_string(*cur, "deletionTimestamp").empty())
        return;
      put_status(path, *cur, running_status(*cur), "kubelet");
      ready_event(object_id("v1", "Pod", ns, name), "available");
      enqueue_services(ns);
    });
  }

  json::object running_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    const json::object* spec = object_at(pod, "spec");
    std::string t = now();
    json::array containers;
    if (auto* cs = spec ? spec->if_contains("containers") : nullptr; cs && cs->is_array())
      for (const auto& cv : cs->as_array()) {
        if (!cv.is_object()) continue;
        std::string cname = string_at(&cv.as_object(), "name");
        std::string image = string_at(&cv.as_object(), "image");
        containers.push_back(json::object{
            {"name", cname},
            {"image", image},
            {"imageID", image},
            {"containerID", "containerd://" + short_hash(meta_string(pod, "uid") + cname, 24)},
            {"ready", true},
            {"started", true},
            {"restartCount", 0},
            {"state", {{"running", {{"startedAt", t}}}}}});
      }
    std::string ip = pod_ip(meta_string(pod, "uid"));
    return json::object{
        {"phase", "Running"},
        {"conditions", json::array{condition(old, "PodReadyToStartContainers", "True", "", ""),
                                   condition(old, "Initialized", "True", "", ""),
                                   condition(old, "Ready", "True", "", ""),
                                   condition(old, "ContainersReady", "True", "", ""),
                                   condition(old, "PodScheduled", "True", "", "")}},
        {"hostIP", node_ip(string_at(spec, "nodeName"))},
        {"podIP", ip},
        {"podIPs", json::array{json::object{{"ip", ip}}}},
        {"startTime", t},
        {"containerStatuses", std::move(containers)},
        {"qosClass", "BestEffort"}};
  }

  static bool pod_ready(const json::object& pod) {
    return !string_at(object_at(pod, "status"), "podIP").empty() && condition_true(pod, "Ready");
  }

  // ---- services ----

  // The ready pods a Service selects: the ready replicas of the workloads whose pod template
  // it selects, and ready pods created directly.
  std::vector<Backend> backends(const std::string& ns, const json::object* selector) {
    std::vector<Backend> out;
    auto all_nodes = nodes();
    std::string prefix = ns + "/";
    for (const auto& w : kWorkloads) {
      const auto& b = c.store().bucket(w.storage_key);
      for (auto it = b.lower_bound(prefix); it != b.end() && it->first.starts_with(prefix); ++it) {
        const json::object& obj = *it->second;
        const json::object* spec = object_at(obj, "spec");
        const json::object* tmpl = spec ? object_at(*spec, "template") : nullptr;
        const json::object* tmeta = tmpl ? object_at(*tmpl, "metadata") : nullptr;
        if (!selects(selector, tmeta ? object_at(*tmeta, "labels") : nullptr)) continue;
        int64_t ready = ready_replicas(w, obj);
        std::string uid = meta_string(obj, "uid");
        for (int64_t i = 0; i < ready; ++i) {
          Backend be;
          be.ip = pod_ip(uid + "#" + std::to_string(i));
          if (!all_nodes.empty()) be.node = all_nodes[size_t(i) % all_nodes.size()].first;
          be.pod_spec = tmpl ? object_at(*tmpl, "spec") : nullptr;
          out.push_back(std::move(be));
        }
      }
    }
    const auto& pods = c.store().bucket("/pods");
    for (auto it = pods.lower_bound(prefix); it != pods.end() && it->first.starts_with(prefix);
         ++it) {
      const json::object* m = object_at(*it->second, "metadata");
      if (!selects(selector, m ? object_at(*m, "labels") : nullptr) || !pod_ready(*it->second))
        continue;
      const json::object* spec = object_at(*it->second, "spec");
      out.push_back(Backend{string_at(object_at(*it->second, "status"), "podIP"),
                            string_at(spec, "nodeName"), spec});
    }
    return out;
  }

  // A Service port's target: its targetPort, looked up among the containers' named ports when
  // it is a name; its port when absent.
  static int64_t target_port(const json::object& port, const std::vector<Backend>& backends) {
    auto* tp = port.if_contains("targetPort");
    if (tp && tp->is_int64()) return tp->as_int64();
    if (tp && tp->is_string()) {
      std::string name(tp->as_string());
      for (const auto& be : backends) {
        auto* cs = be.pod_spec ? be.pod_spec->if_contains("containers") : nullptr;
        if (!cs || !cs->is_array()) continue;
        for (const auto& cv : cs->as_array()) {
          auto* ports = cv.is_object() ? cv.as_object().if_contains("ports") : nullptr;
          if (!ports || !ports->is_array()) continue;
          for (const auto& pv : ports->as_array())
            if (pv.is_object() && string_at(&pv.as_object(), "name") == name)
              return int_at(&pv.as_object(), "containerPort");
        }
      }
    }
    return int_at(&port, "port");
  }

  static bool slice_ready(const json::object& slice) {
    auto* eps = slice.if_contains("endpoints");
    if (!eps || !eps->is_array()) return false;
    for (const auto& ep : eps->as_array()) {
      const json::object* cond = ep.is_object() ? object_at(ep.as_object(), "conditions") : nullptr;
      auto* r = cond ? cond->if_contains("ready") : nullptr;
      if (r && r->is_bool() && r->as_bool()) return true;
    }
    return false;
  }

  bool service_has_ready_endpoint(const std::string& ns, const std::string& service) {
    const auto& b = c.store().bucket("discovery.k8s.io/endpointslices");
    for (auto it = b.lower_bound(ns + "/"); it != b.end() && it->first.starts_with(ns + "/");
         ++it) {
      const json::object* m = object_at(*it->second, "metadata");
      if (string_at(m ? object_at(*m, "labels") : nullptr, "kubernetes.io/service-name") ==
              service &&
          slice_ready(*it->second))
        return true;
    }
    return false;
  }

  void reconcile_service(const std::string& ns, const std::string& name) {
    StoredObject svc = c.store().get("/services", ns, name);
    std::string endpoints_path = "/api/v1/namespaces/" + ns + "/endpoints/" + name;
    if (!svc) {
      // The EndpointSlices go with their owner (garbage collection); Endpoints have no owner.
      if (c.store().get("/endpoints", ns, name))
        write("DELETE", endpoints_path, "application/json", json::object{}, "endpoint-controller");
      return;
    }
    const json::object* spec = object_at(*svc, "spec");
    const json::object* selector = spec ? object_at(*spec, "selector") : nullptr;
    if (string_at(spec, "type") == "ExternalName" || !selector || selector->empty()) return;
    bool was_ready = service_has_ready_endpoint(ns, name);
    std::vector<Backend> ready = backends(ns, selector);

    json::array slice_ports, endpoint_ports;
    if (auto* ports = spec->if_contains("ports"); ports && ports->is_array())
      for (const auto& pv : ports->as_array()) {
        if (!pv.is_object()) continue;
        const auto& p = pv.as_object();
        std::string protocol = string_at(&p, "protocol");
        if (protocol.empty()) protocol = "TCP";
        json::object port{{"name", string_at(&p, "name")},
                          {"port", target_port(p, ready)},
                          {"protocol", protocol}};
        slice_ports.push_back(port);
        endpoint_ports.push_back(std::move(port));
      }
    json::array slice_endpoints, addresses;
    for (const auto& be : ready) {
      slice_endpoints.push_back(
          json::object{{"addresses", json::array{json::value(be.ip)}},
                       {"conditions", {{"ready", true}, {"serving", true}, {"terminating", false}}},
                       {"nodeName", be.node}});
      addresses.push_back(json::object{{"ip", be.ip}, {"nodeName", be.node}});
    }
    std::string uid = meta_string(*svc, "uid");
    json::object slice{
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         {{"name", name + "-" + short_hash(uid, 5)},
          {"namespace", ns},
          {"labels",
           {{"kubernetes.io/service-name", name},
            {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"}}},
          {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                       {"kind", "Service"},
                                                       {"name", name},
                                                       {"uid", uid},
                                                       {"controller", true},
                                                       {"blockOwnerDeletion", true}}}}}},
        {"addressType", "IPv4"},
        {"endpoints", std::move(slice_endpoints)},
        {"ports", std::move(slice_ports)}};
    write("PATCH",
          "/apis/discovery.k8s.io/v1/namespaces/" + ns + "/endpointslices/" +
              meta_string(slice, "name"),
          "application/apply-patch+yaml", slice, "endpointslice-controller",
          {{"fieldManager", "endpointslice-controller"}});
    json::object endpoints{{"apiVersion", "v1"},
                           {"kind", "Endpoints"},
                           {"metadata", {{"name", name}, {"namespace", ns}}},
                           {"subsets", json::array{}}};
    if (!addresses.empty())
      endpoints["subsets"].as_array().push_back(
          json::object{{"addresses", std::move(addresses)}, {"ports", std::move(endpoint_ports)}});
    write("PATCH", endpoints_path, "application/apply-patch+yaml", endpoints, "endpoint-controller",
          {{"fieldManager", "endpoint-controller"}});
    if (!ready.empty() && !was_ready)
      ready_event(object_id("v1", "Service", ns, name), "endpoints-ready");
  }

  // ---- APIServices ----

  void reconcile_apiservice(const std::string& name) {
    StoredObject api = c.store().get("apiregistration.k8s.io/apiservices", "", name);
    if (!api || !meta_string(*api, "deletionTimestamp").empty()) return;
    const json::object* old = object_at(*api, "status");
    const json::object* spec = object_at(*api, "spec");
    const json::object* svc = spec ? object_at(*spec, "service") : nullptr;
    json::object cond;
    if (!svc) {
      cond = condition(old, "Available", "True", "Local", "Local APIServices are always available");
    } else {
      std::string ns = string_at(svc, "namespace"), sname = string_at(svc, "name");
      std::string where = "service/" + sname + " in \"" + ns + "\"";
      if (!c.store().get("/services", ns, sname))
        cond = condition(old, "Available", "False", "ServiceNotFound", where + " is not present");
      else if (!service_has_ready_endpoint(ns, sname))
        cond = condition(old, "Available", "False", "MissingEndpoints",
                         "endpoints for " + where + " have no addresses");
      else
        cond = condition(old, "Available", "True", "Passed", "all checks passed");
    }
    bool was_available = condition_true(*api, "Available");
    bool available = string_at(&cond, "status") == "True";
    put_status("/apis/apiregistration.k8s.io/v1/apiservices/" + name, *api,
               json::object{{"conditions", json::array{std::move(cond)}}}, "kube-apiserver");
    if (available && !was_available)
      ready_event(object_id("apiregistration.k8s.io/v1", "APIService", "", name), "available");
  }
};

Controllers::Controllers(Cluster& cluster) : impl_(std::make_unique<Impl>(cluster)) {
  impl_->start();
}

Controllers::~Controllers() = default;

}  // namespace planter::sim
