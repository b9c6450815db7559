#include "sim/api_defaults.h"

#include <utility>

#include "sim/json_access.h"
#include "sim/kube_scheduler/pod_resources.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

// SetDefaults_HTTPGetAction: path "/", scheme HTTP.
void default_http_get(json::object& handler) {
  auto* get = handler.if_contains("httpGet");
  if (!get || !get->is_object()) return;
  json::object& g = get->as_object();
  if (string_at(g, "path").empty()) g["path"] = "/";
  if (string_at(g, "scheme").empty()) g["scheme"] = "HTTP";
}

// SetDefaults_Probe: a field left out (or 0) takes kube-apiserver's value.
void default_probe(json::value& probe_v) {
  if (!probe_v.is_object()) return;
  json::object& probe = probe_v.as_object();
  for (auto [field, value] : {std::pair{"timeoutSeconds", 1}, std::pair{"periodSeconds", 10},
                              std::pair{"successThreshold", 1}, std::pair{"failureThreshold", 3}}) {
    json::value* v = probe.if_contains(field);
    if (!v || v->is_null() || (v->is_int64() && v->as_int64() == 0)) probe[field] = value;
  }
  default_http_get(probe);
}

void default_container(json::object& c) {
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    if (auto* p = c.if_contains(probe)) default_probe(*p);
  if (auto* lifecycle = c.if_contains("lifecycle"); lifecycle && lifecycle->is_object())
    for (const char* hook : {"postStart", "preStop"})
      if (auto* h = lifecycle->as_object().if_contains(hook); h && h->is_object())
        default_http_get(h->as_object());
  // Requests default to limits, resource by resource.
  auto& res_v = c["resources"];
  if (!res_v.is_object()) res_v = json::object{};
  json::object& res = res_v.as_object();
  if (auto* limits = res.if_contains("limits"); limits && limits->is_object()) {
    auto& req_v = res["requests"];
    if (!req_v.is_object()) req_v = json::object{};
    for (const auto& [name, amount] : res.at("limits").as_object())
      if (!req_v.as_object().contains(name)) req_v.as_object()[name] = amount;
  }
  if (auto* ports = c.if_contains("ports"); ports && ports->is_array())
    for (auto& port : ports->as_array())
      if (port.is_object() && !port.as_object().contains("protocol"))
        port.as_object()["protocol"] = "TCP";
  if (!c.contains("terminationMessagePath")) c["terminationMessagePath"] = "/dev/termination-log";
  if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
  if (!c.contains("imagePullPolicy")) {
    // Always for :latest or no tag, IfNotPresent otherwise.
    std::string image = string_at(c, "image");
    std::string last = image.substr(
        image.find_last_of('/') == std::string::npos ? 0 : image.find_last_of('/') + 1);
    bool tagged = last.find(':') != std::string::npos || image.find('@') != std::string::npos;
    bool latest = last.size() >= 7 && last.ends_with(":latest");
    c["imagePullPolicy"] = (!tagged || latest) ? "Always" : "IfNotPresent";
  }
}

