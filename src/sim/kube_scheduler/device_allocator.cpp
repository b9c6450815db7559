#include "sim/kube_scheduler/device_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "cel/functions.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

// The allocator gives up on a node after this many choices tried (a search with constraints can
// be exponential; kube-scheduler bounds it by time).
constexpr uint64_t kStepBudget = 200'000;

// An attribute's value as CEL sees it: `{int: 1}`, `{bool: true}`, `{string: "a"}`,
// `{version: "1.2.3"}` (a semver value).
cel::Value attribute_value(const json::object& attr) {
  if (const json::value* v = attr.if_contains("int"); v && v->is_int64())
    return cel::Value::integer(v->get_int64());
  if (const json::value* v = attr.if_contains("bool"); v && v->is_bool())
    return cel::Value::boolean(v->get_bool());
  if (const json::value* v = attr.if_contains("string"); v && v->is_string())
    return cel::Value::string(std::string(v->get_string()));
  if (const json::value* v = attr.if_contains("version"); v && v->is_string())
    return cel::parse_semver(v->get_string());
  return cel::Value::error("attribute without a value");
}

// The text that two equal attribute values share, for matchAttribute.
std::string attribute_text(const json::object& attr) {
  for (const char* k : {"int", "bool", "string", "version"})
    if (const json::value* v = attr.if_contains(k))
      return std::string(k) + ":" + json::serialize(*v);
  return {};
}

// "domain/name" of an attribute key; unqualified keys are in the driver's domain.
std::pair<std::string, std::string> qualified(std::string_view key, std::string_view driver) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string(driver), std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

// `device` as DRA's CEL environment binds it: driver, attributes and capacity by domain.
cel::Bindings device_binding(const std::string& driver, const json::object& device) {
  std::map<std::string, cel::Map> attributes, capacity;
  if (const json::object* attrs = object_at(device, "attributes"))
    for (const auto& [key, v] : *attrs)
      if (v.is_object()) {
        auto [domain, name] = qualified(key, driver);
        attributes[domain].emplace_back(cel::Value::string(name), attribute_value(v.get_object()));
      }
  if (const json::object* caps = object_at(device, "capacity"))
    for (const auto& [key, v] : *caps)
      if (v.is_object()) {
        auto [domain, name] = qualified(key, driver);
        std::string text = string_at(v.get_object(), "value");
        auto milli = parse_milli(v.get_object().if_contains("value"));
        capacity[domain].emplace_back(
            cel::Value::string(name),
            cel::Value::quantity({static_cast<double>(milli.value_or(0)) / 1000.0, text}));
      }
  cel::Map attrs_by_domain, caps_by_domain;
  for (auto& [domain, m] : attributes)
    attrs_by_domain.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  for (auto& [domain, m] : capacity)
    caps_by_domain.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  cel::Map d = {{cel::Value::string("driver"), cel::Value::string(driver)},
                {cel::Value::string("attributes"), cel::Value::map(std::move(attrs_by_domain))},
                {cel::Value::string("capacity"), cel::Value::map(std::move(caps_by_domain))}};
  return {{"device", cel::Value::map(std::move(d))}};
}

// Whether a slice's devices are for `node`.
bool slice_for_node(const json::object& spec, const json::object& node) {
  if (const json::value* all = spec.if_contains("allNodes");
      all && all->is_bool() && all->get_bool())
    return true;
  std::string node_name = string_at(spec, "nodeName");
  if (!node_name.empty()) return node_name == meta_string(node, "name");
  if (const json::object* selector = object_at(spec, "nodeSelector"))
    if (const json::array* terms = array_at(selector, "nodeSelectorTerms"))
      for (const json::value& t : *terms)
        if (t.is_object() && node_selector_term_matches(t.get_object(), node)) return true;
  return false;
}

// A DeviceTaintRule's selector (driver, pool, device) picks the device.
bool rule_selects(const json::object& rule_spec, const DeviceId& id) {
  const json::object* sel = object_at(rule_spec, "deviceSelector");
  if (!sel) return true;
  for (auto [key, value] : {std::pair{"driver", &id.driver}, std::pair{"pool", &id.pool},
                            std::pair{"device", &id.device}}) {
    std::string want = string_at(sel, key);
    if (!want.empty() && want != *value) return false;
  }
  return true;
}

}  // namespace

