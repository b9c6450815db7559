#include "sim/builtin_tables.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <functional>
#include <map>

#include "sim/json_access.h"
#include "sim/table.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

using Clock = std::chrono::system_clock;
using Cells = std::function<json::array(const json::object&, Clock::time_point)>;

struct Printer {
  std::vector<TableColumn> columns;
  Cells cells;
};

TableColumn name_column() {
  return {"Name", "string", "name", "Name must be unique within a namespace.", 0};
}
TableColumn age_column() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created.",
          0};
}
TableColumn text(const char* name, const char* description, int priority = 0) {
  return {name, "string", "", description, priority};
}
TableColumn integer(const char* name, const char* description, int priority = 0) {
  return {name, "integer", "", description, priority};
}

std::string or_none(std::string s) {
  return s.empty() ? "<none>" : s;
}

std::string age(const json::object& o, Clock::time_point now) {
  return age_of(meta_string(o, "creationTimestamp"), now);
}

const json::object* spec_of(const json::object& o) {
  return object_at(o, "spec");
}
const json::object* status_of(const json::object& o) {
  return object_at(o, "status");
}

// Containers and images of a pod template, comma-joined.
std::pair<std::string, std::string> containers_and_images(const json::object* pod_spec) {
  std::string names, images;
  auto* cs = pod_spec ? pod_spec->if_contains("containers") : nullptr;
  if (cs && cs->is_array())
    for (const auto& c : cs->as_array()) {
      if (!c.is_object()) continue;
      names += (names.empty() ? "" : ",") + string_at(c.as_object(), "name");
      images += (images.empty() ? "" : ",") + string_at(c.as_object(), "image");
    }
  return {names, images};
}

