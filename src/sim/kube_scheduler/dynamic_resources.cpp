#include "sim/kube_scheduler/dynamic_resources.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"

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
                                             CelCache& cel)
    : pod_(pod) {
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
  if (to_allocate_.empty()) return;
  std::vector<StoredObject> pending;
  for (size_t i : to_allocate_) pending.push_back(claims_[i]);
  allocator_.emplace(std::move(pending), store, cel);
  if (allocator_->missing_class()) prefilter_failure_ = *allocator_->missing_class();
}

const std::optional<std::string>& DynamicResourcesCheck::selector_error() const {
  static const std::optional<std::string> kNone;
  return allocator_ ? allocator_->selector_error() : kNone;
}

std::optional<std::string> DynamicResourcesCheck::filter(const NodeInfo& node) {
  if (claims_.empty()) return std::nullopt;
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
  if (!allocator_) return std::nullopt;
  auto found = allocator_->allocate(*node.node);
  if (!found) return std::string(kCannotAllocate);
  on_node_[node.name] = std::move(*found);
  return std::nullopt;
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
    if (pending != to_allocate_.end() && allocations != on_node_.end()) {
      const ClaimAllocation& a =
          allocations->second[static_cast<size_t>(pending - to_allocate_.begin())];
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
                                                          {"values", json::array{node.name}}}}}}}}};
      status["allocation"] = std::move(allocation);
    }
    json::value& list = status["reservedFor"];
    if (!list.is_array()) list = json::array{};
    if (!reserved_for(claim, meta_string(pod_, "uid"))) list.as_array().push_back(consumer);
    out.push_back(std::move(claim));
  }
  return out;
}

}  // namespace planter::sim::sched