const Result<cel::Program>& CelCache::get(const std::string& expression) {
  auto it = programs_.find(expression);
  if (it != programs_.end()) return it->second;
  cel::ParseOptions options{{"device"}};
  return programs_.emplace(expression, cel::Program::compile(expression, options)).first->second;
}

DeviceAllocator::DeviceAllocator(std::vector<StoredObject> claims, const Store& store,
                                 CelCache& cel)
    : claims_(std::move(claims)), cel_(cel) {
  read_devices(store);
  std::map<std::string, const json::object*> classes;
  for (const auto& [_, c] : store.bucket("resource.k8s.io/deviceclasses"))
    classes[meta_string(*c, "name")] = c.get();
  auto class_of = [&](const std::string& request, const json::object* spec) -> const json::object* {
    std::string name = string_at(spec, "deviceClassName");
    auto it = classes.find(name);
    if (it != classes.end()) return it->second;
    if (!missing_class_)
      missing_class_ = fmt::format("request {}: device class {} does not exist", request, name);
    return nullptr;
  };
  for (size_t c = 0; c < claims_.size(); ++c) {
    const json::object* devices = object_at(object_at(*claims_[c], "spec"), "devices");
    if (const json::array* reqs = array_at(devices, "requests"))
      for (const json::value& r : *reqs) {
        if (!r.is_object()) continue;
        Request req{c, string_at(r.get_object(), "name"), {}};
        if (const json::object* exactly = object_at(r.get_object(), "exactly")) {
          req.alternatives.push_back({req.name, exactly, class_of(req.name, exactly), {}});
        } else if (const json::array* first = array_at(&r.get_object(), "firstAvailable")) {
          for (const json::value& sub : *first)
            if (sub.is_object()) {
              std::string name = req.name + "/" + string_at(sub.get_object(), "name");
              req.alternatives.push_back(
                  {name, &sub.get_object(), class_of(name, &sub.get_object()), {}});
            }
        }
        for (Alternative& a : req.alternatives) a.matches.assign(devices_.size(), -1);
        requests_.push_back(std::move(req));
      }
    if (const json::array* cons = array_at(devices, "constraints"))
      for (const json::value& k : *cons) {
        if (!k.is_object()) continue;
        Constraint con{c, {}, string_at(k.get_object(), "matchAttribute")};
        if (con.attribute.empty()) continue;
        if (const json::array* names = array_at(&k.get_object(), "requests"))
          for (const json::value& n : *names)
            if (n.is_string()) con.requests.insert(std::string(n.get_string()));
        constraints_.push_back(std::move(con));
      }
  }
  constraint_state_.assign(constraints_.size(), {std::string(), 0});
}

void DeviceAllocator::read_devices(const Store& store) {
  // Pools: the newest generation of each, complete when all its slices are published.
  struct Pool {
    int64_t generation = -1;
    int64_t expected = 0;
    int64_t seen = 0;
  };
  std::map<std::pair<std::string, std::string>, Pool> pools;
  const auto& slices = store.bucket("resource.k8s.io/resourceslices");
  for (const auto& [_, s] : slices) {
    const json::object* spec = object_at(*s, "spec");
    const json::object* pool = object_at(spec, "pool");
    Pool& p = pools[{string_at(spec, "driver"), string_at(pool, "name")}];
    int64_t gen = int_at(pool, "generation");
    if (gen > p.generation) p = Pool{gen, int_at(pool, "resourceSliceCount", 1), 0};
    if (gen == p.generation) ++p.seen;
  }
  std::vector<std::pair<const json::object*, DeviceId>> rules;
  for (const auto& [_, s] : slices) {
    const json::object* spec = object_at(*s, "spec");
    std::string driver = string_at(spec, "driver");
    const json::object* pool = object_at(spec, "pool");
    const Pool& p = pools[{driver, string_at(pool, "name")}];
    if (int_at(pool, "generation") != p.generation || p.seen < p.expected) continue;
    if (const json::array* devs = array_at(spec, "devices"))
      for (const json::value& d : *devs) {
        if (!d.is_object()) continue;
        Device dev{{driver, string_at(pool, "name"), string_at(d.get_object(), "name")},
                   &d.get_object(),
                   spec,
                   {},
                   std::nullopt};
        if (const json::array* taints = array_at(&d.get_object(), "taints"))
          for (const json::value& t : *taints)
            if (t.is_object()) dev.taints.push_back(&t.get_object());
        std::string node = string_at(spec, "nodeName");
        (node.empty() ? shared_ : by_node_[node]).push_back(devices_.size());
        devices_.push_back(std::move(dev));
      }
  }
  for (const auto& [_, rule] : store.bucket("resource.k8s.io/devicetaintrules")) {
    const json::object* spec = object_at(*rule, "spec");
    const json::object* taint = object_at(spec, "taint");
    if (!taint) continue;
    for (Device& d : devices_)
      if (rule_selects(*spec, d.id)) d.taints.push_back(taint);
  }
  for (const auto& [_, c] : store.bucket("resource.k8s.io/resourceclaims")) {
    const json::object* alloc = object_at(object_at(*c, "status"), "allocation");
    if (const json::array* results = array_at(object_at(alloc, "devices"), "results"))
      for (const json::value& r : *results)
        if (r.is_object())
          allocated_.insert({string_at(r.get_object(), "driver"), string_at(r.get_object(), "pool"),
                             string_at(r.get_object(), "device")});
  }
}

