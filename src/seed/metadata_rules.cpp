#include "seed/metadata_rules.h"

#include <fmt/format.h>

#include <array>
#include <boost/json.hpp>
#include <cmath>
#include <string>
#include <string_view>

#include "model/base64.h"
#include "model/names.h"
#include "seed/template_variables.h"

namespace planter {

namespace json = boost::json;

namespace {

// The API server's descriptions of its rules (k8s.io/apimachinery/pkg/util/validation).
constexpr std::string_view kLabelRule =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1035Rule =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kConfigKeyRule =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool is_dns1035_label(std::string_view s) {
  return is_dns_label(s) && std::isalpha(static_cast<unsigned char>(s.front()));
}

// RBAC names are path segments: `system:aggregate-to-admin` is a valid ClusterRole name.
std::string path_segment_problem(std::string_view s) {
  if (s == "." || s == "..") return fmt::format("may not be '{}'", s);
  if (s.find('/') != std::string_view::npos) return "may not contain '/'";
  if (s.find('%') != std::string_view::npos) return "may not contain '%'";
  return {};
}

bool is_rbac_kind(const ObjectRef& r) {
  return r.group() == "rbac.authorization.k8s.io" &&
         (r.kind == "Role" || r.kind == "ClusterRole" || r.kind == "RoleBinding" ||
          r.kind == "ClusterRoleBinding");
}

void invalid(const Object& o, Diagnostics& diags, std::string_view field, std::string_view value,
             std::string_view rule, std::string hint) {
  diags.add(o.where(), o.display(),
            fmt::format("{}: Invalid value: \"{}\": {}", field, value, rule), std::move(hint));
}

void check_name(const Object& o, Diagnostics& diags) {
  const std::string& name = o.ref.name;
  if (has_template_variable(name)) return;  // reported as a template variable
  bool core = o.ref.group().empty();
  if (core && o.ref.kind == "Namespace") {
    if (!is_dns_label(name))
      invalid(o, diags, "metadata.name", name, kLabelRule, "rename the Namespace, e.g. my-app");
  } else if (core && o.ref.kind == "Service") {
    if (!is_dns1035_label(name))
      invalid(o, diags, "metadata.name", name, kDns1035Rule, "rename the Service, e.g. my-svc");
  } else if (is_rbac_kind(o.ref)) {
    if (std::string why = path_segment_problem(name); !why.empty())
      invalid(o, diags, "metadata.name", name, why, "rename it");
  } else if (!is_dns_subdomain(name)) {
    invalid(o, diags, "metadata.name", name, kSubdomainRule, "rename it, e.g. my-name");
  }
  if (!o.ref.ns.empty() && !is_dns_label(o.ref.ns) && !has_template_variable(o.ref.ns))
    invalid(o, diags, "metadata.namespace", o.ref.ns, kLabelRule,
            "use the name of a Namespace, e.g. my-app");
}

void check_labels(const Object& o, const json::object& meta, Diagnostics& diags) {
  const json::value* labels = meta.if_contains("labels");
  if (!labels || labels->is_null()) return;
  if (!labels->is_object()) {
    diags.add(o.where(), o.display(), "metadata.labels must be a mapping of strings to strings",
              "write labels as `key: value` lines under metadata.labels");
    return;
  }
  for (const auto& kv : labels->get_object()) {
    std::string field = fmt::format("metadata.labels[{}]", std::string_view(kv.key()));
    if (std::string why = qualified_name_problem(kv.key()); !why.empty())
      invalid(o, diags, "metadata.labels", kv.key(), why,
              "use a key such as app.kubernetes.io/name");
    if (!kv.value().is_string()) {
      diags.add(o.where(), o.display(),
                fmt::format("{} must be a string, not {}", field, json::serialize(kv.value())),
                "quote the value");
      continue;
    }
    std::string_view v = kv.value().get_string();
    if (v.size() <= 63 && has_template_variable(v))
      report_template_variable(o, field, v, diags);
    else if (std::string why = label_value_problem(v); !why.empty())
      invalid(o, diags, field, v, why,
              v.size() > 63 ? "shorten the value"
                            : "label values are short words; put free text in an annotation");
  }
}

void check_annotations(const Object& o, const json::object& meta, Diagnostics& diags) {
  const json::value* annotations = meta.if_contains("annotations");
  if (!annotations || annotations->is_null()) return;
  if (!annotations->is_object()) {
    diags.add(o.where(), o.display(),
              "metadata.annotations must be a mapping of strings to strings",
              "write annotations as `key: value` lines under metadata.annotations");
    return;
  }
  size_t total = 0;
  for (const auto& kv : annotations->get_object()) {
    if (std::string why = qualified_name_problem(kv.key()); !why.empty())
      invalid(o, diags, "metadata.annotations", kv.key(), why,
              "use a key such as example.com/purpose");
    total += kv.key().size();
    if (!kv.value().is_string()) {
      diags.add(o.where(), o.display(),
                fmt::format("metadata.annotations[{}] must be a string, not {}",
                            std::string_view(kv.key()), json::serialize(kv.value())),
                "quote the value, e.g. \"true\" or \"3\"");
      continue;
    }
    total += kv.value().get_string().size();
  }
  if (total > kMaxAnnotationBytes)
    diags.add(
        o.where(), o.display(),
        fmt::format("metadata.annotations: Too long: may not be more than {} bytes (they have {})",
                    kMaxAnnotationBytes, total),
        "move large values into a ConfigMap");
}

// ConfigMap data/binaryData and Secret data/stringData: keys are file names in a volume.
void check_data_keys(const Object& o, Diagnostics& diags) {
  if (!o.ref.group().empty() || (o.ref.kind != "ConfigMap" && o.ref.kind != "Secret")) return;
  std::array<std::string_view, 2> fields = {"data",
                                            o.ref.kind == "Secret" ? "stringData" : "binaryData"};
  for (std::string_view field : fields) {
    const json::value* data = o.body.if_contains(field);
    if (!data || data->is_null()) continue;
    if (data->is_string() && has_template_variable(data->get_string())) {
      report_template_variable(o, field, data->get_string(), diags);
      continue;
    }
    if (!data->is_object()) {
      diags.add(o.where(), o.display(),
                fmt::format("{} must be a mapping of keys to strings", field),
                "write one `key: value` line per entry");
      continue;
    }
    for (const auto& kv : data->get_object()) {
      std::string_view key = kv.key();
      std::string problem;
      if (key.empty()) {
        problem = "a key must not be empty";
      } else if (key.size() > 253) {
        problem = "must be no more than 253 characters";
      } else if (key == "." || key == ".." || key.starts_with("..")) {
        problem = key == "."    ? "must not be '.'"
                  : key == ".." ? "must not be '..'"
                                : "must not start with '..'";
      } else {
        for (char c : key)
          if (!is_alnum(c) && c != '-' && c != '_' && c != '.') problem = kConfigKeyRule;
      }
      if (!problem.empty())
        invalid(o, diags, fmt::format("{}[{}]", field, key), key, problem,
                "name the key like a file, e.g. config.yaml");
      if (!kv.value().is_string())
        diags.add(
            o.where(), o.display(),
            fmt::format("{}[{}] must be a string, not {}", field, key, json::serialize(kv.value())),
            "quote the value");
      else if (field != "stringData" && (o.ref.kind == "Secret" || field == "binaryData") &&
               !base64_decode(kv.value().get_string()))
        diags.add(o.where(), o.display(),
                  fmt::format("{}[{}] is not base64: kube-apiserver decodes {} values", field, key,
                              field),
                  o.ref.kind == "Secret"
                      ? "encode it (base64 -w0), or put the text under stringData"
                      : "encode it (base64 -w0), or put the text under data");
    }
  }
}

// One walk over an object: an upper bound of its JSON size that reads no string's bytes (every
// character might be escaped as \u00XX, every number take 24 characters), and whether it holds a
// number JSON cannot carry (YAML's .nan and .inf).
struct SizeBound {
  size_t bytes = 0;
  bool non_finite = false;