void add_toleration(json::array& tolerations, const char* key) {
  for (const auto& t : tolerations)
    if (t.is_object() && string_at(t.as_object(), "key") == key &&
        (string_at(t.as_object(), "effect") == "NoExecute" ||
         string_at(t.as_object(), "effect").empty()))
      return;
  tolerations.push_back(json::object{
      {"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
}

// What SetDefaults gives every pod spec, templates included.
void default_pod_spec(json::object& spec) {
  for (const char* field : {"containers", "initContainers"})
    if (auto* cs = spec.if_contains(field); cs && cs->is_array())
      for (auto& c : cs->as_array())
        if (c.is_object()) default_container(c.as_object());
  auto set = [&](const char* key, json::value v) {
    if (!spec.contains(key)) spec[key] = std::move(v);
  };
  set("restartPolicy", "Always");
  set("terminationGracePeriodSeconds", 30);
  set("dnsPolicy", "ClusterFirst");
  set("securityContext", json::object{});
  set("schedulerName", "default-scheduler");
}

// The pod spec of a workload's template.
void default_template(json::object& workload_spec) {
  auto* tmpl = workload_spec.if_contains("template");
  if (!tmpl || !tmpl->is_object()) return;
  auto& spec = tmpl->as_object()["spec"];
  if (!spec.is_object()) spec = json::object{};
  default_pod_spec(spec.as_object());
}

}  // namespace

void default_pod(json::object& pod) {
  auto& spec_v = pod["spec"];
  if (!spec_v.is_object()) spec_v = json::object{};
  json::object& spec = spec_v.as_object();
  default_pod_spec(spec);
  auto set = [&](const char* key, json::value v) {
    if (!spec.contains(key)) spec[key] = std::move(v);
  };
  if (string_at(spec, "serviceAccountName").empty()) {
    std::string legacy = string_at(spec, "serviceAccount");
    spec["serviceAccountName"] = legacy.empty() ? "default" : legacy;
  }
  set("serviceAccount", json::value(string_at(spec, "serviceAccountName")));
  set("enableServiceLinks", true);
  set("priority", 0);
  set("preemptionPolicy", "PreemptLowerPriority");
  auto& tol = spec["tolerations"];
  if (!tol.is_array()) tol = json::array{};
  add_toleration(tol.as_array(), "node.kubernetes.io/not-ready");
  add_toleration(tol.as_array(), "node.kubernetes.io/unreachable");
  pod["status"] = {{"phase", "Pending"}, {"qosClass", sched::qos_class(spec)}};
}

void default_apps_workload(json::object& workload, std::string_view kind) {
  auto& spec_v = workload["spec"];
  if (!spec_v.is_object()) spec_v = json::object{};
  json::object& spec = spec_v.as_object();
  if (kind != "DaemonSet" && !spec.contains("replicas")) spec["replicas"] = 1;
  if (!spec.contains("revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
  const char* field = kind == "Deployment" ? "strategy" : "updateStrategy";
  auto& strategy = spec[field];
  if (!strategy.is_object()) strategy = json::object{};
  json::object& s = strategy.as_object();
  if (!s.contains("type")) s["type"] = "RollingUpdate";
  if (string_at(s, "type") == "RollingUpdate") {
    auto& rolling = s["rollingUpdate"];
    if (!rolling.is_object()) rolling = json::object{};
    json::object& r = rolling.as_object();
    if (kind == "Deployment") {
      if (!r.contains("maxUnavailable")) r["maxUnavailable"] = "25%";
      if (!r.contains("maxSurge")) r["maxSurge"] = "25%";
    } else if (kind == "StatefulSet") {
      if (!r.contains("partition")) r["partition"] = 0;
    } else {
      if (!r.contains("maxUnavailable")) r["maxUnavailable"] = 1;
      if (!r.contains("maxSurge")) r["maxSurge"] = 0;
    }
  }
  default_template(spec);
  if (kind == "Deployment" && !spec.contains("progressDeadlineSeconds"))
    spec["progressDeadlineSeconds"] = 600;
  if (kind == "StatefulSet") {
    if (!spec.contains("podManagementPolicy")) spec["podManagementPolicy"] = "OrderedReady";
    if (!spec.contains("persistentVolumeClaimRetentionPolicy"))
      spec["persistentVolumeClaimRetentionPolicy"] = {{"whenDeleted", "Retain"},
                                                      {"whenScaled", "Retain"}};
  }
}

void default_job(json::object& job) {
  auto& spec_v = job["spec"];
  if (!spec_v.is_object()) spec_v = json::object{};
  json::object& spec = spec_v.as_object();
  std::string uid = meta_string(job, "uid"), name = meta_string(job, "name");
  auto* manual = spec.if_contains("manualSelector");
  bool manual_selector = manual && manual->is_bool() && manual->as_bool();
  if (!spec.contains("selector") && !manual_selector) {
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
    auto& tmpl = spec["template"];
    if (!tmpl.is_object()) tmpl = json::object{};
    auto& meta = tmpl.as_object()["metadata"];
    if (!meta.is_object()) meta = json::object{};
    auto& labels = meta.as_object()["labels"];
    if (!labels.is_object()) labels = json::object{};
    json::object& l = labels.as_object();
    l["batch.kubernetes.io/controller-uid"] = uid;
    l["batch.kubernetes.io/job-name"] = name;
    l["controller-uid"] = uid;
    l["job-name"] = name;
  }
  if (!spec.contains("completions") && !spec.contains("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  if (!spec.contains("parallelism")) spec["parallelism"] = 1;
  if (!spec.contains("backoffLimit")) spec["backoffLimit"] = 6;
  if (!spec.contains("completionMode")) spec["completionMode"] = "NonIndexed";
  if (!spec.contains("suspend")) spec["suspend"] = false;
  default_template(spec);
}

}  // namespace planter::sim
