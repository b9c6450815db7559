// pods/binding: how a scheduler assigns a pod to a node. As kube-apiserver does it: the pod's
// spec.nodeName is set once (a second binding is a conflict), and its PodScheduled condition
// becomes True.
#include "sim/handler.h"
#include "sim/json_access.h"

namespace planter::sim {

Response Handler::bind_pod(const Cluster::Target& t) {
  auto body = parse_body();
  if (!body) return body_error(body.error());
  const json::object& binding = body.value();
  // POST .../bindings names the pod in the body; POST .../pods/<name>/binding in the path.
  std::string name = t.name.empty() ? meta_string(binding, "name") : t.name;
  if (!t.name.empty() && !meta_string(binding, "name").empty() &&
      meta_string(binding, "name") != t.name)
    return bad_request("the name of the object (" + meta_string(binding, "name") +
                       ") does not match the name on the URL (" + t.name + ")");
  const ResourceType* pods = c.catalog_.find("", "v1", "pods");
  const json::object* target = object_at(binding, "target");
  std::string node = string_at(target, "name");
  if (node.empty())
    return invalid(*pods, name, {{"FieldValueRequired", "Required value", "target.name"}});
  StoredObject pod = c.store_.get("/pods", t.ns, name);
  if (!pod) return not_found(*pods, name);
  std::string assigned = string_at(object_at(*pod, "spec"), "nodeName");
  if (!assigned.empty() || !meta_string(*pod, "deletionTimestamp").empty())
    return api_status(409, "Conflict",
                      "Operation cannot be fulfilled on pods/binding \"" + name + "\": pod " +
                          name +
                          (assigned.empty() ? " is being deleted, cannot be assigned to a host"
                                            : " is already assigned to node \"" + assigned + "\""),
                      {{"name", name}, {"kind", "pods/binding"}});
  if (dry_run()) return api_status(201, "", "");
  json::object obj = *pod;
  auto& spec = obj["spec"];
  if (!spec.is_object()) spec = json::object{};
  spec.as_object()["nodeName"] = node;
  auto& status = obj["status"];
  if (!status.is_object()) status = json::object{};
  auto& conds = status.as_object()["conditions"];
  if (!conds.is_array()) conds = json::array{};
  json::object scheduled{{"type", "PodScheduled"},
                         {"status", "True"},
                         {"lastProbeTime", nullptr},
                         {"lastTransitionTime", rfc3339(now())}};
  bool replaced = false;
  for (auto& cond : conds.as_array())
    if (cond.is_object() && string_at(cond.as_object(), "type") == "PodScheduled") {
      cond = scheduled;
      replaced = true;
    }
  if (!replaced) conds.as_array().push_back(std::move(scheduled));
  StoredObject stored = commit(*pods, std::move(obj));
  audit("bind", *stored, 201);
  return api_status(201, "", "");
}

}  // namespace planter::sim
