#include "fit/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <limits>

#include "fit/json_fields.h"
#include "model/quantity.h"

namespace planter::fit {

namespace json = boost::json;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kDefaultMaxPods = 110;

// A quantity in units of 1/scale, rounded up as resource.Quantity rounds (but a value that is a
// whole number of units up to the double's precision is that number: "0.1" is 100m, not 101m).
int64_t scaled(double value, double scale) {
  if (!(value > 0)) return 0;
  double x = value * scale;
  if (x >= 9.2e18) return kMax;
  double r = std::nearbyint(x);
  if (std::abs(x - r) <= 1e-9 * std::max(1.0, std::abs(x))) return static_cast<int64_t>(r);
  return static_cast<int64_t>(std::ceil(x));
}

int64_t amount(const json::value* v, bool cpu) {
  auto parsed = parse_quantity(quantity_text(v));
  return parsed ? scaled(*parsed, cpu ? 1000.0 : 1.0) : 0;
}

int64_t& slot(Resources& r, std::string_view name) {
  if (name == "cpu") return r.milli_cpu;
  if (name == "memory") return r.memory;
  if (name == "ephemeral-storage") return r.ephemeral_storage;
  auto it = std::lower_bound(r.scalar.begin(), r.scalar.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it == r.scalar.end() || it->first != name) it = r.scalar.insert(it, {std::string(name), 0});
  return it->second;
}

void drop_zeros(Resources& r) {
  std::erase_if(r.scalar, [](const auto& p) { return p.second == 0; });
}

// An init container that keeps running (a sidecar).
bool restartable(const json::value& c) {
  const json::object* o = c.if_object();
  const json::value* policy = o ? o->if_contains("restartPolicy") : nullptr;
  return policy && policy->is_string() && policy->as_string() == "Always";
}

// Per resource, the larger of the two.
void raise_to(Resources& r, const Resources& peak) {
  r.milli_cpu = std::max(r.milli_cpu, peak.milli_cpu);
  r.memory = std::max(r.memory, peak.memory);
  r.ephemeral_storage = std::max(r.ephemeral_storage, peak.ephemeral_storage);
  for (const auto& [name, v] : peak.scalar) {
    int64_t& mine = slot(r, name);
    mine = std::max(mine, v);
  }
}

}  // namespace

Resources container_requests(const json::value& c) {
  Resources out;
  const json::object* o = c.if_object();
  const json::object* res = o ? object_in(o, "resources") : nullptr;
  if (!res) return out;
  const json::object* requests = object_in(res, "requests");
  const json::object* limits = object_in(res, "limits");
  out = resources_of(requests);
  if (limits)
    for (const auto& [name, v] : *limits) {
      if (name == "pods" || (requests && requests->contains(name))) continue;
      out.add(name, amount(&v, name == "cpu"));
    }
  return out;
}

int64_t add_sat(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kMax : std::numeric_limits<int64_t>::min();
  return out;
}

int64_t mul_sat(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() : kMax;
  return out;
}

int64_t Resources::get(std::string_view name) const {
  if (name == "cpu") return milli_cpu;
  if (name == "memory") return memory;
  if (name == "ephemeral-storage") return ephemeral_storage;
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  return it == scalar.end() || it->first != name ? 0 : it->second;
}

void Resources::add(std::string_view name, int64_t amount) {
  if (amount == 0) return;
  int64_t& s = slot(*this, name);
  s = add_sat(s, amount);
  if (s == 0) drop_zeros(*this);
}

Resources& Resources::operator+=(const Resources& o) {
  milli_cpu = add_sat(milli_cpu, o.milli_cpu);
  memory = add_sat(memory, o.memory);
  ephemeral_storage = add_sat(ephemeral_storage, o.ephemeral_storage);
  for (const auto& [name, v] : o.scalar) add(name, v);
  return *this;
}

Resources& Resources::operator-=(const Resources& o) {
  milli_cpu = add_sat(milli_cpu, -o.milli_cpu);
  memory = add_sat(memory, -o.memory);
  ephemeral_storage = add_sat(ephemeral_storage, -o.ephemeral_storage);
  for (const auto& [name, v] : o.scalar) add(name, -v);
  return *this;
}

Resources Resources::times(int64_t n) const {
  Resources out;
  out.milli_cpu = mul_sat(milli_cpu, n);
  out.memory = mul_sat(memory, n);
  out.ephemeral_storage = mul_sat(ephemeral_storage, n);
  for (const auto& [name, v] : scalar)
    if (int64_t m = mul_sat(v, n); m != 0) out.scalar.emplace_back(name, m);
  return out;
}

Resources resources_of(const json::object* list) {
  Resources out;
  if (!list) return out;
  for (const auto& [name, v] : *list) {
    if (name == "pods") continue;
    out.add(name, amount(&v, name == "cpu"));
  }
  return out;
}

int64_t allowed_pods(const json::object* allocatable) {
  const json::value* v = allocatable ? allocatable->if_contains("pods") : nullptr;
  auto parsed = parse_quantity(quantity_text(v));
  if (!parsed || !(*parsed > 0)) return kDefaultMaxPods;
  return static_cast<int64_t>(std::min<double>(*parsed, std::numeric_limits<int32_t>::max()));
}

Resources pod_requests(const json::object& spec) {
  Resources total;
  if (const json::value* cs = spec.if_contains("containers"); cs && cs->is_array())
    for (const json::value& c : cs->as_array()) total += container_requests(c);
  // Init containers run one after another; sidecars started before one keep running.
  Resources sidecars, init_peak;
  if (const json::value* cs = spec.if_contains("initContainers"); cs && cs->is_array())
    for (const json::value& c : cs->as_array()) {
      Resources one = container_requests(c);
      if (restartable(c)) {
        sidecars += one;
        continue;
      }
      one += sidecars;
      raise_to(init_peak, one);
    }
  total += sidecars;
  raise_to(total, init_peak);
  if (const json::object* overhead = object_in(&spec, "overhead")) total += resources_of(overhead);
  return total;
}

Resources at_least(Resources r, const Resources& floor) {
  raise_to(r, floor);
  return r;
}

std::string resources_text(const Resources& r, const Resources* asked) {
  std::string out = fmt::format("{} cpu, {}", cpu_text(static_cast<double>(r.milli_cpu) / 1000),
                                memory_text(static_cast<double>(r.memory)));
  if (r.ephemeral_storage > 0 && (!asked || asked->ephemeral_storage > 0))
    out += fmt::format(", {} ephemeral-storage",
                       memory_text(static_cast<double>(r.ephemeral_storage)));
  for (const auto& [name, v] : r.scalar) {
    if (v <= 0 || (asked && asked->get(name) <= 0)) continue;
    if (name.starts_with("hugepages-"))
      out += fmt::format(", {} {}", memory_text(static_cast<double>(v)), name);
    else
      out += fmt::format(", {} {}", v, name);
  }
  return out;
}

}  // namespace planter::fit
