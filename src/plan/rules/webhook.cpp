// Rule "webhook": an object that an admission webhook (failurePolicy Fail) must answer for, or a
// custom resource whose CRD converts through a webhook, waits for the webhook's Service to have a
// ready endpoint. The webhook's own backing workloads are exempt: they are what makes it answer.
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/label_selector.h"
#include "plan/rules.h"

namespace planter {

namespace json = boost::json;

namespace {

// A webhook of the seed that can hold up other objects: an admission webhook
// (Mutating/ValidatingWebhookConfiguration) or a CRD conversion webhook, each backed by a Service.
struct Webhook {
  struct Rule {
    std::vector<std::string> groups, versions, resources, operations;
    std::string scope = "*";
  };

  size_t config = 0;  // the configuration object (or the CRD, for a conversion webhook)
  std::string name;
  ObjectRef service;  // v1 Service <namespace>/<name>
  // Conversion webhooks hold up every object of one kind (empty for admission webhooks).
  std::string conversion_group, conversion_kind;
  std::vector<Rule> rules;
  LabelSelector namespace_selector;
  LabelSelector object_selector;
};

// The family index: the seed's webhooks.
struct Webhooks {
  std::vector<Webhook> all;
};

std::vector<std::string> strings_at(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const json::value* v = o.if_contains(key); v && v->is_array())
    for (const auto& s : v->get_array())
      if (s.is_string()) out.emplace_back(s.get_string());
  return out;
}

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end() ||
         std::find(list.begin(), list.end(), "*") != list.end();
}

std::optional<ObjectRef> service_of(const json::object& client_config) {
  const json::value* svc = client_config.if_contains("service");
  if (!svc || !svc->is_object())
    return std::nullopt;  // a URL webhook: nothing in the seed to wait on
  const auto* ns = find_string(svc->get_object(), {"namespace"});
  const auto* name = find_string(svc->get_object(), {"name"});
  if (!ns || !name) return std::nullopt;
  return ObjectRef{"v1", "Service", std::string(*ns), std::string(*name)};
}

bool is_workload(const ObjectRef& r) {
  auto g = r.group();
  return (g == "apps" && (r.kind == "Deployment" || r.kind == "StatefulSet" ||
                          r.kind == "DaemonSet" || r.kind == "ReplicaSet")) ||
         (g.empty() && (r.kind == "Pod" || r.kind == "ReplicationController"));
}

// True when `o` is one of the workloads whose pods back `service` (in the seed).
bool backs_service(const RuleContext& ctx, const Object& o, const ObjectRef& service) {
  if (o.ref.ns != service.ns || !is_workload(o.ref)) return false;
  for (size_t s : ctx.index.by_key(service)) {
    const json::value* selector = find_path(ctx.objects[s].body, {"spec", "selector"});
    if (!selector || !selector->is_object() || selector->get_object().empty()) continue;
    const json::value* pod_labels =
        o.ref.kind == "Pod" ? find_path(o.body, {"metadata", "labels"})
                            : find_path(o.body, {"spec", "template", "metadata", "labels"});
    Labels labels = labels_of(pod_labels ? pod_labels->if_object() : nullptr);
    bool all = true;
    for (const auto& kv : selector->get_object()) {
      auto it = labels.find(std::string_view(kv.key()));
      all = all && kv.value().is_string() && it != labels.end() &&
            it->second == std::string_view(kv.value().get_string());
    }
    if (all) return true;
  }
  return false;
}

// Labels a namespaceSelector sees: the seed's Namespace on that cluster, plus the label every
// Namespace gets from the API server.
Labels namespace_labels(const RuleContext& ctx, const std::string& ns, uint32_t cluster) {
  Labels labels;
  for (size_t i : ctx.index.namespaces_named(ns))
    if (ctx.placed_on(i, cluster)) labels = labels_of(ctx.objects[i].labels());
  labels["kubernetes.io/metadata.name"] = ns;
  return labels;
}

bool admission_matches(const RuleContext& ctx, const Webhook& w, const Object& o,
                       uint32_t cluster) {
  std::string_view group = o.ref.group();
  const KindInfo* info = ctx.kinds.find(group, o.ref.kind);
  bool namespaced = !o.ref.ns.empty();
  bool rule_matches = std::any_of(w.rules.begin(), w.rules.end(), [&](const Webhook::Rule& r) {
    bool op = contains(r.operations, "CREATE") || contains(r.operations, "UPDATE");
    bool res = contains(r.resources, "*/*") || (info && contains(r.resources, info->resource)) ||
               std::find(r.resources.begin(), r.resources.end(), "*") != r.resources.end();
    bool scope = r.scope == "*" || (r.scope == "Cluster" && !namespaced) ||
                 (r.scope == "Namespaced" && namespaced);
    return op && res && scope && contains(r.groups, group) && contains(r.versions, o.ref.version());
  });
  if (!rule_matches) return false;
  if (!w.object_selector.matches(labels_of(o.labels()))) return false;
  bool is_namespace = o.ref.kind == "Namespace" && group.empty();
  if (is_namespace) {
    Labels own = labels_of(o.labels());
    own["kubernetes.io/metadata.name"] = o.ref.name;
    return w.namespace_selector.matches(own);
  }
  if (!namespaced) return true;  // namespaceSelector does not apply to cluster-scoped objects
  return w.namespace_selector.matches(namespace_labels(ctx, o.ref.ns, cluster));
}