  void object(const json::object& o) {
    bytes += 2;
    for (const auto& kv : o) {
      bytes += 6 * kv.key().size() + 4;
      value(kv.value());
    }
  }
  void value(const json::value& v) {
    switch (v.kind()) {
      case json::kind::string:
        bytes += 6 * v.get_string().size() + 2;
        return;
      case json::kind::object:
        return object(v.get_object());
      case json::kind::array:
        bytes += 2;
        for (const auto& item : v.get_array()) {
          bytes += 1;
          value(item);
        }
        return;
      case json::kind::double_:
        non_finite = non_finite || !std::isfinite(v.get_double());
        [[fallthrough]];
      default:
        bytes += 24;
    }
  }
};

// The JSON size of `o`, counted in chunks without building the text.
size_t json_size(const json::object& o) {
  json::serializer sr;
  sr.reset(&o);
  char buf[16384];
  size_t n = 0;
  while (!sr.done()) n += sr.read(buf, sizeof buf).size();
  return n;
}

}  // namespace

void check_metadata(const Object& o, Diagnostics& diags) {
  check_name(o, diags);
  if (const json::value* meta = o.body.if_contains("metadata"); meta && meta->is_object()) {
    check_labels(o, meta->get_object(), diags);
    check_annotations(o, meta->get_object(), diags);
  }
  check_data_keys(o, diags);
  SizeBound bound;
  bound.object(o.body);
  if (bound.non_finite)
    diags.add(o.where(), o.display(),
              "it holds .nan or .inf, which JSON (and so the API server) cannot carry",
              "quote the value to make it a string, or use a finite number");
  // Most objects are far below the limit: only those that might pass it are serialized.
  if (size_t bytes = bound.bytes > kMaxObjectBytes ? json_size(o.body) : 0; bytes > kMaxObjectBytes)
    diags.add(o.where(), o.display(),
              fmt::format("the object is {} bytes as JSON; kube-apiserver takes at most {} bytes "
                          "(3 MiB) in one request",
                          bytes, kMaxObjectBytes),
              "split it, or keep large data outside the cluster's API");
}

}  // namespace planter
