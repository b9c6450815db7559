#include "sim/kube_scheduler/pod_groups.h"

#include <algorithm>
#include <cstdint>

#include "sim/json_access.h"
#include "sim/kube_scheduler/cache.h"

namespace planter::sim::sched {

namespace json = boost::json;

std::string pod_group_of(const json::object& pod) {
  return string_at(object_at(object_at(pod, "spec"), "schedulingGroup"), "podGroupName");
}

std::string PodGroups::group_changed(const Change& ch) {
  std::string key = ch.ns + "/" + meta_string(*ch.object, "name");
  Group& g = groups_[key];
  g.object = ch.type == EventType::kDeleted ? nullptr : ch.object;
  if (!g.object && g.members.empty()) groups_.erase(key);
  return key;
}

std::string PodGroups::pod_changed(const Change& ch) {
  std::string key = ch.ns + "/" + meta_string(*ch.object, "name");
  std::string name = pod_group_of(*ch.object);
  bool member = ch.type != EventType::kDeleted && !name.empty() && !pod_finished(*ch.object) &&
                meta_string(*ch.object, "deletionTimestamp").empty();
  if (!member) {
    leave(key);
    return {};
  }
  std::string group_key = ch.ns + "/" + name;
  auto was = group_of_member_.find(key);
  bool joined = was == group_of_member_.end();
  if (!joined && was->second != group_key) {
    leave(key);
    joined = true;
  }
  group_of_member_[key] = group_key;
  if (joined) seen_[key] = next_seen_++;
  Group& g = groups_[group_key];
  g.members.insert(key);
  if (string_at(object_at(*ch.object, "spec"), "nodeName").empty())
    g.bound.erase(key);
  else
    g.bound.insert(key);
  return joined ? group_key : std::string();
}

void PodGroups::leave(const std::string& pod_key) {
  auto it = group_of_member_.find(pod_key);
  if (it == group_of_member_.end()) return;
  auto g = groups_.find(it->second);
  if (g != groups_.end()) {
    g->second.members.erase(pod_key);
    g->second.bound.erase(pod_key);
    if (!g->second.object && g->second.members.empty()) groups_.erase(g);
  }
  group_of_member_.erase(it);
  seen_.erase(pod_key);
}

const PodGroups::Group* PodGroups::find(const std::string& group_key) const {
  auto it = groups_.find(group_key);
  return it == groups_.end() ? nullptr : &it->second;
}

std::optional<std::string> PodGroups::gate(const json::object& pod) const {
  std::string name = pod_group_of(pod);
  if (name.empty()) return std::nullopt;
  const Group* g = find(meta_string(pod, "namespace") + "/" + name);
  if (!g || !g->object)
    return "waiting for pod's pod group \"" + name + "\" to appear in scheduling queue";
  int64_t min = min_count(*g);
  if (min > 0 && static_cast<int64_t>(g->members.size()) < min)
    return std::string("waiting for minCount pods from a gang to appear in scheduling queue");
  return std::nullopt;
}

int64_t PodGroups::min_count(const Group& group) {
  return group.object ? min_count(*group.object) : 0;
}

int64_t PodGroups::min_count(const json::object& pod_group) {
  const json::object* policy = object_at(object_at(pod_group, "spec"), "schedulingPolicy");
  const json::object* gang = object_at(policy, "gang");
  return gang ? std::max<int64_t>(1, int_at(gang, "minCount", 1)) : 0;
}

std::string PodGroups::topology_key(const Group& group) {
  if (!group.object) return {};
  const json::object* constraints =
      object_at(object_at(*group.object, "spec"), "schedulingConstraints");
  const json::array* topology = array_at(constraints, "topology");
  if (!topology || topology->empty() || !topology->front().is_object()) return {};
  return string_at(topology->front().as_object(), "key");
}

uint64_t PodGroups::first_seen(const std::string& pod_key) const {
  auto it = seen_.find(pod_key);
  return it == seen_.end() ? UINT64_MAX : it->second;
}

}  // namespace planter::sim::sched
