#include "sim/object_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>

#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/quantity.h"
#include "sim/name_validation.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr size_t kAnnotationsMax = 256 * 1024;  // all annotations together, keys included

std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

const char* json_type(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  return "number";
}

// Go's rendering of a map[string]string in a field.Invalid message.
std::string go_map(const json::object* labels) {
  if (!labels || labels->empty()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [k, v] : *labels) {
    out += (first ? "" : ", ") + quoted(k) + ":" +
           quoted(v.is_string() ? std::string_view(v.as_string()) : "");
    first = false;
  }
  return out + "}";
}

}  // namespace

std::optional<std::string> object_meta_decode_error(const json::object& obj) {
  const json::object* meta = object_at(&obj, "metadata");
  if (!meta) return std::nullopt;
  for (const char* field : {"labels", "annotations"}) {
    const json::value* v = meta->if_contains(field);
    if (!v || v->is_null()) continue;
    std::string where = std::string("Go struct field ObjectMeta.metadata.") + field;
    if (!v->is_object())
      return std::string("json: cannot unmarshal ") + json_type(*v) + " into " + where +
             " of type map[string]string";
    for (const auto& [k, value] : v->as_object())
      if (!value.is_string())
        return std::string("json: cannot unmarshal ") + json_type(value) + " into " + where +
               " of type string";
  }
  return std::nullopt;
}

std::vector<Cause> object_meta_causes(const json::object& obj) {
  std::vector<Cause> out;
  const json::object* meta = object_at(&obj, "metadata");
  if (!meta) return out;
  if (const json::object* labels = object_at(meta, "labels")) {
    for (const auto& [k, v] : *labels) {
      for (std::string& why : qualified_name_problems(k))
        out.push_back(
            {"FieldValueInvalid", "Invalid value: " + quoted(k) + ": " + why, "metadata.labels"});
      std::string_view value = v.is_string() ? std::string_view(v.as_string()) : "";
      if (value.size() > kNameMax)
        out.push_back({"FieldValueInvalid",
                       "Invalid value: " + quoted(value) + ": must be no more than " +
                           std::to_string(kNameMax) + " characters",
                       "metadata.labels"});
      if (!value.empty() && !is_qualified_token(value))
        out.push_back({"FieldValueInvalid",
                       "Invalid value: " + quoted(value) + ": " + kLabelValueRule,
                       "metadata.labels"});
    }
  }
  if (const json::object* annotations = object_at(meta, "annotations")) {
    size_t total = 0;
    for (const auto& [k, v] : *annotations) {
      total += k.size() + (v.is_string() ? v.as_string().size() : 0);
      for (std::string& why : qualified_name_problems(lower(std::string(k))))
        out.push_back({"FieldValueInvalid", "Invalid value: " + quoted(k) + ": " + why,
                       "metadata.annotations"});
    }
    if (total > kAnnotationsMax)
      out.push_back({"FieldValueTooLong",
                     "Too long: may not be more than " + std::to_string(kAnnotationsMax) + " bytes",
                     "metadata.annotations"});
  }
  return out;
}

std::vector<Cause> workload_selector_causes(const ResourceType& t, const json::object& obj) {
  std::vector<Cause> out;
  if (t.group != "apps") return out;
  std::string which;
  if (t.kind == "Deployment" || t.kind == "ReplicaSet")
    which = "deployment";  // kube-apiserver says "deployment" for ReplicaSets too
  else if (t.kind == "StatefulSet")
    which = "statefulset";
  else if (t.kind == "DaemonSet")
    which = "daemonset";
  else
    return out;
  const json::object* spec = object_at(&obj, "spec");
  const json::value* selector = spec ? spec->if_contains("selector") : nullptr;
  if (!selector || selector->is_null()) {
    out.push_back({"FieldValueRequired", "Required value", "spec.selector"});
    return out;
  }
  const json::object* sel = selector->if_object();
  const json::object* match_labels = sel ? object_at(sel, "matchLabels") : nullptr;
  const json::array* expressions = nullptr;
  if (sel)
    if (const json::value* e = sel->if_contains("matchExpressions")) expressions = e->if_array();
  if ((!match_labels || match_labels->empty()) && (!expressions || expressions->empty())) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                   "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is "
                   "invalid for " +
                       which,
                   "spec.selector"});
    return out;
  }
  const json::object* labels =
      object_at(object_at(object_at(spec, "template"), "metadata"), "labels");
  if (!sched::label_selector_matches(selector, labels))
    out.push_back(
        {"FieldValueInvalid",
         "Invalid value: " + go_map(labels) + ": `selector` does not match template `labels`",
         "spec.template.metadata.labels"});
  return out;
}

