#include "sim/fleet.h"

#include <boost/json/serialize.hpp>
#include <charconv>
#include <set>

#include "model/base64.h"
#include "model/yaml.h"
#include "sim/json_access.h"
#include "sim/state_dir.h"
#include "sim/tls.h"
#include "sim/workloads/node_operators.h"

namespace planter::sim {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

// planter's CRDs (deploy/crds) and Cluster API's Cluster CRD, embedded at build time.
constexpr std::string_view kManagementCrds[] = {
#include "sim/management_crds.inc"
};

std::optional<double> number(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The two kinds of Cluster the provisioner serves.
struct ClusterKind {
  const char* storage_key;
  const char* api_version;
  const char* base_path;  // of its resource, below which "namespaces/<ns>/clusters/<name>"
  bool cluster_api;
};
constexpr ClusterKind kClusterKinds[] = {
    {"planter.nephio.org/clusters", "planter.nephio.org/v1alpha1",
     "/apis/planter.nephio.org/v1alpha1", false},
    {"cluster.x-k8s.io/clusters", "cluster.x-k8s.io/v1beta1", "/apis/cluster.x-k8s.io/v1beta1",
     true},
};

constexpr std::string_view kFaultAnnotation = "sim.planter.io/";

// The CRDs every workload cluster the sim provisions starts with: the proof of concept's Network
// (deploy/crds), as a provisioner that installs the network add-on leaves a cluster.
constexpr std::string_view kWorkloadCrds[] = {
#include "sim/workload_crds.inc"
};

// Where a planter Cluster's node pools find their configurations (its own namespace).
constexpr const char* kKernelConfigs = "planter.nephio.org/kernelconfigs";
constexpr const char* kMemoryConfigs = "planter.nephio.org/memoryconfigs";

void install(Cluster& cluster, std::string_view text, const char* what) {
  auto docs = parse_yaml_stream(text, what);
  if (!docs || docs->empty() || !docs->front().value.is_object()) return;
  json::value copy(docs->front().value, json::storage_ptr());
  cluster.install_crd(std::move(copy.as_object()));
}

}  // namespace

std::optional<Error> parse_fault(std::string_view setting, std::string_view value, Faults& f) {
  auto ms = [](double v) { return milliseconds(static_cast<int64_t>(v)); };
  if (setting == "latency") {
    size_t comma = value.find(',');
    auto base = number(value.substr(0, comma));
    auto jitter = comma == std::string_view::npos ? std::optional<double>(0)
                                                  : number(value.substr(comma + 1));
    if (!base || !jitter || *base < 0 || *jitter < 0)
      return Error{"latency: want MILLISECONDS[,JITTER] (e.g. 50,10), got \"" + std::string(value) +
                   "\""};
    f.latency = ms(*base);
    f.jitter = ms(*jitter);
  } else if (setting == "write-latency") {
    auto v = number(value);
    if (!v || *v < 0)
      return Error{"write-latency: want MILLISECONDS, got \"" + std::string(value) + "\""};
    f.write_latency = ms(*v);
  } else if (setting == "error-rate") {
    auto v = number(value);
    if (!v || *v < 0 || *v > 1)
      return Error{"error-rate: want a share between 0 and 1 (e.g. 0.2), got \"" +
                   std::string(value) + "\""};
    f.error_rate = *v;
  } else if (setting == "watch-drop") {
    auto v = number(value);
    if (!v || *v < 0)
      return Error{"watch-drop: want SECONDS (0: never), got \"" + std::string(value) + "\""};
    f.watch_drop = ms(*v * 1000);
  } else if (setting == "down") {
    if (value != "true" && value != "false")
      return Error{"down: want true or false, got \"" + std::string(value) + "\""};
    f.down = value == "true";
  } else {
    return Error{"unknown fault \"" + std::string(setting) +
                 "\" (known: latency, write-latency, error-rate, watch-drop, down)"};
  }
  return std::nullopt;
}

// The provisioning controller of one cluster (the host): watches both Cluster kinds there and
// brings up a workload cluster for each, its kubeconfig Secret on the host. Every cluster has one,
// so a Cluster object on a workload cluster (a regional management cluster's far edge) is
// provisioned as one on the management cluster is.
struct Fleet::Provisioner {
  Fleet& fleet;
  std::string host_name;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::vector<uint64_t> watch_ids;
  std::set<std::string> pending;               // owner keys waiting for --provision-delay
  std::map<std::string, std::string>& owners;  // the fleet's
  // planter Clusters (namespace, name) whose node pools wait for a configuration.
  std::set<std::pair<std::string, std::string>> waiting_for_configuration;

