#include "sim/kube_scheduler/scheduler.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <map>

#include "sim/cluster.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/dynamic_resources.h"
#include "sim/kube_scheduler/inter_pod_affinity.h"
#include "sim/kube_scheduler/node_plugins.h"
#include "sim/kube_scheduler/topology_spread.h"
#include "sim/kube_scheduler/volume_binding.h"

namespace planter::sim::sched {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

// Weights of the default profile's score plugins.
constexpr int64_t kResourcesWeight = 1, kBalancedWeight = 1, kNodeAffinityWeight = 2,
                  kTaintWeight = 3, kInterPodAffinityWeight = 2;
// Pods tried per turn of the event loop, so requests keep being served during a burst.
constexpr int kPodsPerTurn = 64;

std::string pod_key(const json::object& pod) {
  return meta_string(pod, "namespace") + "/" + meta_string(pod, "name");
}

std::string pod_path(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

// The kind of an object's controller owner ("Pod" for a claim made from a template).
std::string controller_of_kind(const json::object& o) {
  const json::value* owners =
      object_at(o, "metadata") ? object_at(o, "metadata")->if_contains("ownerReferences") : nullptr;
  if (owners && owners->is_array())
    for (const json::value& r : owners->get_array())
      if (r.is_object() && r.get_object().if_contains("controller") &&
          r.get_object().at("controller") == true)
        return string_at(r.get_object(), "kind");
  return {};
}

// Whether the pod names the claim in spec.resourceClaims (resourceClaimName).
bool names_claim(const json::object& pod, const std::string& claim) {
  const json::value* refs =
      object_at(pod, "spec") ? object_at(pod, "spec")->if_contains("resourceClaims") : nullptr;
  if (refs && refs->is_array())
    for (const json::value& r : refs->get_array())
      if (r.is_object() && string_at(r.get_object(), "resourceClaimName") == claim) return true;
  return false;
}

// Sorted "N reason" entries joined with ", ", as kube-scheduler's FitError prints them.
std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

bool ours(const json::object& pod) {
  std::string name = string_at(object_at(pod, "spec"), "schedulerName");
  return name.empty() || name == Scheduler::kName;
}

bool waiting_for_us(const json::object& pod) {
  return string_at(object_at(pod, "spec"), "nodeName").empty() && ours(pod) &&
         meta_string(pod, "deletionTimestamp").empty() && !pod_finished(pod);
}

Scheduler::Scheduler(Cluster& cluster, uint64_t seed)
    : cluster_(cluster),
      devices_(cluster.store()),
      gangs_(!cluster.catalog().versions_of(PodGroups::kStorageKey).empty()),
      events_(cluster, kName, kUser),
      random_(seed) {
  // The PodGroups first: the pods restored below are gated by them.
  if (gangs_) {
    for (const auto& [_, obj] : cluster_.store().bucket(PodGroups::kStorageKey)) {
      Change ch{
          0,      EventType::kAdded, PodGroups::kStorageKey, meta_string(*obj, "namespace"), obj,
          nullptr};
      on_pod_group_change(ch);
    }
    watches_.push_back(cluster_.store().add_watch(
        PodGroups::kStorageKey, [this](const Change& ch) { on_pod_group_change(ch); }));
  }
  for (const char* key : {"/nodes", "/pods"}) {
    // What the store already holds (a cluster restored from --state-dir), then its changes.
    for (const auto& [_, obj] : cluster_.store().bucket(key)) {
      Change ch{0, EventType::kAdded, key, meta_string(*obj, "namespace"), obj, nullptr};
      on_change(ch);
    }
    watches_.push_back(
        cluster_.store().add_watch(key, [this](const Change& ch) { on_change(ch); }));
  }
  // Claims and volumes coming, binding or going can let a pod's volumes fit.
  for (const char* key : {"/persistentvolumeclaims", "/persistentvolumes"})
    watches_.push_back(cluster_.store().add_watch(
        key, [this](const Change&) { retry_unschedulable(Cache::kNodeChanged); }));
  // Devices published or tainted, classes made: the pods refused for their resource claims are
  // tried again (DynamicResources' queueing hints); claims as on_claim_change says.
  for (const char* key : {"resource.k8s.io/resourceslices", "resource.k8s.io/devicetaintrules"})
    watches_.push_back(cluster_.store().add_watch(key, [this](const Change&) {
      devices_.slices_changed();
      retry_for_devices("");
    }));
  watches_.push_back(
      cluster_.store().add_watch("resource.k8s.io/deviceclasses", [this](const Change&) {
        devices_.classes_changed();
        retry_for_devices("");
      }));
  watches_.push_back(
      cluster_.store().add_watch("resource.k8s.io/resourceclaims", [this](const Change& ch) {
        devices_.claim_changed(ch);
        on_claim_change(ch);
      }));
}

Scheduler::~Scheduler() {
  *alive_ = false;
  for (uint64_t id : watches_) cluster_.store().remove_watch(id);
}

void Scheduler::on_change(const Change& ch) {
  unsigned effect = cache_.apply(ch);
  if (ch.storage_key == "/pods") {
    std::string key = pod_key(*ch.object);
    if (gangs_) {
      // A pod joining a group may complete its quorum (GangScheduling's queueing hint).
      std::string joined = groups_.pod_changed(ch);
      if (ch.type == EventType::kDeleted || !waiting_for_us(*ch.object)) gated_.erase(key);
      if (!joined.empty()) release_group(joined);
    }
    auto waiting = unschedulable_.find(key);
    if (ch.type == EventType::kDeleted || !waiting_for_us(*ch.object)) {
      unschedulable_.erase(key);
      if (ch.type == EventType::kDeleted) events_.forget(meta_string(*ch.object, "uid"));
    } else if (waiting == unschedulable_.end()) {
      enqueue(key);
    } else if ((waiting->second & kByDevices) && ch.type == EventType::kModified) {
      // The ResourceClaim controller recorded the claim it made for the pod.
      unschedulable_.erase(waiting);
      enqueue(key);
    }
  }
  if (effect != Cache::kNothing) retry_unschedulable(effect);
}

// A claim deallocated or deleted frees devices: every pod refused for its claims may fit now. A
// claim made by a user may be the one a pod names; one made for a pod from a template is
// recorded in that pod's status, whose change tries it again.
void Scheduler::on_claim_change(const Change& ch) {
  auto allocated = [](const StoredObject& c) {
    return c && object_at(object_at(*c, "status"), "allocation") != nullptr;
  };
  if (ch.type == EventType::kDeleted || (allocated(ch.previous) && !allocated(ch.object))) {
    retry_for_devices("");
    return;
  }
  if (ch.type != EventType::kAdded) return;
  if (controller_of_kind(*ch.object) == "Pod") return;
  retry_for_devices(meta_string(*ch.object, "namespace") + "/" + meta_string(*ch.object, "name"));
}

// The pods refused for their claims, tried again: all of them, or (`claim` "ns/name") those that
// name that claim.
void Scheduler::retry_for_devices(const std::string& claim) {
  std::string ns = claim.substr(0, claim.find('/')), name = claim.substr(claim.find('/') + 1);
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    bool retry = it->second & kByDevices;
    if (retry && !claim.empty()) {
      retry = false;
      if (it->first.starts_with(ns + "/"))
        if (StoredObject pod = cluster_.store().get("/pods", ns, it->first.substr(ns.size() + 1)))
          retry = names_claim(*pod, name);
    }
    if (retry) {
      enqueue(it->first);
      it = unschedulable_.erase(it);
    } else {
      ++it;
    }
  }
}

void Scheduler::enqueue(const std::string& key) {
  if (queued_.insert(key).second) active_.push_back(key);
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  auto alive = alive_;
  cluster_.environment().after(milliseconds(0), [this, alive] {
    if (*alive) flush();
  });
}

void Scheduler::retry_unschedulable(unsigned effect) {
  bool everyone = effect & (Cache::kNodeChanged | Cache::kPodRemoved);
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (everyone || (it->second & kByPods)) {
      enqueue(it->first);
      it = unschedulable_.erase(it);
    } else {
      ++it;
    }
  }
}

