#include "sim/kube_scheduler/dynamic_resources.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

bool reserved_for(const json::object& claim, const std::string& pod_uid) {
  if (const json::array* list = array_at(object_at(claim, "status"), "reservedFor"))
    for (const json::value& r : *list)
      if (r.is_object() && string_at(r.get_object(), "uid") == pod_uid) return true;
  return false;
}

size_t reserved_count(const json::object& claim) {
  const json::array* list = array_at(object_at(claim, "status"), "reservedFor");
  return list ? list->size() : 0;
}

}  // namespace

DynamicResourcesCheck::DynamicResourcesCheck(const json::object& pod, const Store& store,
                                             DeviceCatalog& catalog, CelCache& cel)
    : pod_(pod), catalog_(catalog), cel_(cel) {
  read_extended();
  const json::array* refs = array_at(object_at(pod, "spec"), "resourceClaims");
  if (!refs || refs->empty()) return;
  std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  std::string uid = meta_string(pod, "uid");
  const json::array* statuses = array_at(object_at(pod, "status"), "resourceClaimStatuses");
  for (const json::value& ref : *refs) {
    if (!ref.is_object()) continue;
    const json::object& r = ref.get_object();
    std::string claim_name = string_at(r, "resourceClaimName");
    if (claim_name.empty() && !string_at(r, "resourceClaimTemplateName").empty()) {
      bool found = false;
      if (statuses)
        for (const json::value& s : *statuses)
          if (s.is_object() && string_at(s.get_object(), "name") == string_at(r, "name")) {
            found = true;
            claim_name = string_at(s.get_object(), "resourceClaimName");
          }
      if (!found) {
        prefilter_failure_ = fmt::format("pod \"{}/{}\": ResourceClaim not created yet", ns, name);
        return;
      }
      if (claim_name.empty()) continue;  // intentionally no claim
    }
    StoredObject claim = store.get("resource.k8s.io/resourceclaims", ns, claim_name);
    if (!claim) {
      prefilter_failure_ =
          fmt::format("resourceclaim.resource.k8s.io \"{}\" not found", claim_name);
      return;
    }
    if (object_at(*claim, "metadata") &&
        object_at(*claim, "metadata")->contains("deletionTimestamp")) {
      prefilter_failure_ = fmt::format("resourceclaim \"{}\" is being deleted", claim_name);
      return;
    }
    bool allocated = object_at(object_at(*claim, "status"), "allocation") != nullptr;
    if (allocated && !reserved_for(*claim, uid) && reserved_count(*claim) >= kMaxReservedFor) {
      prefilter_failure_ = "resourceclaim in use";
      return;
    }
    if (!allocated) to_allocate_.push_back(claims_.size());
    claims_.push_back(std::move(claim));
  }
  if (to_allocate_.empty() && extended_.empty()) return;
  std::vector<StoredObject> pending;
  for (size_t i : to_allocate_) pending.push_back(claims_[i]);
  allocator_.emplace(std::move(pending), catalog, cel);
  if (allocator_->missing_class()) prefilter_failure_ = *allocator_->missing_class();
}

const std::optional<std::string>& DynamicResourcesCheck::selector_error() const {
  static const std::optional<std::string> kNone;
  return allocator_ ? allocator_->selector_error() : kNone;
}

// Which class serves each resource is the catalog's (DeviceCatalog::serving_class).
void DynamicResourcesCheck::read_extended() {
  if (!catalog_.any_class()) return;
  const json::object* spec = object_at(pod_, "spec");
  size_t index = 0;
  for (const char* list : {"initContainers", "containers"}) {
    const json::array* containers = array_at(spec, list);
    for (size_t i = 0; containers && i < containers->size(); ++i, ++index) {
      const json::object* c = (*containers)[i].if_object();
      const json::object* resources = object_at(c, "resources");
      // The requests as the API server defaults them, sorted: a limit stands for an absent
      // request.
      std::map<std::string_view, const json::value*> requests;
      for (const char* which : {"requests", "limits"})
        if (const json::object* l = object_at(resources, which))
          for (const auto& [k, v] : *l) requests.emplace(k, &v);  // a request comes first
      size_t j = 0;
      for (const auto& [key, amount] : requests) {
        size_t at = j++;
        std::string device_class = catalog_.serving_class(key);
        if (device_class.empty()) continue;
        dra_backed_.insert(std::string(key));
        int64_t count = whole_units(parse_milli(amount).value_or(0));
        if (count <= 0) continue;
        extended_.push_back({string_at(c, "name"), std::string(key),
                             fmt::format("container-{}-request-{}", index, at),
                             std::move(device_class), count});
      }
    }
  }
}

std::string DynamicResourcesCheck::lacking(const NodeInfo& node) const {
  std::string out;
  for (const ExtendedRequest& e : extended_)
    if (!node.allocatable.scalar.contains(e.resource)) out += e.request + ",";
  return out;
}