  Provisioner(Fleet& f, std::string host)
      : fleet(f), host_name(std::move(host)), owners(f.owners_) {}
  ~Provisioner() {
    *alive = false;
    if (auto host = fleet.find(host_name))
      for (uint64_t id : watch_ids) host->store().remove_watch(id);
  }

  Cluster& host() { return *fleet.find(host_name); }

  void start() {
    for (const auto& kind : kClusterKinds) {
      const ClusterKind* k = &kind;
      watch_ids.push_back(host().store().add_watch(kind.storage_key, [this, k](const Change& ch) {
        std::string ns = ch.ns, name = meta_string(*ch.object, "name");
        auto live = alive;
        // Later on the loop: never write while the store is telling its watchers.
        fleet.env_.after(milliseconds(0), [this, live, k, ns, name] {
          if (*live) reconcile(*k, ns, name);
        });
      }));
    }
    // A configuration appeared or changed: the Clusters waiting for one try again.
    for (const char* key : {kKernelConfigs, kMemoryConfigs})
      watch_ids.push_back(host().store().add_watch(key, [this](const Change&) {
        auto live = alive;
        fleet.env_.after(milliseconds(0), [this, live] {
          if (!*live) return;
          auto waiting = waiting_for_configuration;
          for (const auto& [ns, name] : waiting) reconcile(kClusterKinds[0], ns, name);
        });
      }));
    // Clusters provisioned before a restart come back at once.
    for (const auto& kind : kClusterKinds) {
      std::vector<std::pair<std::string, std::string>> existing;
      for (const auto& [_, obj] : host().store().bucket(kind.storage_key))
        existing.emplace_back(meta_string(*obj, "namespace"), meta_string(*obj, "name"));
      for (const auto& [ns, name] : existing) reconcile(kind, ns, name);
    }
  }

  std::string owner_key(const ClusterKind& k, const std::string& ns,
                        const std::string& name) const {
    return (host_name == "management" ? "" : host_name + "|") + std::string(k.storage_key) + "|" +
           ns + "|" + name;
  }

