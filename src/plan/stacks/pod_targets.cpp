#include "plan/stacks/pod_targets.h"

#include <initializer_list>

namespace planter {

namespace json = boost::json;

namespace {

json::object& child(json::object& parent, std::string_view key) {
  json::value& v = parent[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

// The template at `path` (object keys), its metadata and spec made when missing.
PodTarget template_at(Object& o, std::initializer_list<std::string_view> path) {
  json::object* at = &o.body;
  std::string text;
  for (std::string_view step : path) {
    at = &child(*at, step);
    text += (text.empty() ? "" : ".") + std::string(step);
  }
  // Both made before either is held: adding a key to an object may move its values.
  child(*at, "metadata");
  child(*at, "spec");
  return PodTarget{text, &at->at("metadata").as_object(), &at->at("spec").as_object()};
}

}  // namespace

PodTargets pod_targets(Object& o, const KindTable& kinds) {
  std::string_view group = o.ref.group();
  const std::string& kind = o.ref.kind;
  PodTargets out;
  if (group.empty() && kind == "Pod") {
    child(o.body, "metadata");
    child(o.body, "spec");
    out.targets.push_back(
        PodTarget{"", &o.body.at("metadata").as_object(), &o.body.at("spec").as_object()});
  } else if ((group == "apps" && (kind == "Deployment" || kind == "ReplicaSet" ||
                                  kind == "StatefulSet" || kind == "DaemonSet")) ||
             (group == "batch" && kind == "Job") ||
             (group.empty() && kind == "ReplicationController")) {
    out.targets.push_back(template_at(o, {"spec", "template"}));
  } else if (group == "batch" && kind == "CronJob") {
    out.targets.push_back(template_at(o, {"spec", "jobTemplate", "spec", "template"}));
  } else if (group.empty() && kind == "PodTemplate") {
    out.targets.push_back(template_at(o, {"template"}));
  } else if (!kinds.is_builtin_group(group) && o.ref.kind != "Cluster") {
    out.known = false;  // a custom resource: its operator makes its pods
  }
  return out;
}

}  // namespace planter
