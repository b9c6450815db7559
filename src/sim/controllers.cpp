#include "sim/controllers.h"

#include <boost/json/serialize.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/aggregated_apis.h"
#include "sim/audit.h"
#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

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

enum class Kind { kService, kAPIService };

// A ready endpoint behind a Service.
struct Backend {
  std::string ip;
  std::string node;
  const json::object* pod_spec = nullptr;  // for named target ports
};

}  // namespace

struct Controllers::Impl {
  Cluster& c;
  ControllerKit kit;
  std::set<std::tuple<Kind, std::string, std::string>> queue;  // kind, namespace, name
  bool flush_scheduled = false;
  std::vector<std::unique_ptr<WorkloadController>> workloads;

  explicit Impl(Cluster& cluster) : c(cluster), kit(cluster) {}

  void ready_event(const std::string& id, std::string_view what) { kit.ready_event(id, what); }

  // ---- the queue ----

  void enqueue(Kind kind, std::string ns, std::string name) {
    queue.emplace(kind, std::move(ns), std::move(name));
    if (flush_scheduled) return;
    flush_scheduled = true;
    kit.after(milliseconds(0), [this] { flush(); });
  }

  void flush() {
    flush_scheduled = false;
    auto work = std::move(queue);
    queue.clear();
    for (const auto& [kind, ns, name] : work) {
      switch (kind) {
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
    kit.watch(storage_key, std::move(fn));
  }

  void start() {
    workloads.push_back(start_node_lifecycle(kit));
    workloads.push_back(start_node_configuration(kit));
    if (c.options().kubelets) workloads.push_back(start_kubelet(kit));
    workloads.push_back(start_replicaset_controller(kit));
    workloads.push_back(start_deployment_controller(kit));
    workloads.push_back(start_statefulset_controller(kit));
    workloads.push_back(start_daemonset_controller(kit));
    workloads.push_back(start_job_controller(kit));
    workloads.push_back(start_pod_group_protection(kit));
    workloads.push_back(start_volume_controller(kit));
    workloads.push_back(start_resource_claim_controller(kit));
    workloads.push_back(start_dra_drivers(kit));
    workloads.push_back(start_compute_domain_controller(kit));
    workloads.push_back(start_custom_operators(kit));
    watch("/pods", [this](const Change& ch) { enqueue_services(ch.ns); });
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
        ready_event(audit_id("v1", "Namespace", "", meta_string(*ch.object, "name")), "active");
    });
    // Catch up with everything already stored (a restored cluster).
    for (const auto& [_, o] : c.store().bucket("/services"))
      enqueue(Kind::kService, meta_string(*o, "namespace"), meta_string(*o, "name"));
    for (const auto& [_, o] : c.store().bucket("apiregistration.k8s.io/apiservices"))
      enqueue(Kind::kAPIService, "", meta_string(*o, "name"));
  }

  ~Impl() { workloads.clear(); }

  Response write(std::string method, std::string path, std::string content_type,
                 const json::object& body, std::string_view component,
                 std::map<std::string, std::string> query = {}) {
    return kit.write(std::move(method), std::move(path), std::move(content_type), body, component,
                     std::move(query));
  }

  void put_status(const std::string& path, const json::object& current, json::object status,
                  std::string_view component) {
    kit.put_status(path, current, std::move(status), component);
  }

  json::object condition(const json::object* old_status, std::string_view type,
                         std::string_view status, std::string_view reason,
                         std::string_view message) {
    return kit.condition(old_status, type, status, reason, message);
  }

  // ---- services ----

  // The ready pods a Service selects: the ready replicas of the workloads whose pod template
  // it selects, and ready pods created directly.
  std::vector<Backend> backends(const std::string& ns, const json::object* selector) {
    std::vector<Backend> out;
    std::string prefix = ns + "/";
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
         {{"name", name + "-" + safe_hash(uid, 5)},
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
      ready_event(audit_id("v1", "Service", ns, name), "endpoints-ready");
  }

  // ---- APIServices ----

  void reconcile_apiservice(const std::string& name) {
    StoredObject api = c.store().get("apiregistration.k8s.io/apiservices", "", name);
    if (!api || !meta_string(*api, "deletionTimestamp").empty()) {
      c.serve_aggregated(aggregated_catalog_key(name), {});
      return;
    }
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
    // Available with a Service behind it: the sim answers for the group itself.
    std::vector<ResourceType> served;
    if (available && svc) {
      auto types = aggregated_resource_types(*api);
      if (types)
        served = std::move(types.value());
      else
        kit.events("kube-apiserver")
            .record(*api, "Warning", "SimKindsInvalid", types.error().message);
    }
    c.serve_aggregated(aggregated_catalog_key(name), std::move(served));
    put_status("/apis/apiregistration.k8s.io/v1/apiservices/" + name, *api,
               json::object{{"conditions", json::array{std::move(cond)}}}, "kube-apiserver");
    if (available && !was_available)
      ready_event(audit_id("apiregistration.k8s.io/v1", "APIService", "", name), "available");
  }
};

Controllers::Controllers(Cluster& cluster) : impl_(std::make_unique<Impl>(cluster)) {
  impl_->start();
}

Controllers::~Controllers() = default;

}  // namespace planter::sim
