#include "sim/workloads/pods.h"

#include <algorithm>
#include <boost/json/parse.hpp>

#include "sim/cluster.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

std::vector<StoredObject> pods_owned_by(Store& store, const std::string& owner_uid) {
  std::vector<StoredObject> out;
  for (const auto& [key, obj] : store.dependents(owner_uid)) {
    if (key != "/pods") continue;
    const json::object* meta = object_at(*obj, "metadata");
    auto* refs = meta ? meta->if_contains("ownerReferences") : nullptr;
    bool controlled = false;
    if (refs && refs->is_array())
      for (const auto& r : refs->as_array())
        if (r.is_object() && string_at(r.as_object(), "uid") == owner_uid) {
          auto* c = r.as_object().if_contains("controller");
          controlled = c && c->is_bool() && c->as_bool();
        }
    if (controlled) out.push_back(obj);
  }
  std::stable_sort(out.begin(), out.end(), [](const StoredObject& a, const StoredObject& b) {
    return meta_string(*a, "creationTimestamp") < meta_string(*b, "creationTimestamp");
  });
  return out;
}

bool pod_ready(const json::object& pod) {
  return string_at(object_at(pod, "status"), "phase") == "Running" && condition_true(pod, "Ready");
}

bool pod_deleting(const json::object& pod) {
  return !meta_string(pod, "deletionTimestamp").empty();
}

bool pod_terminal(const json::object& pod) {
  std::string phase = string_at(object_at(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

json::object controller_reference(const json::object& owner) {
  return json::object{{"apiVersion", string_at(owner, "apiVersion")},
                      {"kind", string_at(owner, "kind")},
                      {"name", meta_string(owner, "name")},
                      {"uid", meta_string(owner, "uid")},
                      {"controller", true},
                      {"blockOwnerDeletion", true}};
}

json::object pod_from_template(const json::object& pod_template, const json::object& owner,
                               const json::object& extra_labels, const std::string& name,
                               const std::string& generate_name) {
  const json::object* tmeta = object_at(pod_template, "metadata");
  json::object labels;
  if (const json::object* l = object_at(tmeta, "labels")) labels = *l;
  for (const auto& [k, v] : extra_labels) labels[k] = v;
  json::object meta{{"namespace", meta_string(owner, "namespace")},
                    {"labels", std::move(labels)},
                    {"ownerReferences", json::array{controller_reference(owner)}}};
  if (!name.empty())
    meta["name"] = name;
  else
    meta["generateName"] = generate_name;
  if (const json::object* a = object_at(tmeta, "annotations")) meta["annotations"] = *a;
  json::object pod{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}};
  if (const json::object* spec = object_at(pod_template, "spec"))
    pod["spec"] = *spec;
  else
    pod["spec"] = json::object{};
  return pod;
}

void create_pod(ControllerKit& kit, const json::object& owner, json::object pod,
                const std::string& component) {
  std::string ns = meta_string(owner, "namespace");
  Response r =
      kit.write("POST", "/api/v1/namespaces/" + ns + "/pods", "application/json", pod, component);
  if (r.status == 201) {
    json::value created = boost::json::parse(r.body);
    kit.events(component).record(owner, "Normal", "SuccessfulCreate",
                                 "Created pod: " + meta_string(created.as_object(), "name"));
  } else {
    json::value status = boost::json::parse(r.body);
    kit.events(component).record(owner, "Warning", "FailedCreate",
                                 "Error creating: " + string_at(status.as_object(), "message"));
  }
}

void delete_pod(ControllerKit& kit, const json::object& owner, const json::object& pod,
                const std::string& component) {
  std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  Response r = kit.write("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + name, "application/json",
                         json::object{}, component);
  if (r.status < 300)
    kit.events(component).record(owner, "Normal", "SuccessfulDelete", "Deleted pod: " + name);
}

int64_t desired_replicas(ControllerKit& kit, const json::object& workload) {
  return std::clamp<int64_t>(int_at(object_at(workload, "spec"), "replicas", 1), 0,
                             kit.cluster().options().max_pods_per_workload);
}

int64_t generation_of(const json::object& object) {
  return int_at(object_at(object, "metadata"), "generation", 1);
}

}  // namespace planter::sim
