#include "fit/pod_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "fit/json_fields.h"
#include "model/well_known_labels.h"

namespace planter::fit {

namespace json = boost::json;

namespace {

// A container's extended resources, each named as kube-scheduler names its device request.
void extended_of_container(const json::value& c, size_t index,
                           std::vector<PodInfo::ExtendedRequest>& out) {
  const json::object* o = c.if_object();
  const json::object* res = o ? object_in(o, "resources") : nullptr;
  if (!res) return;
  const json::object* lists[] = {object_in(res, "requests"), object_in(res, "limits")};
  // Most containers ask no extended resource: they leave here, having allocated nothing.
  bool extended = false;
  for (const json::object* l : lists)
    if (l)
      for (const auto& [k, _] : *l) extended = extended || is_extended_resource(k);
  if (!extended) return;
  std::set<std::string_view> keys;  // the requests once defaulted from the limits, sorted
  for (const json::object* l : lists)
    if (l)
      for (const auto& [k, _] : *l) keys.emplace(k);
  Resources amounts = container_requests(c);
  size_t j = 0;
  for (std::string_view key : keys) {
    if (int64_t amount = amounts.get(key); amount > 0 && is_extended_resource(key))
      out.push_back({text_in(o, "name"), std::string(key),
                     fmt::format("container-{}-request-{}", index, j), amount});
    ++j;
  }
}

void read_ports(const json::array* containers, std::vector<HostPort>& out) {
  if (!containers) return;
  for (const json::value& c : *containers)
    if (const json::array* ports = array_in(c.if_object(), "ports"))
      for (const json::value& p : *ports) {
        const json::object* o = p.if_object();
        const json::value* host = o ? o->if_contains("hostPort") : nullptr;
        if (!host || !host->is_int64() || host->as_int64() <= 0) continue;
        HostPort hp;
        hp.port = host->as_int64();
        if (std::string ip = text_in(o, "hostIP"); !ip.empty()) hp.ip = ip;
        if (std::string proto = text_in(o, "protocol"); !proto.empty()) hp.protocol = proto;
        out.push_back(std::move(hp));
      }
}

std::vector<SpreadConstraint> read_spread(const json::array* list, const Labels& labels) {
  std::vector<SpreadConstraint> out;
  if (!list) return out;
  for (const json::value& v : *list) {
    const json::object* o = v.if_object();
    if (!o || text_in(o, "whenUnsatisfiable") != "DoNotSchedule") continue;
    SpreadConstraint c;
    c.topology_key = text_in(o, "topologyKey");
    if (const json::value* s = o->if_contains("maxSkew"); s && s->is_int64())
      c.max_skew = std::max<int64_t>(1, s->as_int64());
    if (const json::value* m = o->if_contains("minDomains"); m && m->is_int64())
      c.min_domains = std::max<int64_t>(1, m->as_int64());
    c.honor_node_affinity = text_in(o, "nodeAffinityPolicy") != "Ignore";
    c.honor_taints = text_in(o, "nodeTaintsPolicy") == "Honor";
    if (const json::value* sel = o->if_contains("labelSelector"); sel && sel->is_object()) {
      json::object selector = sel->as_object();
      // matchLabelKeys: the pod's own values of those keys are ANDed in.
      if (const json::array* keys = array_in(o, "matchLabelKeys")) {
        json::array& exprs = selector["matchExpressions"].emplace_array();
        if (const json::array* had = array_in(&sel->as_object(), "matchExpressions")) exprs = *had;
        for (const json::value& k : *keys)
          if (k.is_string())
            if (auto it = labels.find(std::string_view(k.as_string())); it != labels.end())
              exprs.push_back(json::object{{"key", k},
                                           {"operator", "In"},
                                           {"values", json::array{json::string(it->second)}}});
      }
      if (auto parsed = LabelSelector::from_json(selector)) c.selector = std::move(parsed.value());
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

bool Toleration::tolerates(const Taint& t) const {
  if (!effect.empty() && effect != t.effect) return false;
  if (key.empty()) return op == "Exists";  // an empty key with Exists tolerates everything
  if (key != t.key) return false;
  return op == "Exists" || (op == "Equal" && value == t.value);
}

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return t.tolerates(taint); });
}

bool PodTerm::matches(const std::string& ns, const Labels& labels) const {
  if (!selector) return false;
  bool ns_ok = any_namespace ? true
               : namespaces.empty()
                   ? ns == owner_ns
                   : std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
  return ns_ok && selector->matches(labels);
}

std::vector<PodTerm> PodTerm::read(const json::array& terms, const std::string& owner_ns) {
  std::vector<PodTerm> out;
  for (const json::value& v : terms) {
    const json::object* t = v.if_object();
    if (!t) continue;
    PodTerm term;
    term.topology_key = text_in(t, "topologyKey");
    term.owner_ns = owner_ns;
    if (const json::array* list = array_in(t, "namespaces"))
      for (const json::value& n : *list)
        if (n.is_string()) term.namespaces.emplace_back(n.as_string());
    term.any_namespace = term.namespaces.empty() && t->contains("namespaceSelector");
    if (const json::value* sel = t->if_contains("labelSelector"); sel && sel->is_object())
      if (auto parsed = LabelSelector::from_json(*sel)) term.selector = std::move(parsed.value());
    out.push_back(std::move(term));
  }
  return out;
}

bool HostPort::clashes(const HostPort& o) const {
  if (port != o.port || protocol != o.protocol) return false;
  return ip == o.ip || ip == "0.0.0.0" || o.ip == "0.0.0.0";
}

PodInfo PodInfo::from(const json::object& pod) {
  PodInfo p;
  const json::object* meta = object_in(&pod, "metadata");
  const json::object* spec = object_in(&pod, "spec");
  if (meta) {
    p.ns = text_in(meta, "namespace");
    p.name = text_in(meta, "name");
    p.uid = text_in(meta, "uid");
    p.created = text_in(meta, "creationTimestamp");
    p.labels = labels_of(object_in(meta, "labels"));
  }
  if (auto it = p.labels.find(kPodGroupLabelKey); it != p.labels.end()) p.group = it->second;
  if (auto it = p.labels.find(kStackLabel); it != p.labels.end()) p.stack = it->second;
  if (!spec) return p;
  if (std::string upstream = text_in(object_in(spec, "schedulingGroup"), "podGroupName");
      !upstream.empty()) {
    p.group = std::move(upstream);
    p.upstream_group = true;
  }
  p.node_name = text_in(spec, "nodeName");
  p.requests = pod_requests(*spec);
  size_t index = 0;
  for (const char* list : {"initContainers", "containers"})
    if (const json::array* cs = array_in(spec, list))
      for (const json::value& c : *cs) extended_of_container(c, index++, p.extended_requests);
  if (const json::array* ts = array_in(spec, "tolerations"))
    for (const json::value& t : *ts)
      if (const json::object* o = t.if_object()) {
        Toleration tol{text_in(o, "key"), text_in(o, "operator"), text_in(o, "value"),
                       text_in(o, "effect")};
        if (tol.op.empty()) tol.op = "Equal";
        p.tolerations.push_back(std::move(tol));
      }
  if (const json::object* sel = object_in(spec, "nodeSelector"))
    for (const auto& [k, v] : *sel)
      p.node_selector.emplace_back(k, v.is_string() ? std::string(v.as_string()) : "\x01");
  const json::object* affinity = object_in(spec, "affinity");
  if (const json::object* required = object_in(object_in(affinity, "nodeAffinity"),
                                               "requiredDuringSchedulingIgnoredDuringExecution")) {
    p.has_node_terms = true;
    if (const json::array* terms = array_in(required, "nodeSelectorTerms")) p.node_terms = *terms;
    p.node_affinity = NodeTerms(p.node_terms);
  }
  if (const json::array* a = array_in(object_in(affinity, "podAffinity"),
                                      "requiredDuringSchedulingIgnoredDuringExecution"))
    p.affinity = PodTerm::read(*a, p.ns);
  if (const json::array* a = array_in(object_in(affinity, "podAntiAffinity"),
                                      "requiredDuringSchedulingIgnoredDuringExecution"))
    p.anti_affinity = PodTerm::read(*a, p.ns);
  read_ports(array_in(spec, "containers"), p.host_ports);
  p.spread = read_spread(array_in(spec, "topologySpreadConstraints"), p.labels);
  if (const json::array* vs = array_in(spec, "volumes"))
    for (const json::value& v : *vs)
      if (const json::object* claim = object_in(v.if_object(), "persistentVolumeClaim"))
        if (std::string name = text_in(claim, "claimName"); !name.empty())
          p.claims.push_back(std::move(name));
  // A claim from a template is the pod's own once the ResourceClaim controller made it and
  // recorded its name in status.resourceClaimStatuses.
  const json::array* made = array_in(object_in(&pod, "status"), "resourceClaimStatuses");
  if (const json::array* rcs = array_in(spec, "resourceClaims"))
    for (const json::value& v : *rcs)
      if (const json::object* o = v.if_object()) {
        PodInfo::DeviceClaimRef ref{text_in(o, "name"), text_in(o, "resourceClaimName"),
                                    text_in(o, "resourceClaimTemplateName")};
        if (ref.claim.empty() && made)
          for (const json::value& m : *made)
            if (const json::object* mo = m.if_object(); mo && text_in(mo, "name") == ref.name)
              ref.claim = text_in(mo, "resourceClaimName");
        p.device_claims.push_back(std::move(ref));
      }
  return p;
}

}  // namespace planter::fit