  // An owner key in a person's words: "Cluster default/edge1 (planter.nephio.org) on cluster
  // regional".
  static std::string holder_words(const std::string& owner) {
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      size_t bar = owner.find('|', at);
      parts.push_back(owner.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    if (parts.size() < 3) return owner;
    size_t n = parts.size();
    std::string group = parts[n - 3].substr(0, parts[n - 3].find('/'));
    std::string words = "Cluster " + parts[n - 2] + "/" + parts[n - 1] + " (" + group + ")";
    return n > 3 ? words + " on cluster " + parts[0] : words;
  }

  static std::string path_of(const ClusterKind& k, const std::string& ns, const std::string& name) {
    return std::string(k.base_path) + "/namespaces/" + ns + "/clusters/" + name;
  }

  Response write(std::string method, std::string path, std::string content_type,
                 const json::object& body, std::map<std::string, std::string> query = {}) {
    return host().call(std::move(method), std::move(path), std::move(content_type), body,
                       "system:serviceaccount:capi-system:capi-controller-manager",
                       "manager/v1.9.0 (linux/amd64) planter-sim", std::move(query));
  }

  static bool provisioned(const ClusterKind& k, const json::object& obj) {
    const json::object* st = object_at(&obj, "status");
    if (k.cluster_api) return string_at(st, "phase") == "Provisioned";
    auto* ready = st ? st->if_contains("ready") : nullptr;
    return ready && ready->is_bool() && ready->as_bool();
  }

  // The faults of a workload cluster: the flags', then its Cluster's annotations.
  Faults faults_for(const std::string& name, const json::object& obj) {
    auto it = fleet.options_.cluster_faults.find(name);
    Faults f =
        it != fleet.options_.cluster_faults.end() ? it->second : fleet.options_.cluster.faults;
    const json::object* annotations = object_at(object_at(&obj, "metadata"), "annotations");
    if (annotations)
      for (const auto& [key, value] : *annotations)
        if (key.starts_with(kFaultAnnotation) && value.is_string())
          (void)parse_fault(std::string_view(key).substr(kFaultAnnotation.size()),
                            value.as_string(), f);
    return f;
  }

  // What a pool's kernelConfig and memoryConfig give its nodes, read from the Cluster's
  // namespace (docs/node-configuration.md); the name of one that does not exist yet, so that
  // provisioning waits for it.
  std::optional<std::string> configure(NodePool& pool, const std::string& ns,
                                       const json::object& p) {
    if (std::string name = string_at(p, "kernelConfig"); !name.empty()) {
      StoredObject k = host().store().get(kKernelConfigs, ns, name);
      if (!k) return "KernelConfig " + ns + "/" + name;
      pool.configuration.merge(kernel_config_wants(*k));
    }
    if (std::string name = string_at(p, "memoryConfig"); !name.empty()) {
      StoredObject m = host().store().get(kMemoryConfigs, ns, name);
      if (!m) return "MemoryConfig " + ns + "/" + name;
      pool.configuration.merge(memory_config_wants(*m));
    }
    return std::nullopt;
  }

  // Node pools from a planter Cluster's spec.nodes; the sim's default otherwise. Sets `missing`
  // to a configuration a pool names that does not exist yet.
  std::vector<NodePool> node_pools(const json::object& obj, std::optional<std::string>& missing) {
    std::vector<NodePool> pools;
    const json::object* spec = object_at(&obj, "spec");
    auto* nodes = spec ? spec->if_contains("nodes") : nullptr;
    if (nodes && nodes->is_array())
      for (const auto& nv : nodes->as_array()) {
        if (!nv.is_object()) continue;
        NodePool pool;
        const json::object& p = nv.as_object();
        auto* count = p.if_contains("count");
        if (count && count->is_int64()) pool.count = static_cast<int>(count->as_int64());
        pool.name = string_at(p, "name");
        auto text = [](const json::value* v) -> std::string {
          if (v && v->is_string()) return std::string(v->as_string());
          if (v && v->is_int64()) return std::to_string(v->as_int64());
          return "";
        };
        pool.cpu = text(p.if_contains("cpu"));
        pool.memory = text(p.if_contains("memory"));
        pool.pods = static_cast<int>(int_at(&p, "pods"));
        if (const json::object* labels = object_at(&p, "labels"))
          for (const auto& [k, v] : *labels)
            if (v.is_string()) pool.labels[std::string(k)] = std::string(v.as_string());
        if (const json::object* resources = object_at(&p, "resources"))
          for (const auto& [k, v] : *resources) pool.resources[std::string(k)] = text(&v);
        if (auto* taints = p.if_contains("taints"); taints && taints->is_array())
          for (const auto& tv : taints->as_array())
            if (tv.is_object())
              pool.taints.push_back(NodeTaint{string_at(tv.as_object(), "key"),
                                              string_at(tv.as_object(), "value"),
                                              string_at(tv.as_object(), "effect")});
        if (auto absent = configure(pool, meta_string(obj, "namespace"), p); absent && !missing)
          missing = absent;
        pools.push_back(std::move(pool));
      }
    return pools.empty() ? fleet.options_.cluster.nodes : pools;
  }

  void reconcile(const ClusterKind& k, const std::string& ns, const std::string& name) {
    StoredObject obj = host().store().get(k.storage_key, ns, name);
    std::string owner = owner_key(k, ns, name);
    auto taken = owners.find(name);
    if (!obj || !meta_string(*obj, "deletionTimestamp").empty()) {
      if (!k.cluster_api) waiting_for_configuration.erase({ns, name});
      if (taken != owners.end() && taken->second == owner) {
        owners.erase(taken);
        fleet.drop_cluster(name);
        if (fleet.audit_)
          fleet.audit_->ready(fleet.env_.now(), host_name,
                              std::string(k.api_version) + "|Cluster|" + ns + "|" + name,
                              "removed");
      }
      return;
    }
    if (name == host_name || name == "management") {
      report_failure(k, *obj,
                     "a workload cluster cannot be named \"" + name + "\": that cluster exists");
      return;
    }
    if (taken != owners.end() && taken->second != owner) {
      report_failure(k, *obj,
                     "a workload cluster named \"" + name + "\" is already provisioned for " +
                         holder_words(taken->second));
      return;
    }
    if (taken != owners.end()) {
      std::shared_ptr<Cluster> cluster = fleet.find(name);
      cluster->faults() = faults_for(name, *obj);
      if (cluster->faults().down) cluster->end_watches();
      publish(k, *obj);
      return;
    }
    if (provisioned(k, *obj)) return provision(k, ns, name, false);
    if (k.cluster_api && string_at(object_at(&*obj, "status"), "phase").empty()) {
      json::object cur = *obj;
      cur["status"] = {
          {"phase", "Provisioning"}, {"infrastructureReady", false}, {"controlPlaneReady", false}};
      write("PUT", path_of(k, ns, name) + "/status", "application/json", cur);
    }
    if (!pending.insert(owner).second) return;
    auto live = alive;
    std::string uid = meta_string(*obj, "uid");
    const ClusterKind* kp = &k;
    fleet.env_.after(fleet.options_.provision_delay, [this, live, kp, ns, name, uid, owner] {
      if (!*live) return;
      pending.erase(owner);
      StoredObject cur = host().store().get(kp->storage_key, ns, name);
      if (!cur || meta_string(*cur, "uid") != uid ||
          !meta_string(*cur, "deletionTimestamp").empty())
        return;
      if (owners.contains(name)) return reconcile(*kp, ns, name);
      provision(*kp, ns, name, true);
    });
  }

  // Brings up the workload cluster of a Cluster object. `fresh`: a new one (audited as
  // provisioned), not one coming back after a restart.
  void provision(const ClusterKind& k, const std::string& ns, const std::string& name, bool fresh) {
    StoredObject obj = host().store().get(k.storage_key, ns, name);
    if (!obj) return;
    ClusterOptions options = fleet.options_.cluster;
    options.faults = faults_for(name, *obj);
    if (!k.cluster_api) {
      std::optional<std::string> missing;
      options.nodes = node_pools(*obj, missing);
      // A real provisioner makes no node without its configuration: the Cluster waits, and is
      // provisioned when the configuration appears (start() watches them).
      if (missing && !fleet.clusters_.contains(name)) {
        waiting_for_configuration.insert({ns, name});
        return report_waiting(k, *obj, "waiting for " + *missing);
      }
      waiting_for_configuration.erase({ns, name});
    }
    auto cluster = fleet.make_cluster(name, std::move(options));
    if (!cluster->store().get("apiextensions.k8s.io/customresourcedefinitions", "",
                              "networks.planter.nephio.org"))
      for (std::string_view text : kWorkloadCrds) install(*cluster, text, "workload CRDs");
    owners[name] = owner_key(k, ns, name);
    publish(k, *obj);
    if (fresh && fleet.audit_)
      fleet.audit_->ready(fleet.env_.now(), host_name,
                          std::string(k.api_version) + "|Cluster|" + ns + "|" + name,
                          "provisioned");
    if (fleet.on_change) fleet.on_change();
  }

  // The kubeconfig Secret and the Cluster's status, as a provisioner leaves them.
  void publish(const ClusterKind& k, const json::object& obj) {
    std::string ns = meta_string(obj, "namespace"), name = meta_string(obj, "name");
    std::string secret = name + "-kubeconfig";
    json::object body{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"metadata",
         {{"name", secret},
          {"namespace", ns},
          {"labels", {{"cluster.x-k8s.io/cluster-name", name}}},
          {"ownerReferences", json::array{json::object{{"apiVersion", k.api_version},
                                                       {"kind", "Cluster"},
                                                       {"name", name},
                                                       {"uid", meta_string(obj, "uid")},
                                                       {"controller", true},
                                                       {"blockOwnerDeletion", true}}}}}},
        {"type", "cluster.x-k8s.io/secret"},
        {"data", {{"value", base64_encode(fleet.kubeconfig_of(name))}}}};
    write("PATCH", "/api/v1/namespaces/" + ns + "/secrets/" + secret,
          "application/apply-patch+yaml", body, {{"fieldManager", "manager"}});

    const json::object* old = object_at(&obj, "status");
    json::object st = old ? *old : json::object{};
    std::string t = rfc3339(fleet.env_.now());
    auto ready_condition = [&](const char* type) {
      if (const json::object* c = find_condition(old, type); c && string_at(c, "status") == "True")
        return *c;
      return json::object{{"type", type}, {"status", "True"}, {"lastTransitionTime", t}};
    };
    if (k.cluster_api) {
      st["phase"] = "Provisioned";
      st["infrastructureReady"] = true;
      st["controlPlaneReady"] = true;
      st["observedGeneration"] = object_at(&obj, "metadata")->contains("generation")
                                     ? object_at(&obj, "metadata")->at("generation")
                                     : json::value(1);
      st["conditions"] = json::array{ready_condition("Ready"), ready_condition("ControlPlaneReady"),
                                     ready_condition("InfrastructureReady")};
    } else {
      json::object cond = ready_condition("Ready");
      cond["reason"] = "Provisioned";
      cond["message"] = "provisioned by planter sim";
      st["ready"] = true;
      st["kubeconfigSecretRef"] = {{"name", secret}, {"namespace", ns}};
      st["context"] = name + "-admin@" + name;
      st["conditions"] = json::array{std::move(cond)};
    }
    if (old && *old == st) return;
    json::object cur = obj;
    cur["status"] = std::move(st);
    write("PUT", path_of(k, ns, name) + "/status", "application/json", cur);
  }