void Scheduler::flush() {
  flush_scheduled_ = false;
  for (int i = 0; i < kPodsPerTurn && !active_.empty(); ++i) {
    std::string key = std::move(active_.front());
    active_.pop_front();
    // Not queued any more: a PodGroup cycle decided for it since (or it is here twice).
    if (!queued_.erase(key)) continue;
    schedule(key);
  }
  if (!active_.empty() && !flush_scheduled_) {
    flush_scheduled_ = true;
    auto alive = alive_;
    cluster_.environment().after(milliseconds(0), [this, alive] {
      if (*alive) flush();
    });
  }
}

// percentageOfNodesToScore's adaptive default: every node of small clusters, then from 50% down
// to 5% as clusters grow, never fewer than 100.
int64_t Scheduler::nodes_to_find(int64_t all) const {
  constexpr int64_t kMinFeasible = 100;
  if (all < kMinFeasible) return all;
  int64_t percentage = std::max<int64_t>(5, 50 - all / 125);
  return std::max(kMinFeasible, all * percentage / 100);
}

Verdict::Verdict() = default;
Verdict::Verdict(Verdict&&) noexcept = default;
Verdict& Verdict::operator=(Verdict&&) noexcept = default;
Verdict::~Verdict() = default;

void Scheduler::schedule(const std::string& key) {
  size_t slash = key.find('/');
  std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  StoredObject pod = cluster_.store().get("/pods", ns, name);
  if (!pod || !waiting_for_us(*pod)) return;
  if (gangs_) {
    // GangScheduling's PreEnqueue: held back without a word until the group may be tried.
    if (auto why = groups_.gate(*pod)) {
      gated_[key] = *why;
      return;
    }
    gated_.erase(key);
    std::string group = pod_group_of(*pod);
    if (!group.empty())
      if (const PodGroups::Group* g = groups_.find(ns + "/" + group);
          g && PodGroups::min_count(*g) > 0) {
        schedule_group(ns + "/" + group);
        return;
      }
  }
  Verdict verdict = select_node(*pod, cache_.nodes());
  if (!verdict.node) {
    unschedulable(*pod, verdict.message, verdict.rejected);
    return;
  }
  commit(key, *pod, verdict);
}

