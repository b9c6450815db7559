// NVIDIA's ComputeDomain controller (the DRA Driver for NVIDIA GPUs, resource.nvidia.com/v1beta1),
// as the sim plays it (docs/dra.md), reading ComputeDomains its own way. For each domain:
// - the ResourceClaimTemplate spec.channel.resourceClaimTemplate.name in its namespace, owned by
//   it (deleted with it), asking one device of class compute-domain-default-channel.nvidia.com,
//   the node's IMEX channel, with a config that names the domain and spec.channel.allocationMode;
// - status.nodes: the nodes where a pod that claims from that template is bound, each with its
//   cliqueID (the node's nvidia.com/gpu.clique), its index in the clique and its address,
//   NotReady until its IMEX daemon has started (--configure-delay after the first such pod was
//   bound there), then Ready; status.status Ready once numNodes of them are Ready (with
//   numNodes 0, once every listed node is), else NotReady.
// The channels themselves are published by the driver's kubelet plugin (dra_drivers.cpp). The
// workload pods are not held back while their daemon starts, as with the driver's
// IMEXDaemonsWithDNSNames (its default), and no daemon pods are made.
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/cache.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kDomains = "resource.nvidia.com/computedomains";
constexpr const char* kTemplates = "resource.k8s.io/resourceclaimtemplates";
constexpr const char* kComponent = "compute-domain-controller";
constexpr const char* kChannelClass = "compute-domain-default-channel.nvidia.com";

// Whether a pod's spec.resourceClaims names the template.
bool claims_from(const json::object& pod, const std::string& tmpl) {
  if (const json::array* refs = array_at(object_at(pod, "spec"), "resourceClaims"))
    for (const json::value& r : *refs)
      if (r.is_object() && string_at(r.get_object(), "resourceClaimTemplateName") == tmpl)
        return true;
  return false;
}

std::string internal_ip(const json::object* node) {
  if (const json::array* addresses = array_at(object_at(node, "status"), "addresses"))
    for (const json::value& a : *addresses)
      if (a.is_object() && string_at(a.get_object(), "type") == "InternalIP")
        return string_at(a.get_object(), "address");
  return {};
}

