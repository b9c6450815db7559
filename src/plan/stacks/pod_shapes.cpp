#include "plan/stacks/pod_shapes.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/strings.h"

namespace planter {

namespace json = boost::json;

namespace {

PodShape fields_shape(std::string_view base, std::string_view labels, std::string_view affinity) {
  PodShape s;
  s.form = PodShape::Form::kFields;
  std::string b(base);
  s.labels = b + "." + std::string(labels);
  s.affinity = b + "." + std::string(affinity);
  s.tolerations = b + ".tolerations";
  s.node_selector = b + ".nodeSelector";
  s.resources = {b + ".resources"};
  return s;
}

PodShape with_replicas(PodShape s, std::string path, std::string enabled = {}) {
  s.replicas = std::move(path);
  s.enabled = std::move(enabled);
  return s;
}

PodShape template_shape(std::string path) {
  PodShape s;
  s.path = std::move(path);
  return s;
}

// `path` when planter may write pod fields there, else why not: dotted field names starting at
// spec (the operator's input; never metadata or status), at most kMaxPathSteps; with
// `wildcards`, a step "*" (every value of a map) or a suffix "[*]" (every item of a list).
Result<std::string> checked_path(std::string_view path, bool wildcards) {
  if (path.empty()) return Error{"the path is empty"};
  if (path.size() > kMaxPathBytes)
    return Error{fmt::format("the path is longer than {} characters", kMaxPathBytes)};
  std::vector<std::string_view> steps = split(path, '.');
  if (steps.size() > kMaxPathSteps)
    return Error{fmt::format("\"{}\" has more than {} steps", path, kMaxPathSteps)};
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string_view step = steps[i];
    if (wildcards && step == "*") {
      if (i == 0) break;  // reported below: not spec
      continue;
    }
    std::string_view name = step;
    if (wildcards && name.ends_with("[*]")) name.remove_suffix(3);
    if (name.empty())
      return Error{
          fmt::format("step {} of \"{}\" is empty: write dotted field names", i + 1, path)};
    if (name.find_first_of("[]*") != std::string_view::npos)
      return Error{fmt::format(
          "step \"{}\" of \"{}\" is not a field name{}", step, path,
          wildcards ? " (a step is a name, \"*\" for every value of a map, or a name with \"[*]\" "
                      "for every item of a list)"
                    : " (this field's path takes no wildcards)")};
  }
  if (steps.front() != "spec")
    return Error{
        fmt::format("\"{}\" does not start at spec: planter writes only into the fields an "
                    "operator makes its pods from",
                    path)};
  return std::string(path);
}

Result<PodShape> shape_from_json(const json::value& v) {
  if (v.is_string()) {
    auto shapes = parse_pod_shapes(std::string_view(v.as_string()));
    if (!shapes) return shapes.error();
    if (shapes->size() != 1) return Error{"one path per list entry"};
    return shapes->front();
  }
  if (!v.is_object()) return Error{"each entry must be an object of field paths or a path"};
  PodShape s;
  s.form = PodShape::Form::kFields;
  for (const auto& [k, f] : v.as_object()) {
    if (k == "resources") {
      if (!f.is_array()) return Error{"\"resources\" must be a list of paths"};
      for (const auto& r : f.as_array()) {
        if (!r.is_string() || r.as_string().empty())
          return Error{"\"resources\" must be a list of paths"};
        auto path = checked_path(r.as_string(), true);
        if (!path) return Error{"\"resources\": " + path.error().message};
        s.resources.push_back(std::move(*path));
      }
      continue;
    }
    if (!f.is_string() || f.as_string().empty())
      return Error{fmt::format("\"{}\" must be a path", std::string_view(k))};
    auto checked = checked_path(f.as_string(), false);
    if (!checked)
      return Error{fmt::format("\"{}\": {}", std::string_view(k), checked.error().message)};
    std::string path = std::move(*checked);
    if (k == "labels")
      s.labels = path;
    else if (k == "affinity")
      s.affinity = path;
    else if (k == "tolerations")
      s.tolerations = path;
    else if (k == "nodeSelector")
      s.node_selector = path;
    else if (k == "replicas")
      s.replicas = path;
    else
      return Error{fmt::format(
          "unknown field \"{}\" (known: labels, affinity, tolerations, nodeSelector, resources, "
          "replicas)",
          std::string_view(k))};
  }
  return s;
}

}  // namespace