namespace {

// A ConfigMap's or Secret's data, all values together (core.MaxSecretSize).
constexpr size_t kConfigDataMax = 1 << 20;

// IsConfigMapKey's problems with `key`, in its order.
std::vector<std::string> config_key_problems(std::string_view key) {
  std::vector<std::string> out;
  if (key.size() > kSubdomainMax)
    out.push_back("must be no more than " + std::to_string(kSubdomainMax) + " characters");
  bool allowed = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return is_alnum(c) || c == '-' || c == '_' || c == '.';
  });
  if (!allowed)
    out.push_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')");
  if (key == ".")
    out.push_back("must not be '.'");
  else if (key == "..")
    out.push_back("must not be '..'");
  else if (key.starts_with(".."))
    out.push_back("must not start with '..'");
  return out;
}

}  // namespace

std::vector<Cause> config_key_causes(const ResourceType& t, const json::object& obj) {
  std::vector<Cause> out;
  if (!t.group.empty() || (t.kind != "ConfigMap" && t.kind != "Secret")) return out;
  std::vector<std::string_view> maps = {"data"};
  maps.push_back(t.kind == "ConfigMap" ? "binaryData" : "stringData");
  // What the values hold, in bytes (base64 decoded where the API carries bytes: binaryData, a
  // Secret's data); kube-apiserver refuses more than 1 MiB in all.
  size_t total = 0;
  for (std::string_view field : maps) {
    const json::object* entries = object_at(&obj, field);
    if (!entries) continue;
    for (const auto& [key, value] : *entries) {
      if (value.is_string()) {
        size_t n = value.get_string().size();
        bool bytes = field == "binaryData" || (t.kind == "Secret" && field == "data");
        total += bytes ? n / 4 * 3 : n;
      }
      // A Secret's stringData is merged into data before kube-apiserver validates it.
      std::string path =
          std::string(field == "stringData" ? "data" : field) + "[" + std::string(key) + "]";
      for (std::string& why : config_key_problems(key))
        out.push_back({"FieldValueInvalid", "Invalid value: " + quoted(key) + ": " + why, path});
      if (t.kind == "ConfigMap" && field == "binaryData")
        if (const json::object* data = object_at(&obj, "data"); data && data->contains(key))
          out.push_back({"FieldValueInvalid",
                         "Invalid value: " + quoted(key) + ": duplicate of key present in data",
                         path});
    }
  }
  if (total > kConfigDataMax)
    out.push_back({"FieldValueTooLong",
                   "Too long: may not be more than " + std::to_string(kConfigDataMax) + " bytes",
                   "[]"});
  return out;
}

namespace {

// One count of a workload: where it is, and the Go struct kube-apiserver decodes it into.
struct CountField {
  std::vector<std::string_view> path;  // from the object's root
  std::string_view go_struct;          // "DeploymentSpec"
};

std::vector<CountField> count_fields(const ResourceType& t) {
  auto job = [](std::vector<std::string_view> base, std::string_view go) {
    std::vector<CountField> out;
    for (std::string_view f : {"parallelism", "completions", "backoffLimit"}) {
      std::vector<std::string_view> p = base;
      p.push_back(f);
      out.push_back({std::move(p), go});
    }
    return out;
  };
  if (t.group == "apps" && t.kind == "Deployment")
    return {{{"spec", "replicas"}, "DeploymentSpec"}};
  if (t.group == "apps" && t.kind == "ReplicaSet")
    return {{{"spec", "replicas"}, "ReplicaSetSpec"}};
  if (t.group == "apps" && t.kind == "StatefulSet")
    return {{{"spec", "replicas"}, "StatefulSetSpec"}};
  if (t.group.empty() && t.kind == "ReplicationController")
    return {{{"spec", "replicas"}, "ReplicationControllerSpec"}};
  if (t.group == "batch" && t.kind == "Job") return job({"spec"}, "JobSpec");
  if (t.group == "batch" && t.kind == "CronJob")
    return job({"spec", "jobTemplate", "spec"}, "JobSpec");
  return {};
}

const json::value* value_at(const json::object& obj, const std::vector<std::string_view>& path) {
  const json::object* at = &obj;
  const json::value* v = nullptr;
  for (std::string_view step : path) {
    if (!at) return nullptr;
    v = at->if_contains(step);
    if (!v) return nullptr;
    at = v->if_object();
  }
  return v;
}

std::string dotted(const std::vector<std::string_view>& path) {
  std::string out;
  for (std::string_view s : path) out += (out.empty() ? "" : ".") + std::string(s);
  return out;
}

}  // namespace