bool DeviceAllocator::selectors_match(const json::object* owner, const char* what, size_t device) {
  const json::array* selectors = array_at(owner, "selectors");
  if (!selectors) return true;
  int index = 0;
  for (const json::value& s : *selectors) {
    std::string expression =
        string_at(object_at(s.is_object() ? &s.get_object() : nullptr, "cel"), "expression");
    const auto& program = cel_.get(expression);
    if (!program) {
      if (!selector_error_)
        selector_error_ = fmt::format("{} selector #{}: {}", what, index, program.error().message);
      return false;
    }
    Device& d = devices_[device];
    if (!d.binding) d.binding = device_binding(d.id.driver, *d.spec);
    cel::EvalResult r = program->evaluate(*d.binding);
    if (r.value.is_error()) {
      if (!selector_error_)
        selector_error_ =
            fmt::format("{} selector #{}: CEL runtime error: {}", what, index, r.value.text());
      return false;
    }
    if (!r.value.is_bool() || !r.value.as_bool()) return false;
    ++index;
  }
  return true;
}

bool DeviceAllocator::matches(Alternative& a, size_t device) {
  int8_t& known = a.matches[device];
  if (known < 0) {
    const json::object* class_spec = object_at(a.device_class, "spec");
    bool ok = a.device_class && selectors_match(class_spec, "class", device) &&
              selectors_match(a.spec, "request", device);
    known = ok ? 1 : 0;
  }
  return known == 1;
}

// A NoSchedule or NoExecute taint needs a toleration of the request (key, operator Exists or
// Equal with the value, effect empty or the same), as pods tolerate node taints.
bool DeviceAllocator::tolerated(const Alternative& a, const Device& d) const {
  for (const json::object* taint : d.taints) {
    std::string effect = string_at(taint, "effect");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    bool ok = false;
    if (const json::array* tols = array_at(a.spec, "tolerations"))
      for (const json::value& t : *tols) {
        if (!t.is_object()) continue;
        const json::object& tol = t.get_object();
        std::string key = string_at(tol, "key"), op = string_at(tol, "operator");
        std::string tol_effect = string_at(tol, "effect");
        if (!key.empty() && key != string_at(taint, "key")) continue;
        if (op != "Exists" && string_at(tol, "value") != string_at(taint, "value")) continue;
        if (!tol_effect.empty() && tol_effect != effect) continue;
        ok = true;
        break;
      }
    if (!ok) return false;
  }
  return true;
}

std::optional<std::string> DeviceAllocator::attribute(const Device& d,
                                                      const std::string& qualified_name) const {
  if (const json::object* attrs = object_at(*d.spec, "attributes"))
    for (const auto& [key, v] : *attrs) {
      auto [domain, name] = qualified(key, d.id.driver);
      if (domain + "/" + name == qualified_name && v.is_object())
        return attribute_text(v.get_object());
    }
  return std::nullopt;
}