// metav1.FormatLabelSelector: "app=web,tier in (a,b),!legacy".
std::string format_selector(const json::object* selector) {
  if (!selector) return "<none>";
  std::vector<std::string> parts;
  if (const json::object* ml = object_at(selector, "matchLabels")) {
    std::map<std::string, std::string> sorted;
    for (const auto& [k, v] : *ml)
      sorted[std::string(k)] = v.is_string() ? std::string(v.as_string()) : "";
    for (const auto& [k, v] : sorted) parts.push_back(k + "=" + v);
  }
  if (auto* exprs = selector->if_contains("matchExpressions"); exprs && exprs->is_array())
    for (const auto& e : exprs->as_array()) {
      if (!e.is_object()) continue;
      std::string key = string_at(e.as_object(), "key"), op = string_at(e.as_object(), "operator");
      std::string values;
      if (auto* vs = e.as_object().if_contains("values"); vs && vs->is_array())
        for (const auto& v : vs->as_array())
          if (v.is_string()) values += (values.empty() ? "" : ",") + std::string(v.as_string());
      if (op == "In") parts.push_back(key + " in (" + values + ")");
      if (op == "NotIn") parts.push_back(key + " notin (" + values + ")");
      if (op == "Exists") parts.push_back(key);
      if (op == "DoesNotExist") parts.push_back("!" + key);
    }
  if (parts.empty()) return "<none>";
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::string format_map(const json::object* m) {
  if (!m || m->empty()) return "<none>";
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : *m)
    sorted[std::string(k)] = v.is_string() ? std::string(v.as_string()) : "";
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

// ---- pods ----

// The STATUS kubectl prints: the phase, or the reason of a container that waits or ended,
// "Init:..." while init containers run, "Terminating" while being deleted.
std::string pod_status(const json::object& pod) {
  const json::object* st = status_of(pod);
  std::string reason = string_at(st, "phase");
  if (!string_at(st, "reason").empty()) reason = string_at(st, "reason");
  auto statuses = [&](const char* field) {
    std::vector<const json::object*> out;
    if (auto* a = st ? st->if_contains(field) : nullptr; a && a->is_array())
      for (const auto& c : a->as_array())
        if (c.is_object()) out.push_back(&c.as_object());
    return out;
  };
  auto init = statuses("initContainerStatuses");
  bool initializing = false;
  for (size_t i = 0; i < init.size(); ++i) {
    const json::object* state = object_at(*init[i], "state");
    const json::object* term = object_at(state, "terminated");
    const json::object* wait = object_at(state, "waiting");
    if (term && int_at(term, "exitCode") == 0) continue;
    initializing = true;
    if (term)
      reason = "Init:" + (string_at(term, "reason").empty() ? "Error" : string_at(term, "reason"));
    else if (wait && !string_at(wait, "reason").empty() &&
             string_at(wait, "reason") != "PodInitializing")
      reason = "Init:" + string_at(wait, "reason");
    else
      reason = "Init:" + std::to_string(i) + "/" + std::to_string(init.size());
    break;
  }
  if (!initializing) {
    auto cs = statuses("containerStatuses");
    bool running = false;
    for (auto it = cs.rbegin(); it != cs.rend(); ++it) {
      const json::object* state = object_at(**it, "state");
      const json::object* wait = object_at(state, "waiting");
      const json::object* term = object_at(state, "terminated");
      if (wait && !string_at(wait, "reason").empty())
        reason = string_at(wait, "reason");
      else if (term && !string_at(term, "reason").empty())
        reason = string_at(term, "reason");
      else if (object_at(state, "running")) {
        auto* ready = (*it)->if_contains("ready");
        if (ready && ready->is_bool() && ready->as_bool()) running = true;
      }
    }
    if (reason == "Completed" && running)
      reason = condition_true(pod, "Ready") ? "Running" : "NotReady";
  }
  if (!meta_string(pod, "deletionTimestamp").empty()) reason = "Terminating";
  return reason.empty() ? "Unknown" : reason;
}

json::array pod_cells(const json::object& pod, Clock::time_point now) {
  const json::object* spec = spec_of(pod);
  const json::object* st = status_of(pod);
  int64_t total = 0, ready = 0, restarts = 0;
  if (auto* cs = spec ? spec->if_contains("containers") : nullptr; cs && cs->is_array())
    total = static_cast<int64_t>(cs->as_array().size());
  if (auto* cs = st ? st->if_contains("containerStatuses") : nullptr; cs && cs->is_array())
    for (const auto& c : cs->as_array()) {
      if (!c.is_object()) continue;
      auto* r = c.as_object().if_contains("ready");
      if (r && r->is_bool() && r->as_bool()) ++ready;
      restarts += int_at(&c.as_object(), "restartCount");
    }
  return json::array{json::value(meta_string(pod, "name")),
                     json::value(std::to_string(ready) + "/" + std::to_string(total)),
                     json::value(pod_status(pod)),
                     json::value(std::to_string(restarts)),
                     json::value(age(pod, now)),
                     json::value(or_none(string_at(st, "podIP"))),
                     json::value(or_none(string_at(spec, "nodeName"))),
                     json::value(or_none(string_at(st, "nominatedNodeName"))),
                     json::value("<none>")};
}

// ---- workloads ----

json::array deployment_cells(const json::object& d, Clock::time_point now) {
  const json::object* spec = spec_of(d);
  const json::object* st = status_of(d);
  auto [containers, images] = containers_and_images(object_at(object_at(spec, "template"), "spec"));
  return json::array{json::value(meta_string(d, "name")),
                     json::value(std::to_string(int_at(st, "readyReplicas")) + "/" +
                                 std::to_string(int_at(spec, "replicas", 1))),
                     json::value(int_at(st, "updatedReplicas")),
                     json::value(int_at(st, "availableReplicas")),
                     json::value(age(d, now)),
                     json::value(containers),
                     json::value(images),
                     json::value(format_selector(object_at(spec, "selector")))};
}

json::array replicaset_cells(const json::object& rs, Clock::time_point now) {
  const json::object* spec = spec_of(rs);
  const json::object* st = status_of(rs);
  auto [containers, images] = containers_and_images(object_at(object_at(spec, "template"), "spec"));
  return json::array{json::value(meta_string(rs, "name")),
                     json::value(int_at(spec, "replicas", 1)),
                     json::value(int_at(st, "replicas")),
                     json::value(int_at(st, "readyReplicas")),
                     json::value(age(rs, now)),
                     json::value(containers),
                     json::value(images),
                     json::value(format_selector(object_at(spec, "selector")))};
}

json::array statefulset_cells(const json::object& s, Clock::time_point now) {
  const json::object* spec = spec_of(s);
  const json::object* st = status_of(s);
  auto [containers, images] = containers_and_images(object_at(object_at(spec, "template"), "spec"));
  return json::array{json::value(meta_string(s, "name")),
                     json::value(std::to_string(int_at(st, "readyReplicas")) + "/" +
                                 std::to_string(int_at(spec, "replicas", 1))),
                     json::value(age(s, now)), json::value(containers), json::value(images)};
}

json::array daemonset_cells(const json::object& ds, Clock::time_point now) {
  const json::object* spec = spec_of(ds);
  const json::object* st = status_of(ds);
  const json::object* pod_spec = object_at(object_at(spec, "template"), "spec");
  auto [containers, images] = containers_and_images(pod_spec);
  return json::array{json::value(meta_string(ds, "name")),
                     json::value(int_at(st, "desiredNumberScheduled")),
                     json::value(int_at(st, "currentNumberScheduled")),
                     json::value(int_at(st, "numberReady")),
                     json::value(int_at(st, "updatedNumberScheduled")),
                     json::value(int_at(st, "numberAvailable")),
                     json::value(format_map(object_at(pod_spec, "nodeSelector"))),
                     json::value(age(ds, now)),
                     json::value(containers),
                     json::value(images),
                     json::value(format_selector(object_at(spec, "selector")))};
}

json::array job_cells(const json::object& job, Clock::time_point now) {
  const json::object* spec = spec_of(job);
  const json::object* st = status_of(job);
  std::string status = "Running";
  if (condition_true(job, "Complete"))
    status = "Complete";
  else if (condition_true(job, "Failed"))
    status = "Failed";
  else if (condition_true(job, "Suspended"))
    status = "Suspended";
  auto* completions = spec ? spec->if_contains("completions") : nullptr;
  std::string done =
      std::to_string(int_at(st, "succeeded")) + "/" +
      (completions && completions->is_int64() ? std::to_string(completions->as_int64()) : "1");
  // From start to completion, or to now while it runs.
  std::string duration;
  if (auto start = parse_rfc3339(string_at(st, "startTime"))) {
    auto end = parse_rfc3339(string_at(st, "completionTime")).value_or(now);
    duration = human_duration(std::chrono::duration_cast<std::chrono::seconds>(end - *start));
  }
  auto [containers, images] = containers_and_images(object_at(object_at(spec, "template"), "spec"));
  return json::array{json::value(meta_string(job, "name")),
                     json::value(status),
                     json::value(done),
                     json::value(duration),
                     json::value(age(job, now)),
                     json::value(containers),
                     json::value(images),
                     json::value(format_selector(object_at(spec, "selector")))};
}

// ---- cluster objects ----

json::array node_cells(const json::object& node, Clock::time_point now) {
  const json::object* st = status_of(node);
  std::string status = condition_true(node, "Ready") ? "Ready" : "NotReady";
  auto* u = spec_of(node) ? spec_of(node)->if_contains("unschedulable") : nullptr;
  if (u && u->is_bool() && u->as_bool()) status += ",SchedulingDisabled";
  std::vector<std::string> roles;
  if (const json::object* labels = object_at(object_at(node, "metadata"), "labels"))
    for (const auto& [k, v] : *labels) {
      std::string_view key = k;
      if (key.starts_with("node-role.kubernetes.io/"))
        roles.emplace_back(key.substr(std::string_view("node-role.kubernetes.io/").size()));
    }
  std::sort(roles.begin(), roles.end());
  std::string role_text;
  for (const auto& r : roles) role_text += (role_text.empty() ? "" : ",") + r;
  std::string internal, external;
  if (auto* a = st ? st->if_contains("addresses") : nullptr; a && a->is_array())
    for (const auto& addr : a->as_array()) {
      if (!addr.is_object()) continue;
      if (string_at(addr.as_object(), "type") == "InternalIP" && internal.empty())
        internal = string_at(addr.as_object(), "address");
      if (string_at(addr.as_object(), "type") == "ExternalIP" && external.empty())
        external = string_at(addr.as_object(), "address");
    }
  const json::object* info = object_at(st, "nodeInfo");
  return json::array{json::value(meta_string(node, "name")),
                     json::value(status),
                     json::value(or_none(role_text)),
                     json::value(age(node, now)),
                     json::value(string_at(info, "kubeletVersion")),
                     json::value(or_none(internal)),
                     json::value(or_none(external)),
                     json::value(string_at(info, "osImage")),
                     json::value(string_at(info, "kernelVersion")),
                     json::value(string_at(info, "containerRuntimeVersion"))};
}

std::string access_modes(const json::value* modes) {
  std::string out;
  if (modes && modes->is_array())
    for (const auto& m : modes->as_array()) {
      if (!m.is_string()) continue;
      std::string_view s = m.as_string();
      std::string short_name = s == "ReadWriteOnce"      ? "RWO"
                               : s == "ReadOnlyMany"     ? "ROX"
                               : s == "ReadWriteMany"    ? "RWX"
                               : s == "ReadWriteOncePod" ? "RWOP"
                                                         : std::string(s);
      out += (out.empty() ? "" : ",") + short_name;
    }
  return out;
}

json::array pvc_cells(const json::object& pvc, Clock::time_point now) {
  const json::object* spec = spec_of(pvc);
  const json::object* st = status_of(pvc);
  std::string capacity = string_at(object_at(st, "capacity"), "storage");
  std::string mode = string_at(spec, "volumeMode");
  return json::array{json::value(meta_string(pvc, "name")),
                     json::value(string_at(st, "phase")),
                     json::value(string_at(spec, "volumeName")),
                     json::value(capacity),
                     json::value(access_modes(st ? st->if_contains("accessModes") : nullptr)),
                     json::value(string_at(spec, "storageClassName")),
                     json::value(or_none(string_at(spec, "volumeAttributesClassName"))),
                     json::value(age(pvc, now)),
                     json::value(mode.empty() ? "Filesystem" : mode)};
}

json::array event_cells(const json::object& ev, Clock::time_point now) {
  const json::object* involved = object_at(ev, "involvedObject");
  std::string last = string_at(ev, "lastTimestamp");
  if (last.empty()) last = string_at(ev, "eventTime");
  std::string first = string_at(ev, "firstTimestamp");
  if (first.empty()) first = last;
  std::string kind = string_at(involved, "kind");
  std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
  std::string source = string_at(object_at(ev, "source"), "component");
  std::string host = string_at(object_at(ev, "source"), "host");
  if (!host.empty()) source += ", " + host;
  return json::array{json::value(age_of(last, now)),
                     json::value(string_at(ev, "type")),
                     json::value(string_at(ev, "reason")),
                     json::value(kind + "/" + string_at(involved, "name")),
                     json::value(string_at(ev, "message")),
                     json::value(string_at(involved, "fieldPath")),
                     json::value(source),
                     json::value(age_of(first, now)),
                     json::value(int_at(&ev, "count", 1)),
                     json::value(meta_string(ev, "name"))};
}

json::array service_cells(const json::object& svc, Clock::time_point now) {
  const json::object* spec = spec_of(svc);
  std::string type = string_at(spec, "type");
  std::string cluster_ip = string_at(spec, "clusterIP");
  std::string external = "<none>";
  if (type == "ExternalName") external = string_at(spec, "externalName");
  if (type == "LoadBalancer") external = "<pending>";
  std::string ports;
  if (auto* ps = spec ? spec->if_contains("ports") : nullptr; ps && ps->is_array())
    for (const auto& p : ps->as_array()) {
      if (!p.is_object()) continue;
      const json::object& po = p.as_object();
      std::string protocol = string_at(po, "protocol");
      std::string one = std::to_string(int_at(&po, "port"));
      if (int_at(&po, "nodePort")) one += ":" + std::to_string(int_at(&po, "nodePort"));
      ports += (ports.empty() ? "" : ",") + one + "/" + (protocol.empty() ? "TCP" : protocol);
    }
  return json::array{json::value(meta_string(svc, "name")),
                     json::value(type),
                     json::value(or_none(cluster_ip)),
                     json::value(external),
                     json::value(or_none(ports)),
                     json::value(age(svc, now)),
                     json::value(format_map(object_at(spec, "selector")))};
}

json::array namespace_cells(const json::object& ns, Clock::time_point now) {
  return json::array{json::value(meta_string(ns, "name")),
                     json::value(string_at(status_of(ns), "phase")), json::value(age(ns, now))};
}

// Entries of a map field (a ConfigMap's data and binaryData, a Secret's data).
int64_t entries(const json::object& o, std::initializer_list<std::string_view> fields) {
  int64_t n = 0;
  for (std::string_view f : fields)
    if (const json::object* m = object_at(o, f)) n += static_cast<int64_t>(m->size());
  return n;
}

json::array configmap_cells(const json::object& cm, Clock::time_point now) {
  return json::array{json::value(meta_string(cm, "name")), entries(cm, {"data", "binaryData"}),
                     json::value(age(cm, now))};
}

json::array secret_cells(const json::object& secret, Clock::time_point now) {
  std::string type = string_at(&secret, "type");
  return json::array{json::value(meta_string(secret, "name")),
                     json::value(type.empty() ? "Opaque" : type), entries(secret, {"data"}),
                     json::value(age(secret, now))};
}

json::array serviceaccount_cells(const json::object& sa, Clock::time_point now) {
  const json::value* secrets = sa.if_contains("secrets");
  int64_t n = secrets && secrets->is_array() ? static_cast<int64_t>(secrets->as_array().size()) : 0;
  return json::array{json::value(meta_string(sa, "name")), n, json::value(age(sa, now))};
}

// Kinds kube-apiserver prints with the name and when they were created (RBAC roles, CRDs).
json::array created_at_cells(const json::object& o, Clock::time_point) {
  return json::array{json::value(meta_string(o, "name")),
                     json::value(meta_string(o, "creationTimestamp"))};
}

json::array binding_cells(const json::object& b, Clock::time_point now) {
  const json::object* ref = object_at(b, "roleRef");
  std::string role = ref ? string_at(ref, "kind") + "/" + string_at(ref, "name") : "";
  std::string users, groups, accounts;
  if (const json::value* subjects = b.if_contains("subjects"); subjects && subjects->is_array())
    for (const json::value& v : subjects->as_array()) {
      if (!v.is_object()) continue;
      const json::object& sub = v.as_object();
      std::string kind = string_at(&sub, "kind"), name = string_at(&sub, "name");
      auto add = [](std::string& to, const std::string& what) {
        to += (to.empty() ? "" : ", ") + what;
      };
      if (kind == "User") add(users, name);
      if (kind == "Group") add(groups, name);
      if (kind == "ServiceAccount") add(accounts, string_at(&sub, "namespace") + "/" + name);
    }
  return json::array{json::value(meta_string(b, "name")),
                     json::value(role),
                     json::value(age(b, now)),
                     json::value(users),
                     json::value(groups),
                     json::value(accounts)};
}

json::array networkpolicy_cells(const json::object& np, Clock::time_point now) {
  const json::object* selector = object_at(spec_of(np), "podSelector");
  std::string shown = selector ? format_selector(selector) : "";
  return json::array{json::value(meta_string(np, "name")),
                     json::value(shown.empty() || shown == "<none>" ? "<none>" : shown),
                     json::value(age(np, now))};
}

json::array pdb_cells(const json::object& pdb, Clock::time_point now) {
  auto value = [&](std::string_view f) -> json::value {
    const json::object* spec = spec_of(pdb);
    const json::value* v = spec ? spec->if_contains(f) : nullptr;
    if (!v) return "N/A";
    return v->is_string() ? json::value(v->as_string()) : json::value(json::serialize(*v));
  };
  const json::object* st = status_of(pdb);
  const json::value* allowed = st ? st->if_contains("disruptionsAllowed") : nullptr;
  return json::array{
      json::value(meta_string(pdb, "name")), value("minAvailable"), value("maxUnavailable"),
      allowed && allowed->is_number() ? *allowed : json::value(0), json::value(age(pdb, now))};
}

json::array cronjob_cells(const json::object& cj, Clock::time_point now) {
  const json::object* spec = spec_of(cj);
  const json::object* st = status_of(cj);
  std::string tz = string_at(spec, "timeZone");
  const json::value* suspend = spec ? spec->if_contains("suspend") : nullptr;
  const json::value* active = st ? st->if_contains("active") : nullptr;
  std::string last = string_at(st, "lastScheduleTime");
  return json::array{
      json::value(meta_string(cj, "name")),
      json::value(string_at(spec, "schedule")),
      json::value(tz.empty() ? "<none>" : tz),
      json::value(suspend && suspend->is_bool() && suspend->as_bool() ? "True" : "False"),
      active && active->is_array() ? static_cast<int64_t>(active->as_array().size()) : 0,
      json::value(last.empty() ? "<none>" : age_of(last, now)),
      json::value(age(cj, now))};
}

json::array apiservice_cells(const json::object& api, Clock::time_point now) {
  const json::object* service = object_at(spec_of(api), "service");
  std::string svc =
      service ? string_at(service, "namespace") + "/" + string_at(service, "name") : "Local";
  std::string available = "Unknown";
  if (const json::value* conds =
          status_of(api) ? status_of(api)->if_contains("conditions") : nullptr;
      conds && conds->is_array())
    for (const json::value& c : conds->as_array())
      if (c.is_object() && string_at(&c.as_object(), "type") == "Available") {
        available = string_at(&c.as_object(), "status");
        if (available != "True") available += " (" + string_at(&c.as_object(), "reason") + ")";
      }
  return json::array{json::value(meta_string(api, "name")), json::value(svc),
                     json::value(available), json::value(age(api, now))};
}

const std::map<std::pair<std::string, std::string>, Printer>& printers() {
  static const auto* all = new std::map<std::pair<std::string, std::string>, Printer>{
      {{"", "Pod"},
       {{name_column(),
         text("Ready", "The aggregate readiness state of this pod for accepting traffic."),
         text("Status", "The aggregate status of the containers in this pod."),
         text("Restarts",
              "The number of times the containers in this pod have been restarted and when the "
              "last container in this pod has restarted."),
         age_column(),
         text("IP",
              "IP address allocated to the pod. Routable at least within the cluster. Empty if not "
              "yet allocated.",
              1),
         text("Node", "Name of the Node this pod is assigned to.", 1),
         text("Nominated Node",
              "nominatedNodeName is set when this pod preempts other pods on the node, but it "
              "cannot be scheduled right away as preemption victims receive their graceful "
              "termination periods.",
              1),
         text("Readiness Gates",
              "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
        pod_cells}},
      {{"apps", "Deployment"},
       {{name_column(), text("Ready", "Number of the pod with ready state"),
         integer("Up-to-date",
                 "Total number of non-terminated pods targeted by this deployment that have the "
                 "desired template spec."),
         integer("Available",
                 "Total number of available pods (ready for at least minReadySeconds) targeted by "
                 "this deployment."),
         age_column(), text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector",
              "Label selector for pods. Existing ReplicaSets whose pods are selected by this will "
              "be the ones affected by this deployment.",
              1)},
        deployment_cells}},
      {{"apps", "ReplicaSet"},
       {{name_column(), integer("Desired", "Replicas is the number of desired replicas."),
         integer("Current", "Replicas is the most recently observed number of replicas."),
         integer("Ready", "The number of ready replicas for this replica set."), age_column(),
         text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector",
              "Selector is a label query over pods that should match the replica count.", 1)},
        replicaset_cells}},
      {{"apps", "StatefulSet"},
       {{name_column(), text("Ready", "Number of the pod with ready state"), age_column(),
         text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1)},
        statefulset_cells}},
      {{"apps", "DaemonSet"},
       {{name_column(),
         integer("Desired", "The total number of nodes that should be running the daemon pod."),
         integer("Current",
                 "The number of nodes that are running at least 1 daemon pod and are supposed to "
                 "run the daemon pod."),
         integer("Ready",
                 "The number of nodes that should be running the daemon pod and have one or more "
                 "of the daemon pod running and ready."),
         integer("Up-to-date", "The total number of nodes that are running updated daemon pod"),
         integer("Available",
                 "The number of nodes that should be running the daemon pod and have one or more "
                 "of the daemon pod running and available."),
         text("Node Selector",
              "NodeSelector is a selector which must be true for the pod to fit on a node."),
         age_column(), text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector", "A label query over pods that are managed by the daemon set.", 1)},
        daemonset_cells}},
      {{"batch", "Job"},
       {{name_column(), text("Status", "Status of the job."),
         text("Completions",
              "The desired number of successfully finished pods the job should be run with."),
         text("Duration", "Time required to complete the job."), age_column(),
         text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector", "A label query over pods that should match the pod count.", 1)},
        job_cells}},
      {{"", "Node"},
       {{name_column(), text("Status", "The status of the node"),
         text("Roles", "The roles of the node"), age_column(),
         text("Version", "Kubelet Version reported by the node."),
         text("Internal-IP", "List of internal IPs for the node.", 1),
         text("External-IP", "List of external IPs for the node.", 1),
         text("OS-Image",
              "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
              "(wheezy)).",
              1),
         text("Kernel-Version",
              "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
              1),
         text("Container-Runtime",
              "Container runtime version reported by the node through runtime remote API (e.g. "
              "containerd://1.4.2).",
              1)},
        node_cells}},
      {{"", "PersistentVolumeClaim"},
       {{name_column(),
         text("Status", "Phase represents the current phase of PersistentVolumeClaim."),
         text("Volume",
              "VolumeName is the binding reference to the PersistentVolume backing this claim."),
         text("Capacity", "Capacity represents the actual resources of the underlying volume."),
         text("Access Modes",
              "AccessModes contains the actual access modes the volume backing the PVC has."),
         text("StorageClass",
              "StorageClassName is the name of the StorageClass required by the claim."),
         text("VolumeAttributesClass", "VolumeAttributesClassName of the claim."), age_column(),
         text("VolumeMode", "VolumeMode defines what type of volume is required by the claim.", 1)},
        pvc_cells}},
      {{"", "Event"},
       {{text("Last Seen",
              "The time at which the most recent occurrence of this event was recorded."),
         text("Type",
              "Type of this event (Normal, Warning), new types could be added in the future."),
         text("Reason",
              "This should be a short, machine understandable string that gives the reason for "
              "this event being generated."),
         text("Object", "The object that this event is about."),
         text("Message", "A human-readable description of the status of this operation."),
         text("Subobject", "The subobject (field path) of the object that this event is about.", 1),
         text("Source", "The component reporting this event.", 1),
         text("First Seen", "The time at which the event was first recorded.", 1),
         integer("Count", "The number of times this event has occurred.", 1),
         {"Name", "string", "name", "Name must be unique within a namespace.", 1}},
        event_cells}},
      {{"", "Service"},
       {{name_column(), text("Type", "The type of the service."),
         text("Cluster-IP", "The IP address of the service."),
         text("External-IP", "The external IP address of the service."),
         text("Port(s)", "The ports the service exposes."), age_column(),
         text("Selector",
              "Route service traffic to pods with label keys and values matching this selector.",
              1)},
        service_cells}},
      {{"", "Namespace"},
       {{name_column(), text("Status", "The status of the namespace"), age_column()},
        namespace_cells}},
      {{"", "ConfigMap"},
       {{name_column(), integer("Data", "The number of entries in data and binaryData."),
         age_column()},
        configmap_cells}},
      {{"", "Secret"},
       {{name_column(), text("Type", "The type of the secret"),
         integer("Data", "The number of entries in data."), age_column()},
        secret_cells}},
      {{"", "ServiceAccount"},
       {{name_column(), integer("Secrets", "The number of secrets of the service account."),
         age_column()},
        serviceaccount_cells}},
      {{"rbac.authorization.k8s.io", "Role"},
       {{name_column(), text("Created At", "Time at which the role was created.")},
        created_at_cells}},
      {{"rbac.authorization.k8s.io", "ClusterRole"},
       {{name_column(), text("Created At", "Time at which the role was created.")},
        created_at_cells}},
      {{"rbac.authorization.k8s.io", "RoleBinding"},
       {{name_column(), text("Role", "The role the binding grants."), age_column(),
         text("Users", "The users of the binding.", 1),
         text("Groups", "The groups of the binding.", 1),
         text("ServiceAccounts", "The service accounts of the binding.", 1)},
        binding_cells}},
      {{"rbac.authorization.k8s.io", "ClusterRoleBinding"},
       {{name_column(), text("Role", "The role the binding grants."), age_column(),
         text("Users", "The users of the binding.", 1),
         text("Groups", "The groups of the binding.", 1),
         text("ServiceAccounts", "The service accounts of the binding.", 1)},
        binding_cells}},
      {{"apiextensions.k8s.io", "CustomResourceDefinition"},
       {{name_column(), text("Created At", "Time at which the definition was created.")},
        created_at_cells}},
      {{"networking.k8s.io", "NetworkPolicy"},
       {{name_column(), text("Pod-Selector", "The pods the policy selects."), age_column()},
        networkpolicy_cells}},
      {{"policy", "PodDisruptionBudget"},
       {{name_column(), text("Min Available", "The minimum number of pods that must be available."),
         text("Max Unavailable", "The maximum number of pods that may be unavailable."),
         integer("Allowed Disruptions", "The number of pod disruptions currently allowed."),
         age_column()},
        pdb_cells}},
      {{"batch", "CronJob"},
       {{name_column(), text("Schedule", "The schedule in Cron format."),
         text("Timezone", "The time zone of the schedule."),
         text("Suspend", "Whether the cron job is suspended."),
         integer("Active", "The number of running jobs."),
         text("Last Schedule", "When a job was last scheduled."), age_column()},
        cronjob_cells}},
      {{"apiregistration.k8s.io", "APIService"},
       {{name_column(), text("Service", "The service that serves the API."),
         text("Available", "Whether the API is available."), age_column()},
        apiservice_cells}},
  };
  return *all;
}

}  // namespace

bool has_builtin_table(std::string_view group, std::string_view kind) {
  return printers().contains({std::string(group), std::string(kind)});
}

std::string render_builtin_table(std::string_view group, std::string_view kind,
                                 const std::vector<const json::object*>& objects,
                                 std::string_view include_object, json::object list_metadata,
                                 Clock::time_point now) {
  const Printer& p = printers().at({std::string(group), std::string(kind)});
  return render_rows(
      p.columns, [&](const json::object& o) { return p.cells(o, now); }, objects, include_object,
      std::move(list_metadata));
}

}  // namespace planter::sim
