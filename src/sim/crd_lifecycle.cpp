#include <algorithm>
#include <cstdio>

#include "model/strings.h"
#include "sim/handler.h"
#include "sim/json_access.h"

namespace planter::sim {

void Handler::set_condition(json::object& obj, std::string_view type, std::string_view status_value,
                            std::string_view reason, std::string_view message, std::string time) {
  auto& st = obj["status"];
  if (!st.is_object()) st = json::object{};
  auto& conds = st.as_object()["conditions"];
  if (!conds.is_array()) conds = json::array{};
  json::object cond{{"type", type},
                    {"status", status_value},
                    {"lastTransitionTime", time.empty() ? json::value(nullptr) : json::value(time)},
                    {"reason", reason},
                    {"message", message}};
  for (auto& c : conds.as_array())
    if (c.is_object() && string_at(c.as_object(), "type") == type) {
      c = std::move(cond);
      return;
    }
  conds.as_array().push_back(std::move(cond));
}

// What follows a write: CRDs are (re)published, watchers already heard through the store.
void Handler::after_write(const ResourceType& type, StoredObject old, StoredObject now_obj) {
  if (type.group == "apiextensions.k8s.io" && type.kind == "CustomResourceDefinition") {
    bool spec_changed = !old || old->if_contains("spec") == nullptr ||
                        now_obj->if_contains("spec") == nullptr ||
                        old->at("spec") != now_obj->at("spec");
    if (spec_changed) schedule_crd(meta_string(*now_obj, "name"), !old);
  }
}

// NamesAccepted, and unless `names_only` Established: the CRD's kinds are served.
void Handler::establish_crd(Cluster* cluster, const std::string& name, bool names_only) {
  const ResourceType* crd_type =
      cluster->catalog_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  StoredObject cur = cluster->store_.get(crd_type->storage_key(), "", name);
  if (!cur || !meta_string(*cur, "deletionTimestamp").empty()) return;
  json::object obj = *cur;
  std::string t = rfc3339(cluster->env_.now());
  const json::object spec = obj.at("spec").as_object();  // a copy: obj grows below
  json::object& st = obj["status"].is_object() ? obj["status"].as_object()
                                               : (obj["status"] = json::object{}).as_object();
  st["acceptedNames"] = spec.at("names");
  json::array stored;
  for (const auto& v : spec.at("versions").as_array())
    if (auto* s = v.as_object().if_contains("storage"); s && s->is_bool() && s->as_bool())
      stored.push_back(v.as_object().at("name"));
  st["storedVersions"] = stored;
  bool was_established = condition_true(*cur, "Established");
  if (!condition_true(*cur, "NamesAccepted"))
    set_condition(obj, "NamesAccepted", "True", "NoConflicts", "no conflicts found", t);
  if (!names_only) {
    if (!was_established)
      set_condition(obj, "Established", "True", "InitialNamesAccepted",
                    "the initial names have been accepted", t);
    cluster->catalog_.set_crd(name, crd_resource_types(obj));
  }
  if (obj != *cur) cluster->store_.put(crd_type->storage_key(), std::move(obj));
  if (!names_only && !was_established && cluster->audit_)
    cluster->audit_->ready(cluster->env_.now(), cluster->name_,
                           "apiextensions.k8s.io/v1|CustomResourceDefinition||" + name,
                           "established");
}

// After a restart from saved state: serve the established CRDs' kinds again and pick up the
// work the built-in controllers had not finished (their timers did not survive).
void Handler::resume_after_restore() {
  const ResourceType* crd_type =
      c.catalog_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  std::vector<StoredObject> crds;
  for (const auto& [_, crd] : c.store_.bucket(crd_type->storage_key())) crds.push_back(crd);
  for (const auto& crd : crds) {
    std::string name = meta_string(*crd, "name");
    if (!meta_string(*crd, "deletionTimestamp").empty())
      c.env_.after(std::chrono::milliseconds(0), crd_finalizer(crd));
    else if (condition_true(*crd, "Established"))
      c.catalog_.set_crd(name, crd_resource_types(*crd));
    else
      schedule_crd(name, true);
  }
  // New Services get cluster IPs after those already given out.
  for (const auto& [_, svc] : c.store_.bucket("/services")) {
    auto* spec = svc->if_contains("spec");
    std::string ip = spec && spec->is_object() ? string_at(spec->as_object(), "clusterIP") : "";
    unsigned a = 0, b = 0;
    if (std::sscanf(ip.c_str(), "10.96.%u.%u", &a, &b) == 2)
      c.next_cluster_ip_ = std::max<uint64_t>(c.next_cluster_ip_, a * 256 + b + 1);
  }
  std::vector<StoredObject> terminating;
  for (const auto& [_, ns] : c.store_.bucket("/namespaces"))
    if (!meta_string(*ns, "deletionTimestamp").empty()) terminating.push_back(ns);
  for (const auto& ns : terminating)
    c.env_.after(std::chrono::milliseconds(0), namespace_finalizer(ns));
}

// NamesAccepted at once, Established after --crd-delay (immediately for an update of an
// already established CRD).
void Handler::schedule_crd(const std::string& name, bool created) {
  auto alive = c.alive_;
  Cluster* cluster = &c;
  auto establish = [alive, cluster, name](bool names_only) {
    if (*alive) establish_crd(cluster, name, names_only);
  };
  if (created) {
    c.env_.after(std::chrono::milliseconds(0), [establish] { establish(true); });
    c.env_.after(c.options_.crd_delay, [establish] { establish(false); });
  } else {
    c.env_.after(std::chrono::milliseconds(0), [establish] { establish(false); });
  }
}

std::vector<ResourceType> Handler::crd_resource_types(const json::object& crd) {
  std::vector<ResourceType> out;
  const auto& spec = crd.at("spec").as_object();
  const auto& names = spec.at("names").as_object();
  for (const auto& vv : spec.at("versions").as_array()) {
    const auto& v = vv.as_object();
    if (auto* served = v.if_contains("served"); served && served->is_bool() && !served->as_bool())
      continue;
    ResourceType t;
    t.group = string_at(spec, "group");
    t.version = string_at(v, "name");
    t.resource = string_at(names, "plural");
    t.kind = string_at(names, "kind");
    t.singular = string_at(names, "singular");
    if (t.singular.empty()) t.singular = lower(t.kind);
    t.namespaced = string_at(spec, "scope") == "Namespaced";
    t.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    auto strings = [](const json::value* a) {
      std::vector<std::string> o;
      if (a && a->is_array())
        for (const auto& s : a->as_array())
          if (s.is_string()) o.emplace_back(s.as_string());
      return o;
    };
    t.short_names = strings(names.if_contains("shortNames"));
    t.categories = strings(names.if_contains("categories"));
    if (auto* sub = v.if_contains("subresources"); sub && sub->is_object()) {
      t.has_status = sub->as_object().contains("status");
      t.has_scale = sub->as_object().contains("scale");
    }
    t.custom = true;
    t.crd_name = meta_string(crd, "name");
    if (auto* schema = v.if_contains("schema"); schema && schema->is_object())
      if (auto* s = schema->as_object().if_contains("openAPIV3Schema")) t.schema = *s;
    if (auto* pc = v.if_contains("additionalPrinterColumns"); pc && pc->is_array())
      t.printer_columns = pc->as_array();
    out.push_back(std::move(t));
  }
  return out;
}

std::function<void()> Handler::crd_finalizer(StoredObject crd) {
  auto alive = c.alive_;
  Cluster* cluster = &c;
  return [alive, cluster, crd] {
    if (!*alive) return;
    std::string name = meta_string(*crd, "name");
    const auto& spec = crd->at("spec").as_object();
    std::string key =
        string_at(spec, "group") + "/" + string_at(spec.at("names").as_object(), "plural");
    cluster->store_.erase_all(key);
    cluster->catalog_.remove_crd(name);
    cluster->store_.erase("apiextensions.k8s.io/customresourcedefinitions", "", name);
  };
}

}  // namespace planter::sim