Verdict Scheduler::select_node(const json::object& pod, const std::vector<NodeInfo*>& nodes) {
  Verdict verdict;
  std::string ns = meta_string(pod, "namespace");
  int64_t all = static_cast<int64_t>(nodes.size());
  if (all == 0) {
    verdict.message = "no nodes available to schedule pods";
    verdict.rejected = kByNode;
    return verdict;
  }
  Store& store = cluster_.store();
  NamespaceLabels namespace_labels = [&store](const std::string& n) -> const json::object* {
    StoredObject o = store.get("/namespaces", "", n);
    return o ? object_at(object_at(*o, "metadata"), "labels") : nullptr;
  };
  IncomingPod in = incoming_pod(pod);
  verdict.volumes = std::make_unique<VolumeBindingCheck>(pod, store);
  VolumeBindingCheck& volumes = *verdict.volumes;
  if (const auto& failure = volumes.prefilter_failure()) {
    std::string nodes_text = "0/" + std::to_string(all) + " nodes are available";
    verdict.message = nodes_text + ": " + *failure + ". preemption: " + nodes_text + ": " +
                      std::to_string(all) + " Preemption is not helpful for scheduling.";
    verdict.rejected = kByNode;
    return verdict;
  }
  verdict.devices = std::make_unique<DynamicResourcesCheck>(pod, store, devices_, cel_);
  DynamicResourcesCheck& devices = *verdict.devices;
  in.dra_backed = devices.dra_backed();
  if (const auto& failure = devices.prefilter_failure()) {
    std::string nodes_text = "0/" + std::to_string(all) + " nodes are available";
    verdict.message = nodes_text + ": " + *failure + ". preemption: " + nodes_text + ": " +
                      std::to_string(all) + " Preemption is not helpful for scheduling.";
    verdict.rejected = kByDevices;
    return verdict;
  }
  TopologySpreadCheck spread(pod, ns, cache_);
  InterPodAffinityCheck affinity(pod, ns, cache_, namespace_labels);
  // Filter, from where the last attempt stopped, until enough nodes fit.
  int64_t wanted = nodes_to_find(all);
  std::vector<const NodeInfo*> feasible;
  std::map<std::string, int> reasons;
  int unresolvable = 0, resolvable = 0;
  unsigned rejected_by = 0;
  int64_t processed = 0;
  size_t start = next_start_ % nodes.size();
  for (int64_t i = 0; i < all; ++i) {
    const NodeInfo* node = nodes[(start + static_cast<size_t>(i)) % nodes.size()];
    ++processed;
    std::optional<Rejection> rejected = filter_node(in, *node);
    bool by_pods = false, by_devices = false;
    if (!rejected)
      if (auto f = volumes.filter(*node)) {
        rejected = Rejection{{f->reason}, f->resolvable};
        // A ReadWriteOncePod claim is freed by a pod going: retried on pod events.
        by_pods = f->reason == VolumeBindingCheck::kReadWriteOncePodReason;
      }
    if (!rejected)
      if (auto f = spread.filter(*node)) {
        rejected = Rejection{{f->reason}, f->resolvable};
        by_pods = true;
      }
    if (!rejected)
      if (auto f = affinity.filter(*node)) {
        rejected = Rejection{{f->reason}, f->resolvable};
        by_pods = true;
      }
    // DynamicResources runs last of the default filters.
    if (!rejected && devices.has_claims())
      if (auto f = devices.filter(*node)) {
        rejected = Rejection{{*f}, true};
        by_devices = true;
      }
    if (rejected) {
      rejected_by |= by_devices ? kByDevices : by_pods ? kByPods : kByNode;
      for (const auto& r : rejected->reasons) ++reasons[r];
      ++(rejected->resolvable ? resolvable : unresolvable);
      continue;
    }
    feasible.push_back(node);
    if (static_cast<int64_t>(feasible.size()) >= wanted) break;
  }
  next_start_ = (start + static_cast<size_t>(processed)) % nodes.size();

  if (feasible.empty()) {
    std::string nodes_text = "0/" + std::to_string(all) + " nodes are available";
    std::string message = nodes_text + ": " + histogram(reasons) + ".";
    // A selector that failed to evaluate is an error of the plugin, as kube-scheduler reports it.
    if (devices.selector_error()) {
      verdict.message = "running Filter plugin \"DynamicResources\": " + *devices.selector_error();
      verdict.rejected = rejected_by;
      return verdict;
    }
    std::string policy = string_at(in.spec, "preemptionPolicy");
    if (policy == "Never") {
      message += " preemption: not eligible due to preemptionPolicy=Never.";
    } else {
      // The sim's pods all have the same priority: preemption never finds victims.
      std::map<std::string, int> preemption;
      if (unresolvable) preemption["Preemption is not helpful for scheduling"] = unresolvable;
      if (resolvable) preemption["No preemption victims found for incoming pod"] = resolvable;
      message += " preemption: " + nodes_text + ": " + histogram(preemption) + ".";
    }
    verdict.message = std::move(message);
    verdict.rejected = rejected_by;
    return verdict;
  }

  const NodeInfo* chosen = feasible.front();
  if (feasible.size() > 1) {
    // Raw scores of the plugins that normalise over the feasible nodes.
    std::vector<int64_t> node_affinity(feasible.size()), taints(feasible.size()),
        pod_affinity(feasible.size());
    int64_t max_affinity = 0, max_taints = 0;
    int64_t min_pod = INT64_MAX, max_pod = INT64_MIN;
    for (size_t i = 0; i < feasible.size(); ++i) {
      if (!in.node_preferences.empty())
        node_affinity[i] =
            in.node_preferences.weight(feasible[i]->label_values(), feasible[i]->name);
      taints[i] = intolerable_preferred_taints(*in.spec, feasible[i]->taints);
      if (affinity.scores_anything()) pod_affinity[i] = affinity.score(*feasible[i]);
      max_affinity = std::max(max_affinity, node_affinity[i]);
      max_taints = std::max(max_taints, taints[i]);
      min_pod = std::min(min_pod, pod_affinity[i]);
      max_pod = std::max(max_pod, pod_affinity[i]);
    }
    int64_t best = INT64_MIN;
    uint64_t ties = 0;
    for (size_t i = 0; i < feasible.size(); ++i) {
      const NodeInfo& node = *feasible[i];
      int64_t score = kResourcesWeight * least_allocated_score(in, node) +
                      kBalancedWeight * balanced_allocation_score(in, node);
      if (max_affinity > 0)
        score += kNodeAffinityWeight * (node_affinity[i] * kMaxNodeScore / max_affinity);
      score +=
          kTaintWeight *
          (max_taints > 0 ? kMaxNodeScore - taints[i] * kMaxNodeScore / max_taints : kMaxNodeScore);
      if (affinity.scores_anything() && max_pod > min_pod)
        score += kInterPodAffinityWeight *
                 ((pod_affinity[i] - min_pod) * kMaxNodeScore / (max_pod - min_pod));
      // Among the best, each has the same chance (reservoir sampling, as kube-scheduler does).
      if (score > best) {
        best = score;
        ties = 1;
        chosen = &node;
      } else if (score == best) {
        ++ties;
        if (random_() % ties == 0) chosen = &node;
      }
    }
  }
  verdict.node = chosen;
  return verdict;
}

