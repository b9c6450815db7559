// The sim playing the operators of custom resources, so that what planter writes into a custom
// resource can be seen to reach pods. A CRD annotated `sim.planter.io/operator: StatefulSet` (or
// `Deployment`) makes the sim keep, for each of its custom resources, a workload of that kind named
// after it and owned by it (deleted with it), with replicas from the CRD's scale subresource
// (`specReplicasPath`, `.spec.replicas` by default) and its pods' labels, affinity, tolerations,
// node selector and container resources taken from the custom resource where its operator would
// take them: the CRD's `planter.nephio.org/pod-template` annotation (`PATH` of a PodTemplateSpec,
// `pod:PATH`, or JSON naming each field), else a table of well-known operators (MysqlCluster,
// PerconaXtraDBCluster, Prometheus, Alertmanager), else the first PodTemplateSpec-shaped field of
// its schema (an object with `metadata` and a `spec` declaring `containers`). Several shapes
// (Percona's pxc, haproxy and proxysql) make several workloads, `<name>`, `<name>-1`, ...
//
// The sim's own reading of those forms, shared with no planter code: it is the judge.
#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <set>

#include "model/strings.h"
#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kOperatorAnnotation = "sim.planter.io/operator";
constexpr const char* kSimOperator = "sim-operator";
// The most workloads one custom resource makes: a 60 KB annotation once made 30,000.
constexpr size_t kMaxOperatorWorkloads = 64;

// Where one kind of pod's fields are in a custom resource.
struct Fields {
  std::string template_path;  // a PodTemplateSpec; when set, the rest is unused
  std::string labels, affinity, tolerations, node_selector, resources;
};