class ComputeDomainController : public WorkloadController {
 public:
  explicit ComputeDomainController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow(kDomains);
    queue_.follow_owned(kTemplates, "ComputeDomain");
    // A pod bound, or gone, changes the nodes of the domains of its namespace.
    kit_.watch("/pods", [this](const Change& ch) {
      in_namespace(kDomains, ch.ns,
                   [&](const json::object& cd) { queue_.add(ch.ns, meta_string(cd, "name")); });
    });
  }

 private:
  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject cd = kit_.store().get(kDomains, ns, name);
    if (!cd || !meta_string(*cd, "deletionTimestamp").empty()) return;
    const json::object* spec = object_at(*cd, "spec");
    const json::object* channel = object_at(spec, "channel");
    std::string tmpl = string_at(object_at(channel, "resourceClaimTemplate"), "name");
    if (tmpl.empty()) return;
    if (!kit_.store().get(kTemplates, ns, tmpl)) create_template(*cd, tmpl);
    write_status(*cd, tmpl);
  }

  void create_template(const json::object& cd, const std::string& tmpl) {
    std::string ns = meta_string(cd, "namespace"), uid = meta_string(cd, "uid");
    std::string mode = string_at(object_at(object_at(cd, "spec"), "channel"), "allocationMode");
    if (mode.empty()) mode = "Single";
    json::object parameters{{"apiVersion", "resource.nvidia.com/v1beta1"},
                            {"kind", "ComputeDomainChannelConfig"},
                            {"domainID", uid},
                            {"allocationMode", mode}};
    json::object claim_spec{
        {"devices",
         json::object{
             {"requests", json::array{json::object{
                              {"name", "channel"},
                              {"exactly", json::object{{"deviceClassName", kChannelClass}}}}}},
             {"config", json::array{json::object{
                            {"requests", json::array{"channel"}},
                            {"opaque", json::object{{"driver", "compute-domain.nvidia.com"},
                                                    {"parameters", std::move(parameters)}}}}}}}}};
    json::object body{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaimTemplate"},
        {"metadata",
         json::object{{"name", tmpl},
                      {"namespace", ns},
                      {"labels", json::object{{"resource.nvidia.com/computeDomain", uid}}},
                      {"ownerReferences",
                       json::array{json::object{{"apiVersion", "resource.nvidia.com/v1beta1"},
                                                {"kind", "ComputeDomain"},
                                                {"name", meta_string(cd, "name")},
                                                {"uid", uid},
                                                {"controller", true},
                                                {"blockOwnerDeletion", true}}}}}},
        {"spec", json::object{{"spec", std::move(claim_spec)}}}};
    kit_.write("POST", "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaimtemplates",
               "application/json", body, kComponent);
  }

  void write_status(const json::object& cd, const std::string& tmpl) {
    std::string ns = meta_string(cd, "namespace"), name = meta_string(cd, "name");
    std::string uid = meta_string(cd, "uid");
    std::set<std::string> nodes;
    in_namespace("/pods", ns, [&](const json::object& pod) {
      std::string node = string_at(object_at(pod, "spec"), "nodeName");
      if (!node.empty() && !sched::pod_finished(pod) && claims_from(pod, tmpl)) nodes.insert(node);
    });
    const json::object* old = object_at(cd, "status");
    std::set<std::string> were_ready;
    if (const json::array* listed = array_at(old, "nodes"))
      for (const json::value& n : *listed)
        if (n.is_object() && string_at(n.get_object(), "status") == "Ready")
          were_ready.insert(string_at(n.get_object(), "name"));
    json::array listed;
    std::map<std::string, int64_t> next_index;  // by clique
    int64_t ready = 0;
    for (const std::string& node : nodes) {
      StoredObject n = kit_.store().get("/nodes", "", node);
      std::string clique = n ? string_at(labels_of(*n), "nvidia.com/gpu.clique") : "";
      std::string key = uid + "/" + node;
      bool is_ready = were_ready.contains(node) || started_.contains(key);
      if (!is_ready && starting_.insert(key).second)
        kit_.after(kit_.cluster().options().configure_delay, [this, key, ns, name] {
          starting_.erase(key);
          started_.insert(key);
          queue_.add(ns, name);
        });
      ready += is_ready ? 1 : 0;
      listed.push_back(json::object{{"name", node},
                                    {"cliqueID", clique},
                                    {"index", next_index[clique]++},
                                    {"ipAddress", internal_ip(n ? n.get() : nullptr)},
                                    {"status", is_ready ? "Ready" : "NotReady"}});
    }
    int64_t wanted = int_at(object_at(cd, "spec"), "numNodes");
    bool domain_ready =
        wanted > 0 ? ready >= wanted : ready > 0 && ready == static_cast<int64_t>(nodes.size());
    json::object st{{"status", domain_ready ? "Ready" : "NotReady"}, {"nodes", std::move(listed)}};
    kit_.put_status(object_path(kDomains, cd), cd, std::move(st), kComponent);
  }

  // The objects of `storage_key` in namespace `ns` (the store keeps them by "<ns>/<name>").
  void in_namespace(const char* storage_key, const std::string& ns,
                    const std::function<void(const json::object&)>& visit) {
    const Store::Bucket& b = kit_.store().bucket(storage_key);
    std::string prefix = ns + "/";
    for (auto it = b.lower_bound(prefix); it != b.end() && it->first.starts_with(prefix); ++it)
      visit(*it->second);
  }

  ControllerKit& kit_;
  WorkQueue queue_;
  std::set<std::string> starting_;  // "<domain uid>/<node>": its IMEX daemon is starting
  std::set<std::string> started_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_compute_domain_controller(ControllerKit& kit) {
  return std::make_unique<ComputeDomainController>(kit);
}

}  // namespace planter::sim