void read_admission(const Object& o, size_t index, std::vector<Webhook>& out, Diagnostics& diags) {
  const json::value* hooks = o.body.if_contains("webhooks");
  if (!hooks || !hooks->is_array()) return;
  for (const auto& h : hooks->get_array()) {
    const json::object* ho = h.if_object();
    if (!ho) continue;
    const auto* policy = find_string(*ho, {"failurePolicy"});
    if (policy && *policy == "Ignore") continue;  // the API server admits without an answer
    const json::value* cc = ho->if_contains("clientConfig");
    if (!cc || !cc->is_object()) continue;
    auto svc = service_of(cc->get_object());
    if (!svc) continue;
    Webhook w;
    w.config = index;
    const auto* name = find_string(*ho, {"name"});
    w.name = name ? std::string(*name) : std::string{};
    w.service = std::move(*svc);
    if (const json::value* rules = ho->if_contains("rules"); rules && rules->is_array()) {
      for (const auto& r : rules->get_array()) {
        const json::object* ro = r.if_object();
        if (!ro) continue;
        Webhook::Rule rule{strings_at(*ro, "apiGroups"), strings_at(*ro, "apiVersions"),
                           strings_at(*ro, "resources"), strings_at(*ro, "operations"), "*"};
        if (const auto* scope = find_string(*ro, {"scope"})) rule.scope = std::string(*scope);
        w.rules.push_back(std::move(rule));
      }
    }
    for (auto [key, sel] : {std::pair{"namespaceSelector", &w.namespace_selector},
                            std::pair{"objectSelector", &w.object_selector}}) {
      if (const json::value* v = ho->if_contains(key)) {
        auto parsed = LabelSelector::from_json(*v);
        if (!parsed) {
          diags.add(o.where(), o.display(),
                    fmt::format("webhook {}: {}: {}", w.name, key, parsed.error().message));
          continue;
        }
        *sel = std::move(parsed.value());
      }
    }
    out.push_back(std::move(w));
  }
}

void read_conversion(const Object& crd, size_t index, std::vector<Webhook>& out) {
  const auto* strategy = find_string(crd.body, {"spec", "conversion", "strategy"});
  if (!strategy || *strategy != "Webhook") return;
  const json::value* cc = find_path(crd.body, {"spec", "conversion", "webhook", "clientConfig"});
  if (!cc) cc = find_path(crd.body, {"spec", "conversion", "webhookClientConfig"});  // v1beta1
  if (!cc || !cc->is_object()) return;
  auto svc = service_of(cc->get_object());
  const auto* g = find_string(crd.body, {"spec", "group"});
  const auto* k = find_string(crd.body, {"spec", "names", "kind"});
  if (!svc || !g || !k) return;
  Webhook w;
  w.config = index;
  w.name = crd.ref.name + " conversion";
  w.service = std::move(*svc);
  w.conversion_group = *g;
  w.conversion_kind = *k;
  out.push_back(std::move(w));
}

}  // namespace

// Reads the admission webhooks (and CRD conversion webhooks) of the seed, reporting malformed ones.
FamilyIndex prepare_webhooks(const RuleContext& ctx) {
  const std::vector<Object>& objects = ctx.objects;
  Diagnostics& diags = ctx.diags;
  std::vector<Webhook> out;
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    std::string_view group = o.ref.group();
    if (group == "admissionregistration.k8s.io" &&
        (o.ref.kind == "MutatingWebhookConfiguration" ||
         o.ref.kind == "ValidatingWebhookConfiguration")) {
      read_admission(o, i, out, diags);
    } else if (group == "apiextensions.k8s.io" && o.ref.kind == "CustomResourceDefinition") {
      read_conversion(o, i, out);
    }
  }
  return FamilyIndex::of(Webhooks{std::move(out)});
}

void require_webhook_service(const RuleContext& ctx, const Unit& unit,
                             std::vector<Requirement>& out) {
  const std::vector<Webhook>& webhooks = ctx.family<Webhooks>().all;
  if (webhooks.empty()) return;
  const Object& o = ctx.objects[unit.object];
  for (const Webhook& w : webhooks) {
    if (unit.object == w.config || !ctx.placed_on(w.config, unit.cluster_index)) continue;
    if (o.ref.same_object(w.service)) continue;
    bool matches = w.conversion_kind.empty()
                       ? admission_matches(ctx, w, o, unit.cluster_index)
                       : o.ref.group() == w.conversion_group && o.ref.kind == w.conversion_kind;
    if (!matches || backs_service(ctx, o, w.service)) continue;
    out.push_back(ctx.need(w.service, unit.cluster_index,
                           ReadinessPredicate::of(ReadinessPredicate::Type::kEndpointsReady),
                           "webhook"));
  }
}

}  // namespace planter