std::vector<Fields> read_annotation(const std::string& value) {
  std::vector<Fields> out;
  std::string_view text = trim(value);
  if (text.empty()) return out;
  if (text.front() == '{' || text.front() == '[') {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec) return out;
    if (v.is_object()) v = json::array{v};
    if (!v.is_array()) return out;
    for (const auto& e : v.as_array()) {
      if (!e.is_object()) continue;
      const json::object& o = e.as_object();
      Fields f;
      f.labels = string_at(o, "labels");
      f.affinity = string_at(o, "affinity");
      f.tolerations = string_at(o, "tolerations");
      f.node_selector = string_at(o, "nodeSelector");
      if (auto* r = o.if_contains("resources");
          r && r->is_array() && !r->as_array().empty() && r->as_array()[0].is_string())
        f.resources = std::string(r->as_array()[0].as_string());
      out.push_back(std::move(f));
    }
    return out;
  }
  for (std::string_view entry : split(text, ',')) {
    entry = trim(entry);
    Fields f;
    if (entry.starts_with("pod:")) {
      std::string p(entry.substr(4));
      f = Fields{"",
                 p + ".labels",
                 p + ".affinity",
                 p + ".tolerations",
                 p + ".nodeSelector",
                 p + ".resources"};
    } else {
      f.template_path = std::string(entry);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Fields> known_operator(std::string_view group, std::string_view kind) {
  auto part = [](const std::string& base) {
    return Fields{"",
                  base + ".labels",
                  base + ".affinity.advanced",
                  base + ".tolerations",
                  base + ".nodeSelector",
                  base + ".resources"};
  };
  if (group == "mysql.presslabs.org" && kind == "MysqlCluster")
    return {Fields{"", "spec.podSpec.labels", "spec.podSpec.affinity", "spec.podSpec.tolerations",
                   "spec.podSpec.nodeSelector", "spec.podSpec.resources"}};
  if (group == "pxc.percona.com" && kind == "PerconaXtraDBCluster")
    return {part("spec.pxc"), part("spec.haproxy"), part("spec.proxysql")};
  if (group == "monitoring.coreos.com" && (kind == "Prometheus" || kind == "Alertmanager"))
    return {Fields{"", "spec.podMetadata.labels", "spec.affinity", "spec.tolerations",
                   "spec.nodeSelector", "spec.resources"}};
  return {};
}

// The value at a dotted path, or nullptr.
const json::value* at_path(const json::object& o, const std::string& dotted) {
  if (dotted.empty()) return nullptr;
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (std::string_view step : split(dotted, '.')) {
    if (!cur) return nullptr;
    v = cur->if_contains(step);
    if (!v) return nullptr;
    cur = v->if_object();
  }
  return v;
}

struct Kind {
  std::string group, kind, storage_key, workload;  // workload: StatefulSet or Deployment
  std::string replicas_path = ".spec.replicas";
  std::vector<Fields> fields;
};

class CustomOperators : public WorkloadController {
 public:
  explicit CustomOperators(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& key, const std::string& name) {
          reconcile(key, name);
        }) {
    kit_.watch("apiextensions.k8s.io/customresourcedefinitions",
               [this](const Change& ch) { crd_changed(*ch.object, ch.type); });
    for (const auto& [_, crd] :
         kit_.store().bucket("apiextensions.k8s.io/customresourcedefinitions"))
      crd_changed(*crd, EventType::kAdded);
  }

 private:
  void crd_changed(const json::object& crd, EventType type) {
    if (type == EventType::kDeleted) return;
    std::string workload =
        string_at(object_at(object_at(crd, "metadata"), "annotations"), kOperatorAnnotation);
    if (workload != "StatefulSet" && workload != "Deployment") return;
    const json::object* spec = object_at(crd, "spec");
    const json::object* names = object_at(spec, "names");
    Kind k{string_at(spec, "group"), string_at(names, "kind"),
           string_at(spec, "group") + "/" + string_at(names, "plural"), workload};
    if (auto* versions = spec ? spec->if_contains("versions") : nullptr;
        versions && versions->is_array())
      for (const auto& v : versions->as_array()) {
        const json::object* scale =
            v.is_object() ? object_at(object_at(v.as_object(), "subresources"), "scale") : nullptr;
        if (scale && !string_at(scale, "specReplicasPath").empty())
          k.replicas_path = string_at(scale, "specReplicasPath");
      }
    std::string annotation = string_at(object_at(object_at(crd, "metadata"), "annotations"),
                                       "planter.nephio.org/pod-template");
    k.fields = annotation.empty() ? known_operator(k.group, k.kind) : read_annotation(annotation);
    if (k.fields.empty())
      if (std::string path = template_in_schema(spec); !path.empty())
        k.fields.push_back(Fields{path, "", "", "", "", ""});
    if (k.fields.empty()) k.fields.push_back(Fields{});
    std::string key = k.storage_key;
    bool fresh = !kinds_.contains(key);
    kinds_[key] = std::move(k);
    if (fresh)
      kit_.watch(key, [this, key](const Change& ch) {
        if (ch.type != EventType::kDeleted)
          queue_.add(key, ch.ns + "/" + meta_string(*ch.object, "name"));
      });
    for (const auto& [_, cr] : kit_.store().bucket(key))
      queue_.add(key, meta_string(*cr, "namespace") + "/" + meta_string(*cr, "name"));
  }

  // An operator that makes its pods from a PodTemplateSpec in its custom resource: the first
  // field of the storage version's schema, in declaration order and at most six levels under
  // `spec`, that is an object with `metadata` and a `spec` declaring `containers` (whatever else
  // its spec leaves to x-kubernetes-preserve-unknown-fields). "" when there is none.
  static std::string template_in_schema(const json::object* crd_spec) {
    auto* versions = crd_spec ? crd_spec->if_contains("versions") : nullptr;
    if (!versions || !versions->is_array()) return "";
    const json::object* schema = nullptr;
    for (const auto& v : versions->as_array())
      if (v.is_object() && v.as_object().if_contains("storage") &&
          v.as_object().at("storage") == true)
        schema = object_at(object_at(v.as_object(), "schema"), "openAPIV3Schema");
    const json::object* spec = object_at(object_at(schema, "properties"), "spec");
    std::function<std::string(const json::object*, const std::string&, int)> find =
        [&](const json::object* node, const std::string& path, int depth) -> std::string {
      const json::object* props = object_at(node, "properties");
      if (!props || depth > 6) return "";
      const json::object* pod_spec = object_at(props, "spec");
      if (props->contains("metadata") && pod_spec &&
          object_at(object_at(pod_spec, "properties"), "containers"))
        return path;
      for (const auto& [name, child] : *props)
        if (child.is_object())
          if (std::string found =
                  find(&child.as_object(), path + "." + std::string(name), depth + 1);
              !found.empty())
            return found;
      return "";
    };
    return find(spec, "spec", 0);
  }

  void reconcile(const std::string& key, const std::string& ns_name) {
    auto it = kinds_.find(key);
    if (it == kinds_.end()) return;
    const Kind& k = it->second;
    size_t slash = ns_name.find('/');
    std::string ns = ns_name.substr(0, slash), name = ns_name.substr(slash + 1);
    StoredObject cr = kit_.store().get(key, ns, name);
    if (!cr || !meta_string(*cr, "deletionTimestamp").empty()) return;
    std::string path = k.replicas_path;
    if (!path.empty() && path.front() == '.') path.erase(0, 1);
    const json::value* r = at_path(*cr, path);
    int64_t replicas = std::clamp<int64_t>(r && r->is_int64() ? r->as_int64() : 1, 0,
                                           kit_.cluster().options().max_pods_per_workload);
    // One workload per kind of pod, at most kMaxOperatorWorkloads (docs/limits.md).
    for (size_t i = 0; i < std::min(k.fields.size(), kMaxOperatorWorkloads); ++i) {
      std::string workload_name = i == 0 ? name : name + "-" + std::to_string(i);
      json::object tmpl = pod_template(*cr, k.fields[i], k.kind, workload_name);
      json::object labels = tmpl.at("metadata").at("labels").as_object();
      json::object spec{
          {"replicas", replicas},
          {"selector", {{"matchLabels", {{"sim.planter.io/workload", workload_name}}}}},
          {"template", std::move(tmpl)}};
      if (k.workload == "StatefulSet") spec["serviceName"] = workload_name;
      json::object obj{{"apiVersion", "apps/v1"},
                       {"kind", k.workload},
                       {"metadata",
                        {{"name", workload_name},
                         {"namespace", ns},
                         {"ownerReferences", json::array{controller_reference(*cr)}}}},
                       {"spec", std::move(spec)}};
      std::string plural = k.workload == "StatefulSet" ? "statefulsets" : "deployments";
      kit_.write("PATCH", "/apis/apps/v1/namespaces/" + ns + "/" + plural + "/" + workload_name,
                 "application/apply-patch+yaml", obj, kSimOperator,
                 {{"fieldManager", kSimOperator}, {"force", "true"}});
    }
  }

  json::object pod_template(const json::object& cr, const Fields& f, const std::string& kind,
                            const std::string& workload) {
    json::object labels{{"sim.planter.io/workload", workload}};
    json::object spec;
    if (!f.template_path.empty()) {
      if (const json::value* t = at_path(cr, f.template_path); t && t->is_object()) {
        if (const json::object* l = object_at(object_at(t->as_object(), "metadata"), "labels"))
          for (const auto& [k, v] : *l) labels[k] = v;
        if (const json::object* s = object_at(t->as_object(), "spec")) spec = *s;
      }
    } else {
      if (const json::value* l = at_path(cr, f.labels); l && l->is_object())
        for (const auto& [k, v] : l->as_object()) labels[k] = v;
      if (const json::value* a = at_path(cr, f.affinity); a && a->is_object())
        spec["affinity"] = *a;
      if (const json::value* t = at_path(cr, f.tolerations); t && t->is_array())
        spec["tolerations"] = *t;
      if (const json::value* n = at_path(cr, f.node_selector); n && n->is_object())
        spec["nodeSelector"] = *n;
      json::object container{{"name", "main"}, {"image", "registry.example/" + kind + ":sim"}};
      if (const json::value* r = at_path(cr, f.resources); r && r->is_object())
        container["resources"] = *r;
      spec["containers"] = json::array{std::move(container)};
    }
    if (!spec.contains("containers"))
      spec["containers"] = json::array{
          json::object{{"name", "main"}, {"image", "registry.example/" + kind + ":sim"}}};
    return json::object{{"metadata", {{"labels", std::move(labels)}}}, {"spec", std::move(spec)}};
  }

  ControllerKit& kit_;
  WorkQueue queue_;
  std::map<std::string, Kind> kinds_;  // by storage key
};

}  // namespace

std::unique_ptr<WorkloadController> start_custom_operators(ControllerKit& kit) {
  return std::make_unique<CustomOperators>(kit);
}

}  // namespace planter::sim