StoredObject DynamicResourcesCheck::special_claim(const std::string& lacking) const {
  json::array requests;
  for (const ExtendedRequest& e : extended_)
    if (lacking.find(e.request + ",") != std::string::npos)
      requests.push_back(json::object{{"name", e.request},
                                      {"exactly", json::object{{"deviceClassName", e.device_class},
                                                               {"allocationMode", "ExactCount"},
                                                               {"count", e.count}}}});
  std::string pod = meta_string(pod_, "name");
  return std::make_shared<const json::object>(json::object{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata",
       json::object{{"generateName", pod + "-extended-resources-"},
                    {"namespace", meta_string(pod_, "namespace")},
                    {"annotations",
                     json::object{{"resource.kubernetes.io/extended-resource-claim", "true"}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                 {"kind", "Pod"},
                                                                 {"name", pod},
                                                                 {"uid", meta_string(pod_, "uid")},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"spec", json::object{{"devices", json::object{{"requests", std::move(requests)}}}}}});
}

std::optional<std::string> DynamicResourcesCheck::filter(const NodeInfo& node) {
  if (!has_claims()) return std::nullopt;
  for (const StoredObject& claim : claims_) {
    const json::object* alloc = object_at(object_at(*claim, "status"), "allocation");
    const json::object* selector = object_at(alloc, "nodeSelector");
    if (!selector) continue;
    bool any = false;
    if (const json::array* terms = array_at(selector, "nodeSelectorTerms"))
      for (const json::value& t : *terms)
        any = any || (t.is_object() && node_selector_term_matches(t.get_object(), *node.node));
    if (!any) return std::string(kNotOnNode);
  }
  std::string lacks = lacking(node);
  DeviceAllocator* allocator = allocator_ ? &*allocator_ : nullptr;
  if (!lacks.empty()) {
    auto it = by_lacking_.find(lacks);
    if (it == by_lacking_.end()) {
      std::vector<StoredObject> pending;
      for (size_t i : to_allocate_) pending.push_back(claims_[i]);
      pending.push_back(special_claim(lacks));
      it = by_lacking_.emplace(lacks, DeviceAllocator(std::move(pending), catalog_, cel_)).first;
    }
    allocator = &it->second;
  }
  if (!allocator || (to_allocate_.empty() && lacks.empty())) return std::nullopt;
  auto found = allocator->allocate(*node.node);
  if (!found) return std::string(kCannotAllocate);
  on_node_[node.name] = {std::move(*found), lacks};
  return std::nullopt;
}

namespace {

json::object allocation_of(const ClaimAllocation& a, const std::string& node) {
  json::array results;
  for (const auto& r : a.results)
    results.push_back(json::object{{"request", r.request},
                                   {"driver", r.device.driver},
                                   {"pool", r.device.pool},
                                   {"device", r.device.device}});
  json::object allocation{{"devices", json::object{{"results", std::move(results)}}}};
  if (a.node_local)
    allocation["nodeSelector"] = json::object{
        {"nodeSelectorTerms",
         json::array{json::object{
             {"matchFields", json::array{json::object{{"key", "metadata.name"},
                                                      {"operator", "In"},
                                                      {"values", json::array{node}}}}}}}}};
  return allocation;
}

}  // namespace

std::optional<DynamicResourcesCheck::ExtendedClaim> DynamicResourcesCheck::extended_claim(
    const NodeInfo& node) const {
  auto found = on_node_.find(node.name);
  if (found == on_node_.end() || found->second.second.empty()) return std::nullopt;
  const std::string& lacks = found->second.second;
  ExtendedClaim out;
  out.claim = *special_claim(lacks);
  out.status =
      json::object{{"allocation", allocation_of(found->second.first.back(), node.name)},
                   {"reservedFor", json::array{json::object{{"resource", "pods"},
                                                            {"name", meta_string(pod_, "name")},
                                                            {"uid", meta_string(pod_, "uid")}}}}};
  for (const ExtendedRequest& e : extended_)
    if (lacks.find(e.request + ",") != std::string::npos)
      out.mappings.push_back(json::object{{"containerName", e.container},
                                          {"resourceName", e.resource},
                                          {"requestName", e.request}});
  return out;
}

std::vector<json::object> DynamicResourcesCheck::reserve(const NodeInfo& node) const {
  std::vector<json::object> out;
  auto allocations = on_node_.find(node.name);
  json::object consumer{
      {"resource", "pods"}, {"name", meta_string(pod_, "name")}, {"uid", meta_string(pod_, "uid")}};
  for (size_t i = 0; i < claims_.size(); ++i) {
    json::object claim = *claims_[i];
    json::value& status_value = claim["status"];
    if (!status_value.is_object()) status_value = json::object{};
    json::object& status = status_value.as_object();
    auto pending = std::find(to_allocate_.begin(), to_allocate_.end(), i);
    if (pending != to_allocate_.end() && allocations != on_node_.end())
      status["allocation"] = allocation_of(
          allocations->second.first[static_cast<size_t>(pending - to_allocate_.begin())],
          node.name);
    json::value& list = status["reservedFor"];
    if (!list.is_array()) list = json::array{};
    if (!reserved_for(claim, meta_string(pod_, "uid"))) list.as_array().push_back(consumer);
    out.push_back(std::move(claim));
  }
  return out;
}

}  // namespace planter::sim::sched
