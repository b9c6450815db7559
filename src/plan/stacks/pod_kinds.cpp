#include "plan/stacks/pod_kinds.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "fit/resources.h"

namespace planter {

namespace json = boost::json;

namespace {

// A CRD spec's storage version (the one whose schema and subresources describe what is stored);
// null when none is marked.
const json::object* storage_version(const json::object& crd_spec) {
  const json::value* versions = crd_spec.if_contains("versions");
  if (!versions || !versions->is_array()) return nullptr;
  for (const json::value& v : versions->as_array())
    if (const json::object* vo = v.if_object())
      if (const json::value* storage = vo->if_contains("storage");
          storage && storage->is_bool() && storage->as_bool())
        return vo;
  return nullptr;
}

}  // namespace

PodShapesByKind seed_pod_shapes(const std::vector<Object>& objects, Diagnostics& diags) {
  PodShapesByKind out;
  for (const Object& o : objects) {
    if (o.ref.kind != "CustomResourceDefinition" || o.ref.group() != "apiextensions.k8s.io")
      continue;
    const json::value* spec = o.body.if_contains("spec");
    if (!spec || !spec->is_object()) continue;
    const json::object& s = spec->as_object();
    const json::value* group = s.if_contains("group");
    const json::value* names = s.if_contains("names");
    const json::value* kind =
        names && names->is_object() ? names->as_object().if_contains("kind") : nullptr;
    if (!group || !group->is_string() || !kind || !kind->is_string()) continue;
    std::pair<std::string, std::string> key{std::string(group->as_string()),
                                            std::string(kind->as_string())};
    std::vector<PodShape> shapes;
    if (const json::string* a = o.annotation(kPodTemplateAnnotation)) {
      auto parsed = parse_pod_shapes(std::string_view(*a));
      if (!parsed) {
        diags.add(o.where(), o.display(),
                  fmt::format("{}: {}", kPodTemplateAnnotation, parsed.error().message),
                  "see docs/stacks.md for the forms it takes");
        continue;
      }
      shapes = std::move(*parsed);
    } else {
      shapes = builtin_pod_shapes(key.first, key.second);
      if (shapes.empty())
        if (const json::object* storage = storage_version(s))
          if (const json::value* schema = find_path(*storage, {"schema", "openAPIV3Schema"});
              schema && schema->is_object())
            shapes = schema_pod_shapes(schema->as_object());
    }
    // The scale subresource says where the replicas are, for shapes that do not say.
    if (const json::object* storage = storage_version(s))
      if (const json::value* path =
              find_path(*storage, {"subresources", "scale", "specReplicasPath"});
          path && path->is_string())
        for (PodShape& shape : shapes)
          if (shape.replicas.empty()) {
            std::string_view p = path->as_string();
            if (p.starts_with('.')) p.remove_prefix(1);
            shape.replicas = std::string(p);
          }
    if (!shapes.empty()) out[key] = std::move(shapes);
  }
  return out;
}

std::vector<PodShape> pod_shapes_of(const Object& o, const PodShapesByKind& seed_shapes) {
  if (auto it = seed_shapes.find({std::string(o.ref.group()), o.ref.kind}); it != seed_shapes.end())
    return it->second;
  return builtin_pod_shapes(o.ref.group(), o.ref.kind);
}

StackPods pod_kind(const Object& o, const PodTarget& t) {
  StackPods p;
  p.count = t.replicas;
  p.per_node = t.per_node;
  json::object metadata{{"name", o.ref.name}, {"namespace", o.ref.ns}};
  if (t.labels) metadata["labels"] = *t.labels;
  json::object spec;
  const json::value* containers = t.pod_spec ? t.pod_spec->if_contains("containers") : nullptr;
  if (containers && containers->is_array()) {
    spec = *t.pod_spec;
  } else {
    json::array main, init;
    for (const auto& sized : t.resources) {
      json::object c{{"name", sized.container}, {"resources", *sized.resources}};
      (sized.path.find("initContainers") != std::string::npos ? init : main)
          .push_back(std::move(c));
    }
    spec["containers"] = std::move(main);
    if (!init.empty()) spec["initContainers"] = std::move(init);
    if (t.tolerations) spec["tolerations"] = *t.tolerations;
    if (t.node_selector) spec["nodeSelector"] = *t.node_selector;
    if (t.affinity) spec["affinity"] = *t.affinity;
    if (t.volumes) spec["volumes"] = *t.volumes;
  }
  // What it asks, by kube-scheduler's rule (sidecars, the biggest init container, overhead): the
  // fit model's, so `planter plan` and `plan --fit` say the same.
  p.asks = fit::pod_requests(spec);
  p.pod = json::object{{"metadata", std::move(metadata)}, {"spec", std::move(spec)}};
  return p;
}

std::vector<StackPods> pod_kinds_of(const Object& o, const KindTable& kinds,
                                    const std::vector<PodShape>& shapes) {
  Object copy = o;  // pod_targets makes the places it points at
  PodTargets targets = pod_targets(copy, kinds, shapes);
  std::vector<StackPods> out;
  for (const PodTarget& t : targets.targets) out.push_back(pod_kind(o, t));
  return out;
}

CrdIndex crd_index(const std::vector<Object>& objects) {
  CrdIndex out;
  for (size_t i = 0; i < objects.size(); ++i)
    if (objects[i].ref.kind == "CustomResourceDefinition" &&
        objects[i].ref.group() == "apiextensions.k8s.io")
      if (const json::value* spec = objects[i].body.if_contains("spec"); spec && spec->is_object())
        out[{string_field(spec->as_object(), {"group"}),
             string_field(spec->as_object(), {"names", "kind"})}] = i;
  return out;
}

const json::object* crd_schema(const std::vector<Object>& objects, const CrdIndex& crd_of,
                               std::string_view group, const std::string& kind,
                               std::string_view version) {
  auto it = crd_of.find({std::string(group), kind});
  if (it == crd_of.end()) return nullptr;
  const json::value* spec = objects[it->second].body.if_contains("spec");
  if (!spec || !spec->is_object()) return nullptr;
  const json::object* chosen = storage_version(spec->as_object());
  if (const json::value* versions = spec->as_object().if_contains("versions");
      versions && versions->is_array())
    for (const json::value& v : versions->as_array())
      if (v.is_object() && string_field(v.as_object(), {"name"}) == version)
        chosen = &v.as_object();
  if (!chosen) return nullptr;
  const json::value* schema = find_path(*chosen, {"schema", "openAPIV3Schema"});
  return schema ? schema->if_object() : nullptr;
}

}  // namespace planter
