#include "plan/node_needs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/json.hpp>

#include "fit/resources.h"
#include "model/label_selector.h"
#include "model/quantity.h"
#include "model/strings.h"
#include "plan/node_providers.h"
#include "plan/stacks/pod_kinds.h"
#include "plan/stacks/pod_targets.h"

namespace planter {

namespace json = boost::json;

namespace {

// Labels every node has (or that say where, not what): a selector on them is no capability.
bool every_node_has(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"kubernetes.io/os",
                                               "kubernetes.io/arch",
                                               "beta.kubernetes.io/os",
                                               "beta.kubernetes.io/arch",
                                               "kubernetes.io/hostname",
                                               "node.kubernetes.io/instance-type",
                                               "beta.kubernetes.io/instance-type"};
  if (std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys)) return true;
  return key.starts_with("topology.kubernetes.io/") ||
         key.starts_with("failure-domain.beta.kubernetes.io/") ||
         key == "node-role.kubernetes.io/control-plane" || key == "node-role.kubernetes.io/master";
}

// "2Gi" for bytes-like resources, "2" for counts.
std::string amount_text(std::string_view name, int64_t amount) {
  if (name.starts_with("hugepages-")) return memory_text(static_cast<double>(amount));
  return std::to_string(amount);
}

// The labels a pod's nodeSelector and required node affinity name, every node's left out.
std::vector<std::string> selector_labels(const json::object& spec) {
  std::vector<std::string> out;
  if (const json::value* sel = spec.if_contains("nodeSelector"); sel && sel->is_object())
    for (const auto& [k, v] : sel->as_object())
      if (v.is_string() && !every_node_has(k))
        out.push_back(std::string(k) + "=" + std::string(v.as_string()));
  const json::value* terms = find_path(
      spec, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  const json::value* list =
      terms && terms->is_object() ? terms->as_object().if_contains("nodeSelectorTerms") : nullptr;
  // One term is a conjunction the node must meet; several are alternatives, which no single
  // label says: only a lone term's expressions are named.
  if (list && list->is_array() && list->as_array().size() == 1 && list->as_array()[0].is_object())
    if (const json::value* exprs = list->as_array()[0].as_object().if_contains("matchExpressions");
        exprs && exprs->is_array())
      for (const json::value& e : exprs->as_array()) {
        if (!e.is_object()) continue;
        std::string key = string_field(e.as_object(), {"key"});
        std::string op = string_field(e.as_object(), {"operator"});
        if (key.empty() || every_node_has(key)) continue;
        const json::value* values = e.as_object().if_contains("values");
        if (op == "In" && values && values->is_array() && values->as_array().size() == 1 &&
            values->as_array()[0].is_string())
          out.push_back(key + "=" + std::string(values->as_array()[0].as_string()));
        else if (op == "Exists")
          out.push_back(key);
      }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// True when the pods must each have a node of their own: a required anti-affinity term on the
// hostname that matches the pods' own labels.
bool apart(const json::object& pod) {
  const json::value* terms = find_path(pod, {"spec", "affinity", "podAntiAffinity",
                                             "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!terms || !terms->is_array()) return false;
  const json::value* labels = find_path(pod, {"metadata", "labels"});
  Labels own = labels_of(labels && labels->is_object() ? &labels->as_object() : nullptr);
  for (const json::value& t : terms->as_array()) {
    if (!t.is_object() || string_field(t.as_object(), {"topologyKey"}) != "kubernetes.io/hostname")
      continue;
    const json::value* sel = t.as_object().if_contains("labelSelector");
    if (!sel) continue;
    auto parsed = LabelSelector::from_json(*sel);
    if (parsed && parsed->matches(own)) return true;
  }
  return false;
}

// The networks a pod's k8s.v1.cni.cncf.io/networks annotation names: a comma-separated list of
// [namespace/]name[@interface], or a JSON list of objects with name and namespace (Multus'
// network selection element); `ns` is the pod's namespace.
Result<std::vector<std::pair<std::string, std::string>>> networks_of(std::string_view text,
                                                                     const std::string& ns) {
  std::vector<std::pair<std::string, std::string>> out;
  text = trim(text);
  if (text.empty()) return out;
  if (text.front() == '[') {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_array()) return Error{"not a JSON list of network selection elements"};
    for (const json::value& e : v.as_array()) {
      if (!e.is_object()) return Error{"an element of the list is not an object"};
      std::string name = string_field(e.as_object(), {"name"});
      if (name.empty()) return Error{"an element of the list has no name"};
      std::string in = string_field(e.as_object(), {"namespace"});
      out.emplace_back(in.empty() ? ns : in, name);
    }
    return out;
  }
  for (std::string_view item : split(text, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    item = item.substr(0, item.find('@'));
    size_t slash = item.find('/');
    if (slash == std::string_view::npos)
      out.emplace_back(ns, std::string(item));
    else
      out.emplace_back(std::string(item.substr(0, slash)), std::string(item.substr(slash + 1)));
  }
  return out;
}

// What the seed knows of its network attachments: each NetworkAttachmentDefinition and
// SriovNetwork (which generates one of its own name in spec.networkNamespace, or its own
// namespace), by (namespace, name), with the resource it draws from.
struct Attachment {
  size_t object;
  std::string resource;  // empty: it needs no device
};
std::map<std::pair<std::string, std::string>, Attachment> attachments(
    const std::vector<Object>& objects) {
  std::map<std::pair<std::string, std::string>, Attachment> out;
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    if (o.ref.kind == "NetworkAttachmentDefinition" && o.ref.group() == "k8s.cni.cncf.io") {
      const json::string* r = o.annotation(kResourceNameAnnotation);
      out.try_emplace({o.ref.ns, o.ref.name}, Attachment{i, r ? std::string(*r) : ""});
    } else if (o.ref.kind == "SriovNetwork" && o.ref.group() == "sriovnetwork.openshift.io") {
      std::string target = string_field(o.body, {"spec", "networkNamespace"});
      out.try_emplace({target.empty() ? o.ref.ns : target, o.ref.name},
                      Attachment{i, sriov_resource(o)});
    }
  }
  return out;
}

// A ready-when predicate of the provider table (exists when it says none).
ReadinessPredicate predicate(std::string_view text) {
  auto p = ReadinessPredicate::parse(text.empty() ? "exists" : text);
  return p ? p.value() : ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
}

class Reader {
 public:
  Reader(const std::vector<Object>& objects, const KindTable& kinds, Diagnostics& diags,
         std::vector<SeedProvider>& providers)
      : objects_(objects), kinds_(kinds), diags_(diags), attachments_(attachments(objects)) {
    for (size_t i = 0; i < objects.size(); ++i) {
      const Object& o = objects[i];
      if (o.ref.kind == "RuntimeClass" && o.ref.group() == "node.k8s.io")
        runtime_classes_[o.ref.name] = i;
      if (const NodeProvider* p = node_provider(o.ref.group(), o.ref.kind)) {
        provided_.push_back(p->provides(o, objects));
        providers.push_back({i, p, predicate(p->done),
                             p->done_object ? p->done_object(o, objects) : std::nullopt,
                             predicate(p->done_object_when)});
      }
    }
  }

  void read(size_t i, std::vector<NodeNeed>& out) {
    const Object& o = objects_[i];
    if (auto w = builtin_workload_pods(o))
      return add(i, *w->pod, w->per_node ? 1 : w->replicas, out);
    if (kinds_.is_builtin_group(o.ref.group())) return;
    if (!shapes_) shapes_ = seed_pod_shapes(objects_, scratch_);
    std::vector<PodShape> shapes = pod_shapes_of(o, *shapes_);
    if (shapes.empty()) return;
    for (const StackPods& kind : pod_kinds_of(o, kinds_, shapes))
      add(i, kind.pod, kind.per_node ? 1 : kind.count, out);
  }

 private:
  // One kind of pod (`pod`: metadata and spec) of object `i`, `replicas` of them.
  void add(size_t i, const json::object& pod, int64_t replicas, std::vector<NodeNeed>& out) {
    const json::value* spec_v = pod.if_contains("spec");
    if (!spec_v || !spec_v->is_object()) return;
    const json::object& spec = spec_v->as_object();
    NodeNeed need;
    need.object = i;
    fit::Resources requests = fit::pod_requests(spec);
    std::map<std::string, int64_t> resources(requests.scalar.begin(), requests.scalar.end());
    // The RuntimeClass's scheduling, as its admission controller merges it into the pod.
    json::object merged_spec;
    bool merged = false;
    std::string runtime = string_field(spec, {"runtimeClassName"});
    if (auto rc = runtime_classes_.find(runtime); !runtime.empty() && rc != runtime_classes_.end())
      if (const json::value* sched = find_path(objects_[rc->second].body, {"scheduling"});
          sched && sched->is_object()) {
        merged_spec = spec;
        merged = true;
        if (const json::value* sel = sched->as_object().if_contains("nodeSelector");
            sel && sel->is_object()) {
          json::object& ns = merged_spec["nodeSelector"].is_object()
                                 ? merged_spec["nodeSelector"].as_object()
                                 : merged_spec["nodeSelector"].emplace_object();
          for (const auto& [k, v] : sel->as_object()) ns[k] = v;
        }
        if (const json::value* tol = sched->as_object().if_contains("tolerations");
            tol && tol->is_array()) {
          json::array& list = merged_spec["tolerations"].is_array()
                                  ? merged_spec["tolerations"].as_array()
                                  : merged_spec["tolerations"].emplace_array();
          for (const json::value& t : tol->as_array()) list.push_back(t);
        }
      }
    const json::object& effective = merged ? merged_spec : spec;
    need.labels = selector_labels(effective);
    // The networks it attaches to, each drawing one device of its resource.
    const json::value* annotations = find_path(pod, {"metadata", "annotations"});
    const json::string* networks =
        string_in(annotations && annotations->is_object() ? &annotations->as_object() : nullptr,
                  kNetworksAnnotation);
    if (networks) {
      const Object& o = objects_[i];
      auto named = networks_of(std::string_view(*networks), o.ref.ns);
      if (!named) {
        diags_.add(o.where(), o.display(),
                   fmt::format("{}: {}", kNetworksAnnotation, named.error().message),
                   "write the networks as name, namespace/name or name@interface, "
                   "comma-separated, or as a JSON list of {\"name\": ..., \"namespace\": ...}");
      } else {
        std::map<std::string, int64_t> devices;  // per resource, one per attachment
        for (const auto& [ns, name] : *named) {
          auto a = attachments_.find({ns, name});
          if (a == attachments_.end()) {
            need.external_networks.emplace_back(ns, name);
            continue;
          }
          if (std::find(need.networks.begin(), need.networks.end(), a->second.object) ==
              need.networks.end())
            need.networks.push_back(a->second.object);
          if (!a->second.resource.empty()) ++devices[a->second.resource];
        }
        // The resources injector asks for them; a pod written without it asks itself (as the
        // SR-IOV CNI's own examples do): the larger of the two, never both.
        for (const auto& [name, count] : devices)
          resources[name] = std::max(resources[name], count);
      }
    }
    const json::value* claims = effective.if_contains("resourceClaims");
    need.claims = claims && claims->is_array() && !claims->as_array().empty();
    if (resources.empty() && need.labels.empty() && need.networks.empty() &&
        need.external_networks.empty() && !need.claims)
      return;
    need.resources.assign(resources.begin(), resources.end());
    need.pod = pod;
    if (merged) need.pod["spec"] = std::move(merged_spec);
    // Its pods are in the object's namespace (its claims' templates are looked up there).
    json::value& meta = need.pod["metadata"];
    if (!meta.is_object()) meta.emplace_object();
    if (!meta.as_object().contains("namespace") && !objects_[i].ref.ns.empty())
      meta.as_object()["namespace"] = objects_[i].ref.ns;
    json::object& spec_out = need.pod["spec"].as_object();
    // The resources its networks draw are asked for as the SR-IOV resources injector does.
    for (const auto& [name, amount] : need.resources)
      if (requests.get(name) < amount) {
        json::array& containers = spec_out["containers"].is_array()
                                      ? spec_out["containers"].as_array()
                                      : spec_out["containers"].emplace_array();
        if (containers.empty()) containers.push_back(json::object{{"name", "main"}});
        if (!containers[0].is_object()) continue;
        json::object& c = containers[0].as_object();
        json::object& res = c["resources"].is_object() ? c["resources"].as_object()
                                                       : c["resources"].emplace_object();
        // Both lists exist before either is held: adding a key may move `res`'s values.
        for (const char* which : {"requests", "limits"})
          if (!res[which].is_object()) res[which].emplace_object();
        json::object& requests_list = res["requests"].as_object();
        json::object& limits_list = res["limits"].as_object();
        int64_t own = fit::resources_of(&requests_list).get(name);
        if (own == 0) own = fit::resources_of(&limits_list).get(name);
        std::string text = amount_text(name, amount - requests.get(name) + own);
        requests_list[name] = text;
        limits_list[name] = text;
      }
    need.nodes = replicas > 1 && apart(pod) ? replicas : 1;
    for (size_t p = 0; p < provided_.size(); ++p) {
      bool gives = false;
      for (const auto& [name, _] : need.resources)
        gives = gives || provided_[p].gives_resource(name);
      for (const std::string& l : need.labels) gives = gives || provided_[p].gives_label(l);
      if (gives) need.providers.push_back(p);
    }
    std::vector<std::string> parts;
    for (const auto& [name, amount] : need.resources)
      parts.push_back(fmt::format("{} ≥ {}", name, amount_text(name, amount)));
    for (const std::string& l : need.labels) parts.push_back(l);
    if (need.claims) parts.push_back("devices for its claims");
    need.what = fmt::format("{}", fmt::join(parts, ", "));
    out.push_back(std::move(need));
  }

  const std::vector<Object>& objects_;
  const KindTable& kinds_;
  Diagnostics& diags_;
  Diagnostics scratch_;  // the stack step reported the CRDs' annotations already
  std::map<std::pair<std::string, std::string>, Attachment> attachments_;
  std::map<std::string, size_t> runtime_classes_;
  std::vector<Provided> provided_;  // what each of the seed's providers gives, in their order
  std::optional<PodShapesByKind> shapes_;
};

}  // namespace

NodeNeeds read_node_needs(const std::vector<Object>& objects, const KindTable& kinds,
                          Diagnostics& diags) {
  NodeNeeds out;
  Reader reader(objects, kinds, diags, out.providers);
  for (size_t i = 0; i < objects.size(); ++i) reader.read(i, out.needs);
  return out;
}

}  // namespace planter
