#include "fit/devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "cel/functions.h"
#include "fit/json_fields.h"
#include "model/quantity.h"

namespace planter::fit {

namespace json = boost::json;

namespace {

// Allocations looked at for one pod on one node, at most: past it the claims do not fit there
// (docs/limits.md).
constexpr uint64_t kMaxSearchSteps = 100000;

int64_t int_at(const json::object* o, std::string_view key, int64_t otherwise) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_int64() ? v->as_int64() : otherwise;
}

// An attribute's value as CEL sees it: {int}, {bool}, {string} or {version} (a semver).
cel::Value attribute_value(const json::object& a) {
  if (const json::value* v = a.if_contains("int"); v && v->is_int64())
    return cel::Value::integer(v->as_int64());
  if (const json::value* v = a.if_contains("bool"); v && v->is_bool())
    return cel::Value::boolean(v->as_bool());
  if (const json::value* v = a.if_contains("string"); v && v->is_string())
    return cel::Value::string(std::string(v->as_string()));
  if (const json::value* v = a.if_contains("version"); v && v->is_string())
    return cel::parse_semver(v->as_string());
  return cel::Value::error("the attribute has no value");
}

// "domain/name" of an attribute or capacity a slice lists as `key`: unqualified names are the
// driver's.
std::pair<std::string, std::string> qualified(const std::string& driver, const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {driver, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// `device` as DRA's selectors see it: driver, attributes and capacity by domain, then by name.
cel::Bindings binding_of(const std::string& driver, const json::object& device,
                         std::map<std::string, std::string>& attributes) {
  std::map<std::string, cel::Map> attrs, caps;
  if (const json::object* as = object_in(&device, "attributes"))
    for (const auto& [key, v] : *as) {
      const json::object* a = v.if_object();
      if (!a) continue;
      auto [domain, name] = qualified(driver, std::string(key));
      attrs[domain].emplace_back(cel::Value::string(name), attribute_value(*a));
      attributes[domain + "/" + name] = json::serialize(*a);
    }
  if (const json::object* cs = object_in(&device, "capacity"))
    for (const auto& [key, v] : *cs) {
      std::string amount = text_in(v.if_object(), "value");
      auto parsed = parse_quantity(amount);
      if (!parsed) continue;
      auto [domain, name] = qualified(driver, std::string(key));
      caps[domain].emplace_back(cel::Value::string(name), cel::Value::quantity({*parsed, amount}));
    }
  cel::Map by_domain_attrs, by_domain_caps;
  for (auto& [domain, m] : attrs)
    by_domain_attrs.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  for (auto& [domain, m] : caps)
    by_domain_caps.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  cel::Map d = {{cel::Value::string("driver"), cel::Value::string(driver)},
                {cel::Value::string("attributes"), cel::Value::map(std::move(by_domain_attrs))},
                {cel::Value::string("capacity"), cel::Value::map(std::move(by_domain_caps))}};
  return {{"device", cel::Value::map(std::move(d))}};
}

std::vector<std::string> selectors_of(const json::object* owner) {
  std::vector<std::string> out;
  if (const json::array* list = array_in(owner, "selectors"))
    for (const json::value& s : *list)
      out.push_back(text_in(object_in(s.if_object(), "cel"), "expression"));
  return out;
}

DeviceRequest request_of(std::string name, const json::object& spec) {
  DeviceRequest r;
  r.name = std::move(name);
  r.device_class = text_in(&spec, "deviceClassName");
  r.selectors = selectors_of(&spec);
  r.all = text_in(&spec, "allocationMode") == "All";
  r.count = std::max<int64_t>(1, int_at(&spec, "count", 1));
  if (const json::array* ts = array_in(&spec, "tolerations"))
    for (const json::value& t : *ts)
      if (const json::object* o = t.if_object()) {
        Toleration tol{text_in(o, "key"), text_in(o, "operator"), text_in(o, "value"),
                       text_in(o, "effect")};
        if (tol.op.empty()) tol.op = "Equal";
        r.tolerations.push_back(std::move(tol));
      }
  r.selector_key = r.device_class;
  for (const std::string& s : r.selectors) r.selector_key += "\n" + s;
  return r;
}

// A claim's (or a template's) spec.devices.
DeviceClaimSpec claim_spec_of(const json::object* spec) {
  DeviceClaimSpec out;
  const json::object* devices = object_in(spec, "devices");
  if (const json::array* rs = array_in(devices, "requests"))
    for (const json::value& v : *rs) {
      const json::object* r = v.if_object();
      if (!r) continue;
      DeviceClaimSpec::Request req;
      req.name = text_in(r, "name");
      if (const json::object* exactly = object_in(r, "exactly"))
        req.alternatives.push_back(request_of(req.name, *exactly));
      if (const json::array* first = array_in(r, "firstAvailable"))
        for (const json::value& s : *first)
          if (const json::object* sub = s.if_object())
            req.alternatives.push_back(request_of(req.name + "/" + text_in(sub, "name"), *sub));
      out.requests.push_back(std::move(req));
    }
  if (const json::array* cs = array_in(devices, "constraints"))
    for (const json::value& v : *cs) {
      const json::object* c = v.if_object();
      std::string attribute = text_in(c, "matchAttribute");
      if (attribute.empty()) continue;  // distinctAttribute and others: not modelled
      DeviceClaimSpec::Constraint constraint;
      constraint.attribute = attribute;
      if (const json::array* names = array_in(c, "requests"))
        for (const json::value& n : *names)
          if (n.is_string()) constraint.requests.insert(std::string(n.as_string()));
      out.constraints.push_back(std::move(constraint));
    }
  return out;
}

std::string key_of(const json::object* meta) {
  return text_in(meta, "namespace") + "/" + text_in(meta, "name");
}

}  // namespace

const cel::Bindings& Device::cel_binding() const {
  if (!binding) {
    std::map<std::string, std::string> values;
    binding = binding_of(driver, *source, values);
    if (!attributes) attributes = std::move(values);
  }
  return *binding;
}

const std::map<std::string, std::string>& Device::attribute_values() const {
  if (!attributes) cel_binding();
  return *attributes;
}

bool DeviceInventory::add(const json::object& o) {
  if (text_in(&o, "apiVersion").rfind("resource.k8s.io/", 0) != 0) return false;
  std::string kind = text_in(&o, "kind");
  const json::object* meta = object_in(&o, "metadata");
  const json::object* spec = object_in(&o, "spec");
  if (kind == "ResourceSlice") {
    if (spec) add_slice(*spec);
  } else if (kind == "DeviceClass") {
    DeviceClass c{text_in(meta, "name"), selectors_of(spec), text_in(spec, "extendedResourceName"),
                  text_in(meta, "creationTimestamp")};
    classes_[c.name] = std::move(c);
    matched_.clear();  // what a class selects is remembered by device
    serving_.clear();
  } else if (kind == "ResourceClaim") {
    add_claim(o);
  } else if (kind == "DeviceTaintRule") {
    const json::object* selector = object_in(spec, "deviceSelector");
    const json::object* taint = object_in(spec, "taint");
    if (taint)
      taint_rules_.push_back(
          {text_in(selector, "driver"),
           text_in(selector, "pool"),
           text_in(selector, "device"),
           {text_in(taint, "key"), text_in(taint, "value"), text_in(taint, "effect")}});
  } else if (kind == "ResourceClaimTemplate") {
    templates_[key_of(meta)] = claim_spec_of(object_in(spec, "spec"));
  } else {
    return false;
  }
  return true;
}

void DeviceInventory::add_slice(const json::object& spec) {
  std::string driver = text_in(&spec, "driver");
  const json::object* pool_spec = object_in(&spec, "pool");
  std::string pool_key = driver + "/" + text_in(pool_spec, "name");
  int64_t generation = int_at(pool_spec, "generation", 0);
  auto [slot_it, fresh_pool] = pool_slots_.try_emplace(pool_key, pools_.size());
  if (fresh_pool) pools_.emplace_back();
  size_t pool_slot = slot_it->second;
  Pool& pool = pools_[pool_slot];
  if (generation > pool.generation) {
    pool.generation = generation;
    pool.seen = 0;
  }
  if (generation == pool.generation) {
    ++pool.seen;
    pool.slice_count = int_at(pool_spec, "resourceSliceCount", 1);
  }
  std::string node = text_in(&spec, "nodeName");
  bool all_nodes = false;
  if (const json::value* a = spec.if_contains("allNodes"); a && a->is_bool())
    all_nodes = a->as_bool();
  NodeTerms terms;
  if (const json::array* t = array_in(object_in(&spec, "nodeSelector"), "nodeSelectorTerms"))
    terms = NodeTerms(*t);
  if (node.empty() && !all_nodes && terms.empty()) return;  // per-device nodes: not modelled
  if (const json::array* ds = array_in(&spec, "devices"))
    for (const json::value& v : *ds) {
      const json::object* d = v.if_object();
      if (!d) continue;
      Device device;
      device.pool = pool_key;
      device.pool_slot = pool_slot;
      device.generation = generation;
      device.id = pool_key + "/" + text_in(d, "name");
      device.node = node;
      device.all_nodes = all_nodes;
      device.terms = terms;
      device.driver = driver;
      device.source = std::make_shared<const json::object>(*d);
      if (const json::array* ts = array_in(d, "taints"))
        for (const json::value& t : *ts)
          if (const json::object* to = t.if_object())
            device.taints.push_back(
                {text_in(to, "key"), text_in(to, "value"), text_in(to, "effect")});
      size_t index = devices_.size();
      (node.empty() ? shared_ : by_node_[node]).push_back(index);
      indices_of_[device.id].push_back(index);
      auto held = taken_.find(device.id);
      taken_by_index_.push_back(held == taken_.end() ? 0 : held->second);
      devices_.push_back(std::move(device));
    }
  matched_.clear();
}

void DeviceInventory::add_claim(const json::object& o) {
  const json::object* meta = object_in(&o, "metadata");
  DeviceClaim c;
  c.ns = text_in(meta, "namespace");
  c.name = text_in(meta, "name");
  c.spec = claim_spec_of(object_in(&o, "spec"));
  if (const json::object* allocation = object_in(object_in(&o, "status"), "allocation")) {
    c.allocated = true;
    if (const json::array* rs = array_in(object_in(allocation, "devices"), "results"))
      for (const json::value& v : *rs) {
        const json::object* r = v.if_object();
        c.devices.push_back(fmt::format("{}/{}/{}", text_in(r, "driver"), text_in(r, "pool"),
                                        text_in(r, "device")));
      }
    if (const json::array* t = array_in(object_in(allocation, "nodeSelector"), "nodeSelectorTerms"))
      c.nodes = NodeTerms(*t);
  }
  DeviceClaim& slot = claims_[c.ns + "/" + c.name];
  for (const std::string& d : slot.devices) count_taken(d, -1);  // the cluster's own replaces
  for (const std::string& d : c.devices) count_taken(d, 1);
  slot = std::move(c);
}

void DeviceInventory::give_back(const json::object& pod) {
  std::string ns = text_in(object_in(&pod, "metadata"), "namespace");
  auto unallocate = [&](const std::string& name) {
    auto it = claims_.find(ns + "/" + name);
    if (it == claims_.end()) return;
    for (const std::string& d : it->second.devices) count_taken(d, -1);
    it->second.devices.clear();
    it->second.allocated = false;
    it->second.nodes = NodeTerms();
  };
  if (const json::array* refs = array_in(object_in(&pod, "spec"), "resourceClaims"))
    for (const json::value& r : *refs) unallocate(text_in(r.if_object(), "resourceClaimName"));
  if (const json::array* made = array_in(object_in(&pod, "status"), "resourceClaimStatuses"))
    for (const json::value& r : *made) unallocate(text_in(r.if_object(), "resourceClaimName"));
}

std::string DeviceInventory::serving_class(std::string_view resource) const {
  if (classes_.empty()) return "";
  if (auto known = serving_.find(resource); known != serving_.end()) return known->second;
  std::string out;
  constexpr std::string_view kImplicit = "deviceclass.resource.kubernetes.io/";
  if (resource.starts_with(kImplicit)) {
    if (auto it = classes_.find(resource.substr(kImplicit.size())); it != classes_.end())
      out = it->first;
  } else {
    const DeviceClass* best = nullptr;
    for (const auto& [name, c] : classes_)  // by name: the first wins among equals
      if (c.extended_resource == resource && (!best || c.created > best->created)) best = &c;
    if (best) out = best->name;
  }
  serving_.emplace(std::string(resource), out);
  return out;
}

std::optional<int64_t> DeviceInventory::capacity(std::string_view resource, const std::string& node,
                                                 const Labels& labels) const {
  std::string cls = serving_class(resource);
  if (cls.empty()) return std::nullopt;
  DeviceRequest any;
  any.device_class = cls;
  any.selector_key = cls;
  int64_t n = 0;
  for (size_t d : devices_on(node, labels)) n += matches(any, d) ? 1 : 0;
  return n;
}

bool DeviceInventory::serves_any(const Resources& requests) const {
  if (classes_.empty()) return false;
  for (const auto& [name, amount] : requests.scalar)
    if (amount > 0 && !serving_class(name).empty()) return true;
  return false;
}

PodDevices DeviceInventory::resolve(const PodInfo& pod) const {
  PodDevices out;
  if (!classes_.empty())
    for (const PodInfo::ExtendedRequest& e : pod.extended_requests)
      if (std::string cls = serving_class(e.resource); !cls.empty())
        out.extended.push_back({e.resource, std::move(cls), e.amount, e.container, e.request});
  for (const PodInfo::DeviceClaimRef& ref : pod.device_claims) {
    const DeviceClaimSpec* spec = nullptr;
    std::string key;
    if (!ref.claim.empty()) {
      key = pod.ns + "/" + ref.claim;
      const DeviceClaim* claim = nullptr;
      if (auto a = assumed_claims_.find(key); a != assumed_claims_.end())
        claim = &a->second;
      else if (auto c = claims_.find(key); c != claims_.end())
        claim = &c->second;
      if (!claim) {
        if (!complete_) continue;  // the claim may yet come: nothing to judge
        out.refusal = fmt::format("resourceclaim.resource.k8s.io \"{}\" not found", ref.claim);
        return out;
      }
      if (claim->allocated) {
        out.allocated.push_back(claim);
        continue;
      }
      spec = &claim->spec;
    } else if (!ref.template_name.empty()) {
      auto t = templates_.find(pod.ns + "/" + ref.template_name);
      if (t == templates_.end()) {
        if (!complete_) continue;
        out.refusal = fmt::format("pod \"{}\": ResourceClaim not created yet", pod.id());
        return out;
      }
      spec = &t->second;
    } else {
      continue;
    }
    for (const DeviceClaimSpec::Request& r : spec->requests)
      for (const DeviceRequest& alt : r.alternatives)
        if (!classes_.contains(alt.device_class)) {
          out.refusal =
              fmt::format("request {}: device class {} does not exist", r.name, alt.device_class);
          return out;
        }
    out.to_allocate.emplace_back(key, spec);
  }
  return out;
}

void DeviceInventory::count_taken(const std::string& id, int64_t delta) {
  taken_[id] += delta;
  if (auto it = indices_of_.find(id); it != indices_of_.end())
    for (size_t i : it->second) taken_by_index_[i] += delta;
}

bool DeviceInventory::usable(const Device& d) const {
  const Pool& pool = pools_[d.pool_slot];
  return d.generation == pool.generation && pool.seen >= pool.slice_count;
}

std::vector<size_t> DeviceInventory::devices_on(const std::string& node,
                                                const Labels& labels) const {
  std::vector<size_t> out;
  if (auto it = by_node_.find(node); it != by_node_.end())
    for (size_t i : it->second)
      if (usable(devices_[i])) out.push_back(i);
  for (size_t i : shared_) {
    const Device& d = devices_[i];
    if (usable(d) && (d.all_nodes || d.terms.matches(labels, node))) out.push_back(i);
  }
  return out;
}

std::vector<int8_t>& DeviceInventory::match_cache(const DeviceRequest& r) const {
  std::vector<int8_t>& known = matched_[r.selector_key];
  if (known.size() < devices_.size()) known.resize(devices_.size(), -1);
  return known;
}

bool DeviceInventory::matches(const DeviceRequest& r, size_t device) const {
  return matches(r, device, match_cache(r));
}

bool DeviceInventory::matches(const DeviceRequest& r, size_t device,
                              std::vector<int8_t>& known) const {
  const Device& d = devices_[device];
  auto refuses = [&](const Taint& t) {
    return (t.effect == "NoSchedule" || t.effect == "NoExecute") && !tolerated(r.tolerations, t);
  };
  for (const Taint& t : d.taints)
    if (refuses(t)) return false;
  for (const TaintRule& rule : taint_rules_) {
    std::string_view pool = std::string_view(d.pool).substr(d.driver.size() + 1);
    std::string_view name = std::string_view(d.id).substr(d.pool.size() + 1);
    if ((rule.driver.empty() || rule.driver == d.driver) &&
        (rule.pool.empty() || rule.pool == pool) && (rule.device.empty() || rule.device == name) &&
        refuses(rule.taint))
      return false;
  }
  if (known[device] >= 0) return known[device] == 1;
  auto it = classes_.find(r.device_class);
  bool yes = it != classes_.end();
  auto holds = [&](const std::string& expression) {
    auto p = cel_.find(expression);
    if (p == cel_.end())
      p = cel_.emplace(expression, cel::Program::compile(expression, cel::ParseOptions{{"device"}}))
              .first;
    if (!p->second) return false;  // does not compile: matches nothing
    cel::EvalResult result = p->second->evaluate(d.cel_binding());
    return result.value.kind() == cel::Kind::kBool && result.value.as_bool();
  };
  if (yes)
    for (const std::string& s : it->second.selectors) yes = yes && holds(s);
  for (const std::string& s : r.selectors) yes = yes && holds(s);
  known[device] = yes ? 1 : 0;
  return yes;
}

// The search for one pod's allocation on one node: the requests of its claims in order, each met
// by its first alternative that can be, devices chosen depth first and given back when a later
// request or a constraint cannot be met.
class DeviceSearch {
 public:
  DeviceSearch(const DeviceInventory& inv, const std::vector<const DeviceClaimSpec*>& claims,
               std::vector<size_t> devices)
      : inv_(inv), devices_(std::move(devices)) {
    for (size_t c = 0; c < claims.size(); ++c) {
      for (const DeviceClaimSpec::Request& r : claims[c]->requests) requests_.push_back({c, &r});
      for (const DeviceClaimSpec::Constraint& k : claims[c]->constraints)
        constraints_.push_back({c, &k, {}, 0});
    }
    chosen_.resize(claims.size());
    requests_of_.resize(claims.size());
  }

  std::optional<Allocation> run() {
    if (!meet(0)) return std::nullopt;
    Allocation out(chosen_.size());
    for (size_t c = 0; c < chosen_.size(); ++c)
      for (size_t i = 0; i < chosen_[c].size(); ++i) {
        const Device& d = inv_.devices_[chosen_[c][i]];
        out[c].results.emplace_back(requests_of_[c][i], d.id);
        out[c].node_local = out[c].node_local || !d.node.empty();
      }
    return out;
  }

 private:
  struct Req {
    size_t claim;
    const DeviceClaimSpec::Request* spec;
  };
  struct Held {
    size_t claim;
    const DeviceClaimSpec::Constraint* spec;
    std::string value;  // the value the devices chosen so far share
    int holders = 0;
  };

  bool meet(size_t r) {
    if (r == requests_.size()) return true;
    for (const DeviceRequest& alt : requests_[r].spec->alternatives) {
      std::vector<size_t> candidates;
      bool one_taken = false;
      std::vector<int8_t>& known = inv_.match_cache(alt);
      for (size_t d : devices_)
        if (inv_.matches(alt, d, known)) {
          if (used(d) || taken(d))
            one_taken = true;
          else
            candidates.push_back(d);
        }
      if (alt.all) {
        if (one_taken || candidates.empty()) continue;
        if (take_all(r, alt, candidates)) return true;
        continue;
      }
      if (pick(r, alt, candidates, 0, alt.count)) return true;
      if (steps_ > kMaxSearchSteps) return false;
    }
    return false;
  }

  bool take_all(size_t r, const DeviceRequest& alt, const std::vector<size_t>& candidates) {
    size_t placed = 0;
    bool ok = true;
    for (size_t d : candidates) {
      if (!hold(r, alt, d)) {
        ok = false;
        break;
      }
      ++placed;
    }
    if (ok && meet(r + 1)) return true;
    for (; placed > 0; --placed) drop(r, alt, candidates[placed - 1]);
    return false;
  }

  // `need` more devices for request `r` from candidates[from..].
  bool pick(size_t r, const DeviceRequest& alt, const std::vector<size_t>& candidates, size_t from,
            int64_t need) {
    if (need == 0) return meet(r + 1);
    for (size_t i = from; i < candidates.size(); ++i) {
      if (++steps_ > kMaxSearchSteps) return false;
      if (static_cast<int64_t>(candidates.size() - i) < need) return false;
      if (!hold(r, alt, candidates[i])) continue;
      if (pick(r, alt, candidates, i + 1, need - 1)) return true;
      drop(r, alt, candidates[i]);
    }
    return false;
  }

  bool covers(const Held& h, size_t r, const DeviceRequest& alt) const {
    if (h.claim != requests_[r].claim) return false;
    return h.spec->requests.empty() || h.spec->requests.contains(requests_[r].spec->name) ||
           h.spec->requests.contains(alt.name);
  }

  // Gives device `d` to request `r` when every constraint on the request allows it.
  bool hold(size_t r, const DeviceRequest& alt, size_t d) {
    const Device& device = inv_.devices_[d];
    for (const Held& h : constraints_) {
      if (!covers(h, r, alt)) continue;
      auto it = device.attribute_values().find(h.spec->attribute);
      if (it == device.attribute_values().end()) return false;
      if (h.holders > 0 && it->second != h.value) return false;
    }
    for (Held& h : constraints_)
      if (covers(h, r, alt)) {
        if (h.holders++ == 0) h.value = device.attribute_values().at(h.spec->attribute);
      }
    chosen_[requests_[r].claim].push_back(d);
    requests_of_[requests_[r].claim].push_back(alt.name);
    return true;
  }

  void drop(size_t r, const DeviceRequest& alt, size_t) {
    for (Held& h : constraints_)
      if (covers(h, r, alt)) --h.holders;
    chosen_[requests_[r].claim].pop_back();
    requests_of_[requests_[r].claim].pop_back();
  }

  bool used(size_t d) const {
    for (const auto& c : chosen_)
      if (std::find(c.begin(), c.end(), d) != c.end()) return true;
    return false;
  }
  bool taken(size_t d) const { return inv_.taken_by_index_[d] > 0; }

  const DeviceInventory& inv_;
  std::vector<size_t> devices_;
  std::vector<Req> requests_;
  std::vector<Held> constraints_;
  std::vector<std::vector<size_t>> chosen_;            // by claim
  std::vector<std::vector<std::string>> requests_of_;  // by claim: the request of each chosen
  uint64_t steps_ = 0;
};

std::optional<Allocation> DeviceInventory::allocate(const PodDevices& claims,
                                                    const std::string& node, const Labels& labels,
                                                    const Resources& allocatable) const {
  std::vector<const DeviceClaimSpec*> specs;
  for (const auto& [_, spec] : claims.to_allocate) specs.push_back(spec);
  // The extended resources no device plugin lists on the node: a request of the class for each
  // container's, as kube-scheduler makes them (init containers' too: their devices are not
  // shared with the others').
  DeviceClaimSpec extended;
  for (const PodDevices::Extended& e : claims.served_by_devices(allocatable)) {
    DeviceRequest r;
    r.name = e.request;
    r.device_class = e.device_class;
    r.count = e.count;
    r.selector_key = e.device_class;
    extended.requests.push_back({e.request, {std::move(r)}});
  }
  if (!extended.requests.empty()) specs.push_back(&extended);
  if (specs.empty()) return Allocation{};
  return DeviceSearch(*this, specs, devices_on(node, labels)).run();
}

void DeviceInventory::take(const PodDevices& claims, const Allocation& devices,
                           const std::string& node) {
  for (size_t c = 0; c < devices.size(); ++c) {
    Undo undo;
    for (const auto& [_, d] : devices[c].results) {
      undo.devices.push_back(d);
      count_taken(d, 1);
    }
    // A named claim is allocated once, here: its other users find it so. (The last list may be
    // the extended resources', a claim of the pod's own.)
    if (c < claims.to_allocate.size())
      if (const std::string& key = claims.to_allocate[c].first; !key.empty()) {
        auto slash = key.find('/');
        DeviceClaim claim{key.substr(0, slash),
                          key.substr(slash + 1),
                          *claims.to_allocate[c].second,
                          true,
                          undo.devices,
                          NodeTerms()};
        if (devices[c].node_local)
          claim.nodes = NodeTerms(json::array{json::object{
              {"matchFields",
               json::array{json::object{{"key", "metadata.name"},
                                        {"operator", "In"},
                                        {"values", json::array{json::string(node)}}}}}}});
        assumed_claims_.insert_or_assign(key, std::move(claim));
        undo.claim = key;
      }
    undo_.push_back(std::move(undo));
  }
}

void DeviceInventory::release(size_t mark) {
  while (undo_.size() > mark) {
    Undo& u = undo_.back();
    for (const std::string& d : u.devices) count_taken(d, -1);
    if (!u.claim.empty()) assumed_claims_.erase(u.claim);
    undo_.pop_back();
  }
}

}  // namespace planter::fit
