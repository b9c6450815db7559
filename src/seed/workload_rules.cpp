#include "seed/workload_rules.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "model/quantity.h"
#include "seed/template_variables.h"

namespace planter {

namespace json = boost::json;

namespace {

struct Fields {
  std::vector<std::string_view> counts;    // int32 fields under spec (dotted below spec)
  std::vector<std::string_view> pod_spec;  // path of the pod spec from the body's root
};

// Where each kind keeps its counts and its pods' spec.
const Fields* fields_of(const ObjectRef& r) {
  static const Fields kScaled{{"replicas"}, {"spec", "template", "spec"}};
  static const Fields kDaemon{{}, {"spec", "template", "spec"}};
  static const Fields kJob{{"parallelism", "completions", "backoffLimit"},
                           {"spec", "template", "spec"}};
  static const Fields kCronJob{{}, {"spec", "jobTemplate", "spec", "template", "spec"}};
  static const Fields kPod{{}, {"spec"}};
  static const Fields kPodTemplate{{}, {"template", "spec"}};
  std::string_view group = r.group();
  const std::string& kind = r.kind;
  if (group == "apps" && (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet"))
    return &kScaled;
  if (group == "apps" && kind == "DaemonSet") return &kDaemon;
  if (group.empty() && kind == "ReplicationController") return &kScaled;
  if (group == "batch" && kind == "Job") return &kJob;
  if (group == "batch" && kind == "CronJob") return &kCronJob;
  if (group.empty() && kind == "Pod") return &kPod;
  if (group.empty() && kind == "PodTemplate") return &kPodTemplate;
  return nullptr;
}

const json::value* walk(const json::object& root, const std::vector<std::string_view>& path) {
  const json::value* at = nullptr;
  const json::object* o = &root;
  for (std::string_view step : path) {
    if (!o) return nullptr;
    at = o->if_contains(step);
    if (!at) return nullptr;
    o = at->if_object();
  }
  return at;
}

struct Checker {
  const Object& o;
  Diagnostics& diags;

  void invalid(const std::string& field, const std::string& value, std::string_view rule,
               std::string hint) {
    diags.add(o.where(), o.display(), fmt::format("{}: Invalid value: {}: {}", field, value, rule),
              std::move(hint));
  }

  // An int32 count of at least 0 (a string with a template variable is reported elsewhere).
  void count(const json::object& spec, std::string_view name, const std::string& prefix) {
    const json::value* v = spec.if_contains(name);
    if (!v || v->is_null()) return;
    std::string field = fmt::format("{}.{}", prefix, name);
    if (v->is_string() && has_template_variable(v->get_string())) return;
    if (!v->is_number() || (v->is_double() && v->get_double() != std::floor(v->get_double()))) {
      diags.add(o.where(), o.display(),
                fmt::format("{} must be an integer, not {}", field, json::serialize(*v)),
                "write a whole number, e.g. 3");
      return;
    }
    // Compared as doubles: exact for every int32, and no conversion of a huge value is undefined.
    double n = v->to_number<double>();
    if (n < 0)
      invalid(field, json::serialize(*v), "must be greater than or equal to 0",
              "a count cannot be negative");
    else if (n > std::numeric_limits<int32_t>::max())
      invalid(field, json::serialize(*v), "must be no more than 2147483647",
              "Kubernetes counts are 32-bit integers");
  }

  // One container's requests and limits.
  void resources(const json::object& container, const std::string& prefix) {
    if (const json::value* r = container.if_contains("resources"); r && r->is_object())
      check_resources(o, r->as_object(), prefix, true, diags);
  }

  void pod_spec(const json::object& spec, const std::string& prefix) {
    for (std::string_view list : {"initContainers", "containers"}) {
      const json::value* cs = spec.if_contains(list);
      if (!cs || !cs->is_array()) continue;
      for (size_t i = 0; i < cs->as_array().size(); ++i)
        if (const json::object* c = cs->as_array()[i].if_object())
          resources(*c, fmt::format("{}.{}[{}]", prefix, list, i));
    }
  }
};

std::string dotted(const std::vector<std::string_view>& path) {
  std::string out;
  for (std::string_view s : path) out += (out.empty() ? "" : ".") + std::string(s);
  return out;
}

}  // namespace

void check_resources(const Object& o, const json::object& resources, const std::string& path,
                     bool request_within_limit, Diagnostics& diags) {
  auto invalid = [&](const std::string& field, const std::string& text, std::string_view rule,
                     std::string hint) {
    diags.add(o.where(), o.display(),
              fmt::format("{}: Invalid value: \"{}\": {}", field, text, rule), std::move(hint));
  };
  std::map<std::string, std::pair<double, std::string>, std::less<>> limits;
  for (std::string_view which : {"limits", "requests"}) {
    const json::value* list = resources.if_contains(which);
    if (!list || !list->is_object()) continue;
    for (const auto& [name, q] : list->as_object()) {
      std::string field = fmt::format("{}.resources.{}[{}]", path, which, std::string_view(name));
      std::string text = quantity_text(&q);
      if (has_template_variable(text)) continue;
      std::optional<double> amount = parse_signed_quantity(text);
      if (!amount) {
        invalid(field, text, "must be a quantity",
                "write it as Kubernetes does: 500m, 2, 512Mi, 4Gi");
        continue;
      }
      if (*amount < 0) {
        invalid(field, text, "must be greater than or equal to 0",
                "a resource amount cannot be negative");
        continue;
      }
      if (!request_within_limit) continue;
      if (which == "limits") {
        limits.emplace(std::string(name), std::make_pair(*amount, text));
      } else if (auto it = limits.find(std::string_view(name));
                 it != limits.end() && *amount > it->second.first * (1 + 1e-12)) {
        invalid(fmt::format("{}.resources.requests", path), text,
                fmt::format("must be less than or equal to {} limit of {}", std::string_view(name),
                            it->second.second),
                "raise the limit, or lower the request");
      }
    }
  }
}

void check_workload_numbers(const Object& o, Diagnostics& diags) {
  const Fields* f = fields_of(o.ref);
  if (!f) return;
  Checker c{o, diags};
  if (const json::value* spec = o.body.if_contains("spec"); spec && spec->is_object()) {
    for (std::string_view name : f->counts) c.count(spec->as_object(), name, "spec");
    if (o.ref.kind == "CronJob")
      if (const json::value* job = find_path(spec->as_object(), {"jobTemplate", "spec"});
          job && job->is_object())
        for (std::string_view name : {"parallelism", "completions", "backoffLimit"})
          c.count(job->as_object(), name, "spec.jobTemplate.spec");
  }
  if (const json::value* ps = walk(o.body, f->pod_spec); ps && ps->is_object())
    c.pod_spec(ps->as_object(), dotted(f->pod_spec));
}

}  // namespace planter
