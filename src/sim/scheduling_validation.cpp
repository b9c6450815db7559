#include "sim/scheduling_validation.h"

#include <boost/json/serialize.hpp>
#include <set>
#include <string>

#include "sim/json_access.h"
#include "sim/name_validation.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr size_t kMaxPodGroupTemplates = 8;

bool is_gang_api(const ResourceType& t) {
  return t.group == "scheduling.k8s.io" && (t.kind == "PodGroup" || t.kind == "Workload");
}

const json::value* field(const json::object* o, std::string_view key) {
  return o ? o->if_contains(key) : nullptr;
}

void policy_causes(const json::object* policy, const std::string& path, std::vector<Cause>& out) {
  bool basic = field(policy, "basic") != nullptr, gang = field(policy, "gang") != nullptr;
  if (!basic && !gang) {
    out.push_back(
        {"FieldValueInvalid", "Invalid value: \"\": must specify one of: `basic`, `gang`", path});
    return;
  }
  if (basic && gang) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: \"{`basic`, `gang`}\": exactly one of `basic`, `gang` is "
                   "required, but multiple fields are set",
                   path});
    return;
  }
  if (!gang) return;
  const json::value* min = field(object_at(policy, "gang"), "minCount");
  int64_t count = min && min->is_int64() ? min->as_int64() : 0;
  if (count == 0)
    out.push_back({"FieldValueRequired", "Required value", path + ".gang.minCount"});
  else if (count < 0)
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + std::to_string(count) + ": must be greater than zero",
                   path + ".gang.minCount"});
}

void constraint_causes(const json::object* constraints, const std::string& path,
                       std::vector<Cause>& out) {
  const json::array* topology = array_at(constraints, "topology");
  if (!topology) return;
  for (size_t i = 0; i < topology->size(); ++i) {
    std::string at = path + ".topology[" + std::to_string(i) + "].key";
    std::string key =
        (*topology)[i].is_object() ? string_at((*topology)[i].as_object(), "key") : std::string();
    if (key.empty()) {
      out.push_back({"FieldValueRequired", "Required value", at});
      continue;
    }
    for (const std::string& problem : qualified_name_problems(key))
      out.push_back({"FieldValueInvalid", "Invalid value: \"" + key + "\": " + problem, at});
  }
}

void immutable(const json::value* before, const json::value* after, const std::string& path,
               std::vector<Cause>& out) {
  bool same = (before == nullptr) == (after == nullptr) && (!before || *before == *after);
  if (same) return;
  out.push_back({"FieldValueInvalid",
                 "Invalid value: " + (after ? json::serialize(*after) : std::string("null")) +
                     ": field is immutable",
                 path});
}

}  // namespace

std::vector<Cause> scheduling_causes(const ResourceType& t, const json::object& obj) {
  std::vector<Cause> out;
  if (!is_gang_api(t)) return out;
  const json::object* spec = object_at(obj, "spec");
  if (t.kind == "PodGroup") {
    policy_causes(object_at(spec, "schedulingPolicy"), "spec.schedulingPolicy", out);
    constraint_causes(object_at(spec, "schedulingConstraints"), "spec.schedulingConstraints", out);
    return out;
  }
  const json::array* templates = array_at(spec, "podGroupTemplates");
  if (!templates || templates->empty()) {
    out.push_back({"FieldValueRequired", "Required value: must have at least one item",
                   "spec.podGroupTemplates"});
    return out;
  }
  if (templates->size() > kMaxPodGroupTemplates) {
    out.push_back({"FieldValueTooMany",
                   "Too many: " + std::to_string(templates->size()) + ": must have at most " +
                       std::to_string(kMaxPodGroupTemplates) + " items",
                   "spec.podGroupTemplates"});
    return out;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < templates->size(); ++i) {
    std::string at = "spec.podGroupTemplates[" + std::to_string(i) + "]";
    const json::object* tmpl = (*templates)[i].is_object() ? &(*templates)[i].as_object() : nullptr;
    std::string name = string_at(tmpl, "name");
    if (name.empty())
      out.push_back({"FieldValueRequired", "Required value", at + ".name"});
    else if (!is_rfc1123_label(name))
      out.push_back({"FieldValueInvalid",
                     "Invalid value: \"" + name +
                         "\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
                         "characters or '-', and must start and end with an alphanumeric "
                         "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                     at + ".name"});
    else if (!names.insert(name).second)
      out.push_back({"FieldValueDuplicate", "Duplicate value: \"" + name + "\"", at});
    policy_causes(object_at(tmpl, "schedulingPolicy"), at + ".schedulingPolicy", out);
    constraint_causes(object_at(tmpl, "schedulingConstraints"), at + ".schedulingConstraints", out);
  }
  return out;
}

std::vector<Cause> scheduling_update_causes(const ResourceType& t, const json::object& old,
                                            const json::object& obj) {
  std::vector<Cause> out;
  const json::object* before = object_at(old, "spec");
  const json::object* after = object_at(obj, "spec");
  if (t.group.empty() && t.kind == "Pod") {
    immutable(field(before, "schedulingGroup"), field(after, "schedulingGroup"),
              "spec.schedulingGroup", out);
    return out;
  }
  if (!is_gang_api(t)) return out;
  if (t.kind == "Workload") {
    immutable(field(before, "podGroupTemplates"), field(after, "podGroupTemplates"),
              "spec.podGroupTemplates", out);
    if (field(before, "controllerRef"))
      immutable(field(before, "controllerRef"), field(after, "controllerRef"), "spec.controllerRef",
                out);
    return out;
  }
  // Every field of a PodGroup's spec but its gang's minCount.
  std::set<std::string> keys;
  for (const json::object* s : {before, after})
    if (s)
      for (const auto& [k, _] : *s) keys.insert(std::string(k));
  for (const std::string& k : keys) {
    if (k != "schedulingPolicy") {
      immutable(field(before, k), field(after, k), "spec." + k, out);
      continue;
    }
    json::value b = field(before, k) ? *field(before, k) : json::value();
    json::value a = field(after, k) ? *field(after, k) : json::value();
    for (json::value* v : {&a, &b})
      if (v->is_object())
        if (auto* gang = v->as_object().if_contains("gang"); gang && gang->is_object())
          gang->as_object().erase("minCount");
    if (a != b) immutable(field(before, k), field(after, k), "spec.schedulingPolicy", out);
  }
  return out;
}

}  // namespace planter::sim