std::optional<std::string> workload_count_decode_error(const ResourceType& t,
                                                       const json::object& obj) {
  for (const CountField& f : count_fields(t)) {
    const json::value* v = value_at(obj, f.path);
    if (!v || v->is_null()) continue;
    std::string where = "Go struct field " + std::string(f.go_struct) + "." + dotted(f.path);
    bool fits = (v->is_int64() && v->get_int64() >= INT32_MIN && v->get_int64() <= INT32_MAX) ||
                (v->is_uint64() && v->get_uint64() <= uint64_t(INT32_MAX)) ||
                (v->is_double() && v->get_double() == std::floor(v->get_double()) &&
                 v->get_double() >= INT32_MIN && v->get_double() <= INT32_MAX);
    if (fits) continue;
    if (v->is_number())
      return "json: cannot unmarshal number " + json::serialize(*v) + " into " + where +
             " of type int32";
    return std::string("json: cannot unmarshal ") + json_type(*v) + " into " + where +
           " of type int32";
  }
  return std::nullopt;
}

std::vector<Cause> workload_count_causes(const ResourceType& t, const json::object& obj) {
  std::vector<Cause> out;
  for (const CountField& f : count_fields(t)) {
    const json::value* v = value_at(obj, f.path);
    if (!v || !v->is_number()) continue;
    double n = v->to_number<double>();
    if (n < 0)
      out.push_back(
          {"FieldValueInvalid",
           "Invalid value: " + json::serialize(*v) + ": must be greater than or equal to 0",
           dotted(f.path)});
  }
  return out;
}

namespace {

// An extended resource, as apimachinery's IsExtendedResourceName says: a qualified name with a
// '/', outside the kubernetes.io domain, and not a quota's requests.* name.
bool extended_resource(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

// Quantity.String() of a plain decimal amount given in thousandths: "-1", "500m", "1500m".
std::string canonical(int64_t milli, bool negative) {
  std::string sign = negative ? "-" : "";
  if (milli % 1000 == 0) return sign + std::to_string(milli / 1000);
  return sign + std::to_string(milli) + "m";
}

// Where a kind holds its pod spec, as a path from the object's root; none for other kinds.
std::vector<std::string_view> pod_spec_path(const ResourceType& t) {
  if (t.group.empty() && t.kind == "Pod") return {"spec"};
  if ((t.group.empty() && (t.kind == "ReplicationController" || t.kind == "PodTemplate")) ||
      (t.group == "apps" && (t.kind == "Deployment" || t.kind == "ReplicaSet" ||
                             t.kind == "StatefulSet" || t.kind == "DaemonSet")) ||
      (t.group == "batch" && t.kind == "Job"))
    return t.kind == "PodTemplate" ? std::vector<std::string_view>{"template", "spec"}
                                   : std::vector<std::string_view>{"spec", "template", "spec"};
  if (t.group == "batch" && t.kind == "CronJob")
    return {"spec", "jobTemplate", "spec", "template", "spec"};
  return {};
}

}  // namespace

std::vector<Cause> container_resource_causes(const ResourceType& t, const json::object& obj) {
  std::vector<Cause> out;
  std::vector<std::string_view> path = pod_spec_path(t);
  if (path.empty()) return out;
  const json::value* spec_value = value_at(obj, path);
  const json::object* spec = spec_value ? spec_value->if_object() : nullptr;
  if (!spec) return out;
  std::string base = dotted(path);
  for (std::string_view list : {"initContainers", "containers"}) {
    std::vector<const json::object*> containers = containers_in(spec, list);
    for (size_t i = 0; i < containers.size(); ++i) {
      const json::object* resources = object_at(containers[i], "resources");
      for (std::string_view kind : {"limits", "requests"}) {
        const json::object* amounts = object_at(resources, kind);
        if (!amounts) continue;
        for (const auto& [name, value] : *amounts) {
          std::string text = value.is_string()   ? std::string(value.get_string())
                             : value.is_number() ? json::serialize(value)
                                                 : std::string();
          bool negative = text.starts_with("-");
          auto milli = sched::parse_milli(std::string_view(text).substr(negative ? 1 : 0));
          if (!milli) continue;  // not a quantity: refused when the body is decoded
          std::string field = fmt::format("{}.{}[{}].resources.{}[{}]", base, list, i, kind,
                                          std::string_view(name));
          std::string shown = canonical(*milli, negative);
          if (negative && *milli > 0)
            out.push_back({"FieldValueInvalid",
                           "Invalid value: \"" + shown + "\": must be greater than or equal to 0",
                           field});
          if (extended_resource(name) && *milli % 1000 != 0)
            out.push_back({"FieldValueInvalid",
                           "Invalid value: \"" + shown + "\": must be an integer", field});
        }
      }
    }
  }
  return out;
}

}  // namespace planter::sim