void Scheduler::commit(const std::string& key, const json::object& pod0, Verdict& verdict) {
  const json::object* pod = &pod0;
  const NodeInfo* chosen = verdict.node;
  DynamicResourcesCheck& devices = *verdict.devices;
  VolumeBindingCheck& volumes = *verdict.volumes;
  // The pod's resource claims: allocated on the node and reserved for the pod (Reserve and
  // PreBind), before it is bound.
  for (const json::object& claim : devices.reserve(*chosen)) {
    std::string path = "/apis/resource.k8s.io/v1/namespaces/" + meta_string(claim, "namespace") +
                       "/resourceclaims/" + meta_string(claim, "name") + "/status";
    Response r = cluster_.call("PUT", path, "application/json", claim, kUser, kAgent);
    if (r.status != 200) {
      // Changed meanwhile (another pod reserved it): tried again with what the store holds now.
      enqueue(key);
      return;
    }
  }
  // Its extended resources served by devices there: a claim of its own, named in its status.
  if (auto extended = devices.extended_claim(*chosen)) {
    std::string ns = meta_string(*pod, "namespace");
    std::string claims = "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims";
    Response made =
        cluster_.call("POST", claims, "application/json", extended->claim, kUser, kAgent);
    json::value body = made.status == 201 ? json::parse(made.body) : json::value();
    if (!body.is_object()) {
      enqueue(key);
      return;
    }
    json::object& claim = body.as_object();
    claim["status"] = std::move(extended->status);
    std::string name = meta_string(claim, "name");
    if (cluster_
            .call("PUT", claims + "/" + name + "/status", "application/json", claim, kUser, kAgent)
            .status != 200) {
      enqueue(key);
      return;
    }
    cluster_.call(
        "PATCH", "/api/v1/namespaces/" + ns + "/pods/" + meta_string(*pod, "name") + "/status",
        "application/merge-patch+json",
        json::object{{"status",
                      json::object{{"extendedResourceClaimStatus",
                                    json::object{{"requestMappings", std::move(extended->mappings)},
                                                 {"resourceClaimName", name}}}}}},
        kUser, kAgent);
  }
  // Claims waiting for their first consumer bind where the pod goes: to the volumes chosen there
  // (the binder's PreBind), or to volumes provisioned there.
  VolumeBindingCheck::Placement storage = volumes.place_on(*chosen);
  for (const auto& [pvc, pv] : storage.bind) {
    std::string ns = meta_string(*pvc, "namespace"), name = meta_string(*pvc, "name");
    json::object claim_ref{{"kind", "PersistentVolumeClaim"},
                           {"apiVersion", "v1"},
                           {"namespace", ns},
                           {"name", name},
                           {"uid", meta_string(*pvc, "uid")}};
    cluster_.call("PATCH", "/api/v1/persistentvolumes/" + meta_string(*pv, "name"),
                  "application/merge-patch+json",
                  json::object{{"spec", {{"claimRef", std::move(claim_ref)}}}}, kUser, kAgent);
    cluster_.call("PATCH", "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + name,
                  "application/merge-patch+json",
                  json::object{{"spec", {{"volumeName", meta_string(*pv, "name")}}}}, kUser,
                  kAgent);
  }
  for (const auto& pvc : storage.provision) {
    std::string path = "/api/v1/namespaces/" + meta_string(*pvc, "namespace") +
                       "/persistentvolumeclaims/" + meta_string(*pvc, "name");
    json::object patch{
        {"metadata", {{"annotations", {{VolumeBindingCheck::kSelectedNode, chosen->name}}}}}};
    cluster_.call("PATCH", path, "application/merge-patch+json", patch, kUser, kAgent);
  }
  bind(*pod, chosen->name);
}