Result<std::vector<PodShape>> parse_pod_shapes(std::string_view annotation) {
  std::string_view text = trim(annotation);
  std::vector<PodShape> out;
  if (text.empty()) return Error{"the value is empty"};
  if (text.front() == '{' || text.front() == '[') {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec) return Error{"not JSON: " + ec.message()};
    if (v.is_object()) v = json::array{v};
    if (!v.is_array()) return Error{"the JSON form is an object or a list of objects"};
    if (v.as_array().size() > kMaxPodShapes)
      return Error{fmt::format("more than {} kinds of pods", kMaxPodShapes)};
    for (const auto& e : v.as_array()) {
      auto s = shape_from_json(e);
      if (!s) return s.error();
      out.push_back(std::move(*s));
    }
    return out;
  }
  std::vector<std::string_view> entries = split(text, ',');
  if (entries.size() > kMaxPodShapes)
    return Error{fmt::format("more than {} kinds of pods", kMaxPodShapes)};
  for (std::string_view entry : entries) {
    entry = trim(entry);
    if (entry.empty()) return Error{"an empty entry"};
    PodShape s;
    if (entry.starts_with("pod:")) {
      s.form = PodShape::Form::kPodLike;
      entry.remove_prefix(4);
    }
    auto path = checked_path(entry, s.form == PodShape::Form::kTemplate);
    if (!path) return path.error();
    s.path = std::move(*path);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<PodShape> builtin_pod_shapes(std::string_view group, std::string_view kind) {
  if (group == "mysql.presslabs.org" && kind == "MysqlCluster") {
    PodShape s;
    s.form = PodShape::Form::kPodLike;
    s.path = "spec.podSpec";
    s.replicas = "spec.replicas";
    return {s};
  }
  if (group == "pxc.percona.com" && kind == "PerconaXtraDBCluster")
    return {with_replicas(fields_shape("spec.pxc", "labels", "affinity.advanced"), "spec.pxc.size"),
            with_replicas(fields_shape("spec.haproxy", "labels", "affinity.advanced"),
                          "spec.haproxy.size", "spec.haproxy.enabled"),
            with_replicas(fields_shape("spec.proxysql", "labels", "affinity.advanced"),
                          "spec.proxysql.size", "spec.proxysql.enabled")};
  if (group == "monitoring.coreos.com" && (kind == "Prometheus" || kind == "Alertmanager"))
    return {with_replicas(fields_shape("spec", "podMetadata.labels", "affinity"), "spec.replicas")};
  if (group == "moco.cybozu.com" && kind == "MySQLCluster")
    return {template_shape("spec.podTemplate")};
  if (group == "kubeflow.org" && kind.ends_with("Job")) {
    std::string replicas = std::string(kind.substr(0, kind.size() - 3));
    for (char& c : replicas) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // PyTorchJob: spec.pytorchReplicaSpecs, TFJob: spec.tfReplicaSpecs, MPIJob: mpiReplicaSpecs.
    if (replicas == "pytorch" || replicas == "tf" || replicas == "mpi" || replicas == "xgboost" ||
        replicas == "paddle" || replicas == "jax")
      return {template_shape("spec." + replicas + "ReplicaSpecs.*.template")};
  }
  if (group == "ray.io" && kind == "RayCluster")
    return {template_shape("spec.headGroupSpec.template"),
            template_shape("spec.workerGroupSpecs[*].template")};
  return {};
}

namespace {

const json::object* props(const json::object& schema) {
  auto* p = schema.if_contains("properties");
  return p && p->is_object() ? &p->as_object() : nullptr;
}

// A schema of an object with metadata and a spec whose properties have containers.
bool template_like(const json::object& schema) {
  const json::object* p = props(schema);
  if (!p || !p->contains("metadata") || !p->contains("spec") || !p->at("spec").is_object())
    return false;
  const json::object* spec = props(p->at("spec").as_object());
  return spec && spec->contains("containers");
}

void find_templates(const json::object& schema, const std::string& path, int depth,
                    std::vector<PodShape>& out) {
  if (depth > 6) return;
  if (!path.empty() && template_like(schema)) {
    out.push_back(template_shape(path));
    return;
  }
  if (const json::object* p = props(schema))
    for (const auto& [k, v] : *p)
      if (v.is_object())
        find_templates(v.as_object(), path.empty() ? std::string(k) : path + "." + std::string(k),
                       depth + 1, out);
  if (auto* items = schema.if_contains("items"); items && items->is_object() && !path.empty())
    find_templates(items->as_object(), path + "[*]", depth + 1, out);
  if (auto* more = schema.if_contains("additionalProperties"); more && more->is_object())
    find_templates(more->as_object(), path + ".*", depth + 1, out);
}

}  // namespace

std::vector<PodShape> schema_pod_shapes(const json::object& schema) {
  std::vector<PodShape> out;
  if (const json::object* p = props(schema))
    if (auto* spec = p->if_contains("spec"); spec && spec->is_object())
      find_templates(spec->as_object(), "spec", 1, out);
  return out;
}

}  // namespace planter