bool DeviceAllocator::constraints_hold(size_t request, size_t device) const {
  const Request& r = requests_[request];
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const Constraint& c = constraints_[k];
    if (c.claim != r.claim || (!c.requests.empty() && !c.requests.contains(r.name))) continue;
    auto value = attribute(devices_[device], c.attribute);
    if (!value) return false;
    if (constraint_state_[k].second > 0 && constraint_state_[k].first != *value) return false;
  }
  return true;
}

void DeviceAllocator::take(size_t request, size_t device, int delta) {
  const Request& r = requests_[request];
  used_[device] = delta > 0;
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const Constraint& c = constraints_[k];
    if (c.claim != r.claim || (!c.requests.empty() && !c.requests.contains(r.name))) continue;
    auto& [value, count] = constraint_state_[k];
    if (delta > 0 && count == 0) value = *attribute(devices_[device], c.attribute);
    count += delta;
  }
}

// Chooses `need` more devices for `request` (alternative `alt`) from on_node_[start..], then
// goes on with the next request; every matching device for allocationMode All.
bool DeviceAllocator::fill(size_t request, size_t alt, size_t start, size_t need, bool all,
                           std::vector<std::vector<size_t>>& chosen,
                           std::vector<size_t>& alternative) {
  if (need == 0 && !all) return search(request + 1, chosen, alternative);
  Alternative& a = requests_[request].alternatives[alt];
  for (size_t i = start; i < on_node_.size(); ++i) {
    if (++steps_ > kStepBudget) return false;
    size_t d = on_node_[i];
    if (!matches(a, d)) continue;
    // All: every matching device of the node, none taken, each tolerated and within the
    // constraints; anything else fails the request.
    bool usable = !used_[d] && !allocated_.contains(devices_[d].id) && tolerated(a, devices_[d]) &&
                  constraints_hold(request, d);
    if (!usable) {
      if (all) return false;
      continue;
    }
    take(request, d, +1);
    chosen[request].push_back(d);
    if (fill(request, alt, i + 1, all ? 0 : need - 1, all, chosen, alternative)) return true;
    chosen[request].pop_back();
    take(request, d, -1);
    if (all) return false;
  }
  if (all && !chosen[request].empty()) return search(request + 1, chosen, alternative);
  return false;
}

bool DeviceAllocator::search(size_t request, std::vector<std::vector<size_t>>& chosen,
                             std::vector<size_t>& alternative) {
  if (request == requests_.size()) return true;
  Request& r = requests_[request];
  for (size_t alt = 0; alt < r.alternatives.size(); ++alt) {
    const Alternative& a = r.alternatives[alt];
    if (!a.device_class) continue;
    std::string mode = string_at(a.spec, "allocationMode");
    bool all = mode == "All";
    int64_t count = all ? 0 : int_at(a.spec, "count", 1);
    if (count < 1 && !all) count = 1;
    alternative[request] = alt;
    if (fill(request, alt, 0, static_cast<size_t>(count), all, chosen, alternative)) return true;
    if (steps_ > kStepBudget) return false;
  }
  return false;
}

std::optional<std::vector<ClaimAllocation>> DeviceAllocator::allocate(const json::object& node) {
  on_node_.clear();
  if (auto it = by_node_.find(meta_string(node, "name")); it != by_node_.end())
    on_node_ = it->second;
  for (size_t d : shared_)
    if (slice_for_node(*devices_[d].slice, node)) on_node_.push_back(d);
  std::sort(on_node_.begin(), on_node_.end());
  used_.assign(devices_.size(), false);
  for (auto& s : constraint_state_) s = {std::string(), 0};
  steps_ = 0;
  std::vector<std::vector<size_t>> chosen(requests_.size());
  std::vector<size_t> alternative(requests_.size(), 0);
  if (!search(0, chosen, alternative)) return std::nullopt;
  std::vector<ClaimAllocation> out(claims_.size());
  for (size_t r = 0; r < requests_.size(); ++r) {
    ClaimAllocation& a = out[requests_[r].claim];
    for (size_t d : chosen[r]) {
      a.results.push_back({requests_[r].alternatives[alternative[r]].name, devices_[d].id});
      a.node_local = a.node_local || !string_at(*devices_[d].slice, "nodeName").empty();
    }
  }
  return out;
}

}  // namespace planter::sim::sched