void Scheduler::bind(const json::object& pod, const std::string& node) {
  std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  json::object binding{{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata", {{"name", name}, {"namespace", ns}}},
                       {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  Response r = cluster_.call("POST", pod_path(ns, name) + "/binding", "application/json", binding,
                             kUser, kAgent);
  if (r.status != 201) return;  // gone, or bound by someone else meanwhile
  events_.record(pod, "Normal", "Scheduled",
                 "Successfully assigned " + ns + "/" + name + " to " + node);
}

void Scheduler::unschedulable(const json::object& pod, const std::string& message,
                              unsigned rejected) {
  std::string key = pod_key(pod);
  unschedulable_[key] = rejected;
  events_.record(pod, "Warning", "FailedScheduling", message);
  // PodScheduled=False with the message, unless the pod already says so.
  const json::object* status = object_at(pod, "status");
  const json::object* cond = find_condition(status, "PodScheduled");
  if (cond && string_at(cond, "status") == "False" &&
      string_at(cond, "reason") == "Unschedulable" && string_at(cond, "message") == message)
    return;
  json::object updated = pod;
  auto& st = updated["status"];
  if (!st.is_object()) st = json::object{};
  json::object& s = st.as_object();
  if (!s.contains("phase")) s["phase"] = "Pending";
  auto& conds = s["conditions"];
  if (!conds.is_array()) conds = json::array{};
  json::object condition{
      {"type", "PodScheduled"},    {"status", "False"},
      {"lastProbeTime", nullptr},  {"lastTransitionTime", rfc3339(cluster_.environment().now())},
      {"reason", "Unschedulable"}, {"message", message}};
  bool replaced = false;
  for (auto& c : conds.as_array())
    if (c.is_object() && string_at(c.as_object(), "type") == "PodScheduled") {
      if (string_at(c.as_object(), "status") == "False")
        condition["lastTransitionTime"] = c.as_object()["lastTransitionTime"];
      c = condition;
      replaced = true;
    }
  if (!replaced) conds.as_array().push_back(std::move(condition));
  std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  cluster_.call("PUT", pod_path(ns, name) + "/status", "application/json", updated, kUser, kAgent);
}

}  // namespace planter::sim::sched