  // A planter Cluster whose node pools name a configuration that does not exist yet.
  void report_waiting(const ClusterKind& k, const json::object& obj, const std::string& message) {
    const json::object* old = object_at(&obj, "status");
    json::object st = old ? *old : json::object{};
    st["ready"] = false;
    json::object cond{{"type", "Ready"},
                      {"status", "False"},
                      {"reason", "WaitingForConfiguration"},
                      {"message", message}};
    if (const json::object* c = find_condition(old, "Ready");
        c && string_at(c, "status") == "False" && c->contains("lastTransitionTime"))
      cond["lastTransitionTime"] = c->at("lastTransitionTime");
    else
      cond["lastTransitionTime"] = rfc3339(fleet.env_.now());
    st["conditions"] = json::array{std::move(cond)};
    if (old && *old == st) return;
    json::object cur = obj;
    cur["status"] = std::move(st);
    write("PUT", path_of(k, meta_string(obj, "namespace"), meta_string(obj, "name")) + "/status",
          "application/json", cur);
  }

  void report_failure(const ClusterKind& k, const json::object& obj, const std::string& message) {
    const json::object* old = object_at(&obj, "status");
    json::object st = old ? *old : json::object{};
    if (k.cluster_api) {
      st["phase"] = "Failed";
      st["failureMessage"] = message;
    } else {
      st["ready"] = false;
      st["conditions"] = json::array{json::object{
          {"type", "Ready"}, {"status", "False"}, {"reason", "NameTaken"}, {"message", message}}};
    }
    if (old && *old == st) return;
    json::object cur = obj;
    cur["status"] = std::move(st);
    write("PUT", path_of(k, meta_string(obj, "namespace"), meta_string(obj, "name")) + "/status",
          "application/json", cur);
  }
};

Fleet::Fleet(FleetOptions options, Environment env, AuditLog* audit, Access access)
    : options_(std::move(options)),
      env_(std::move(env)),
      audit_(audit),
      access_(std::move(access)) {}

Fleet::~Fleet() {
  provisioners_.clear();
  for (auto& [_, c] : clusters_) c->shutdown();
}

std::shared_ptr<Cluster> Fleet::make_cluster(const std::string& name, ClusterOptions options) {
  if (auto it = clusters_.find(name); it != clusters_.end()) return it->second;
  std::optional<Snapshot> saved;
  if (state_) {
    auto loaded = state_->load(name);
    if (loaded) saved = std::move(loaded.value());
    // An unreadable saved state of a workload cluster: it starts afresh (start() checks the
    // management cluster's before serving).
  }
  auto cluster =
      std::make_shared<Cluster>(name, std::move(options), env_, audit_, saved ? &*saved : nullptr);
  if (state_) (void)state_->attach(name, cluster->store());
  clusters_[name] = cluster;
  {
    std::lock_guard lock(order_mutex_);
    order_.push_back(name);
  }
  start_provisioner(name);
  return cluster;
}

void Fleet::start_provisioner(const std::string& host) {
  auto& p = provisioners_[host];
  p = std::make_unique<Provisioner>(*this, host);
  p->start();
}

void Fleet::drop_cluster(const std::string& name) {
  auto it = clusters_.find(name);
  if (it == clusters_.end() || name == "management") return;
  auto cluster = it->second;
  provisioners_.erase(name);  // what it provisioned stays (its infrastructure is elsewhere)
  clusters_.erase(it);
  {
    std::lock_guard lock(order_mutex_);
    std::erase(order_, name);
  }
  cluster->shutdown();
  if (state_) state_->remove(name, cluster->store());
  if (on_change) on_change();
}

std::optional<Error> Fleet::start() {
  std::optional<Snapshot> saved;
  if (!options_.state_dir.empty()) {
    auto dir = StateDir::open(options_.state_dir);
    if (!dir) return dir.error();
    state_ = std::move(dir.value());
    auto loaded = state_->load("management");
    if (!loaded) return loaded.error();
    saved = std::move(loaded.value());
  }
  ClusterOptions mgmt_options = options_.cluster;
  if (auto it = options_.cluster_faults.find("management"); it != options_.cluster_faults.end())
    mgmt_options.faults = it->second;
  auto mgmt = std::make_shared<Cluster>("management", std::move(mgmt_options), env_, audit_,
                                        saved ? &*saved : nullptr);
  if (!saved) {
    for (std::string_view text : kManagementCrds) {
      auto docs = parse_yaml_stream(text, "management CRDs");
      if (!docs || docs->empty() || !docs->front().value.is_object())
        return Error{"the embedded management CRDs do not parse"};
      json::value copy(docs->front().value, json::storage_ptr());
      mgmt->install_crd(std::move(copy.as_object()));
    }
  }
  if (state_)
    if (auto err = state_->attach("management", mgmt->store())) return err;
  clusters_["management"] = mgmt;
  {
    std::lock_guard lock(order_mutex_);
    order_.insert(order_.begin(), "management");
  }
  start_provisioner("management");
  Provisioner& provisioner = *provisioners_.at("management");
  // --clusters N: edge1..edgeN, each with its planter Cluster in the default namespace.
  const ClusterKind& planter_kind = kClusterKinds[0];
  for (int i = 1; i <= options_.clusters; ++i) {
    std::string name = "edge" + std::to_string(i);
    if (!mgmt->store().get(planter_kind.storage_key, "default", name)) {
      json::object obj{{"apiVersion", planter_kind.api_version},
                       {"kind", "Cluster"},
                       {"metadata",
                        {{"name", name},
                         {"namespace", "default"},
                         {"labels", {{"sim.planter.io/index", std::to_string(i)}}}}},
                       {"spec", json::object{}}};
      Response r = provisioner.write(
          "POST", std::string(planter_kind.base_path) + "/namespaces/default/clusters",
          "application/json", obj);
      if (r.status >= 300) return Error{"cannot create Cluster " + name + ": " + r.body};
    }
    if (!owners_.contains(name)) provisioner.provision(planter_kind, "default", name, true);
  }
  return std::nullopt;
}

std::shared_ptr<Cluster> Fleet::find(std::string_view name) const {
  auto it = clusters_.find(name);
  return it == clusters_.end() ? nullptr : it->second;
}

std::vector<std::string> Fleet::names() const {
  std::lock_guard lock(order_mutex_);
  return order_;
}

std::string Fleet::kubeconfig() const {
  json::array clusters, contexts;
  for (const auto& name : names()) {
    json::object cluster{
        {"server", access_.url + (name == "management" ? "" : "/clusters/" + name)}};
    if (!access_.ca_pem.empty())
      cluster["certificate-authority-data"] = base64_encode(access_.ca_pem);
    clusters.push_back({{"name", name}, {"cluster", std::move(cluster)}});
    contexts.push_back({{"name", name}, {"context", {{"cluster", name}, {"user", "planter-sim"}}}});
  }
  json::value config =
      json::object{{"apiVersion", "v1"},
                   {"kind", "Config"},
                   {"preferences", json::object{}},
                   {"clusters", std::move(clusters)},
                   {"contexts", std::move(contexts)},
                   {"current-context", "management"},
                   {"users", {{{"name", "planter-sim"}, {"user", {{"token", access_.token}}}}}}};
  return to_yaml(config);
}

std::string Fleet::kubeconfig_of(const std::string& name) const {
  json::object cluster{{"server", access_.url + "/clusters/" + name}};
  if (!access_.ca_pem.empty())
    cluster["certificate-authority-data"] = base64_encode(access_.ca_pem);
  std::string user = name + "-admin";
  std::string context = user + "@" + name;
  json::value config = json::object{
      {"apiVersion", "v1"},
      {"kind", "Config"},
      {"preferences", json::object{}},
      {"clusters", json::array{json::object{{"name", name}, {"cluster", std::move(cluster)}}}},
      {"contexts", json::array{json::object{{"name", context},
                                            {"context", {{"cluster", name}, {"user", user}}}}}},
      {"current-context", context},
      {"users", json::array{json::object{{"name", user}, {"user", {{"token", access_.token}}}}}}};
  return to_yaml(config);
}

}  // namespace planter::sim
