#include "plant/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "plant/engine.h"
#include "plant/ownership.h"
#include "seed/planter_annotations.h"

namespace planter::plant {

namespace {

namespace json = boost::json;

// Keys in name order at every depth, as kubectl diff writes them (Go marshals a map sorted): the
// live object and the dry run's answer list the same fields in different orders.
json::value sorted(const json::value& v) {
  if (const json::array* a = v.if_array()) {
    json::array out;
    out.reserve(a->size());
    for (const json::value& e : *a) out.push_back(sorted(e));
    return out;
  }
  const json::object* o = v.if_object();
  if (!o) return v;
  std::vector<const json::key_value_pair*> fields;
  fields.reserve(o->size());
  for (const json::key_value_pair& kv : *o) fields.push_back(&kv);
  std::sort(fields.begin(), fields.end(),
            [](const auto* a, const auto* b) { return a->key() < b->key(); });
  json::object out;
  out.reserve(fields.size());
  for (const json::key_value_pair* kv : fields) out.emplace(kv->key(), sorted(kv->value()));
  return out;
}

// What planting never changes is left out of both sides: the server's bookkeeping (managed
// fields, the resource version, which any status write moves) and the status, which a controller
// may write between the GET and the dry run (a Deployment rolling out): a diff of an object that
// planting would leave as it is says nothing.
void strip(json::object& o) {
  if (auto* meta = o.if_contains("metadata"); meta && meta->is_object()) {
    meta->as_object().erase("managedFields");
    meta->as_object().erase("resourceVersion");
  }
  o.erase("status");
  o = sorted(o).as_object();
}

void collect_changes(const json::value& a, const json::value& b, const std::string& path,
                     size_t max, std::vector<std::string>& out) {
  if (out.size() >= max || a == b) return;
  if (a.is_object() && b.is_object()) {
    const json::object &x = a.as_object(), &y = b.as_object();
    std::vector<std::string> keys;
    for (const auto& kv : x) keys.emplace_back(kv.key());
    for (const auto& kv : y)
      if (!x.contains(kv.key())) keys.emplace_back(kv.key());
    std::sort(keys.begin(), keys.end());
    static const json::value kAbsent;
    for (const std::string& k : keys) {
      std::string at = path.empty() ? k : path + "." + k;
      if (at == "metadata.resourceVersion" || at == "metadata.generation" ||
          at == "metadata.managedFields")
        continue;
      const json::value* va = x.if_contains(k);
      const json::value* vb = y.if_contains(k);
      collect_changes(va ? *va : kAbsent, vb ? *vb : kAbsent, at, max, out);
    }
    return;
  }
  if (a.is_array() && b.is_array() && a.as_array().size() == b.as_array().size()) {
    for (size_t i = 0; i < a.as_array().size(); ++i)
      collect_changes(a.as_array()[i], b.as_array()[i], fmt::format("{}[{}]", path, i), max, out);
    return;
  }
  out.push_back(path);
}

}  // namespace

std::vector<std::string> changed_fields(const json::object& live, const json::object& merged,
                                        size_t max) {
  std::vector<std::string> out;
  collect_changes(live, merged, "", max, out);
  return out;
}

std::string diff_file_name(const ObjectRef& ref) {
  std::string version = ref.api_version;
  std::replace(version.begin(), version.end(), '/', '.');
  return version + "." + ref.kind + (ref.ns.empty() ? "" : "." + ref.ns) + "." + ref.name;
}

std::vector<ObjectDiff> diff_seed(const Plan& plan,
                                  const std::map<std::string, kube::RestConfig>& reachable,
                                  const DiffOptions& options) {
  std::vector<ObjectDiff> out(plan.units.size());
  std::map<std::string, std::unique_ptr<kube::Client>> clients;
  // Per unit: the two answers, each set once it came.
  struct Answers {
    std::optional<kube::ApiResult<json::object>> live, merged;
    json::object sent;  // what the dry run applied
  };
  std::vector<Answers> answers(plan.units.size());
  std::mutex mu;
  std::condition_variable cv;
  size_t outstanding = 0;

  kube::ApplyOptions apply;
  apply.dry_run = true;
  apply.field_manager = seed_field_manager(options.seed_name);
  apply.force = true;  // the seed's intent, whoever owns the fields now
  for (size_t u = 0; u < plan.units.size(); ++u) {
    const Unit& unit = plan.units[u];
    const ObjectRef& ref = plan.object_of(unit).ref;
    out[u].unit = u;
    auto config = reachable.find(unit.cluster);
    if (config == reachable.end()) {
      out[u].state = ObjectDiff::State::kLater;
      auto why = options.not_reached.find(unit.cluster);
      out[u].note =
          why != options.not_reached.end()
              ? fmt::format("cluster {} cannot be asked now: {}", unit.cluster, why->second)
              : fmt::format("cluster {} does not exist yet: planting creates it", unit.cluster);
      continue;
    }
    std::optional<json::object> body = body_known_before(plan, unit, options.seed_name);
    if (!body) {
      out[u].state = ObjectDiff::State::kLater;
      out[u].note = "takes values from other objects when it is applied";
      continue;
    }
    auto& client = clients[unit.cluster];
    if (!client) {
      auto made = kube::Client::create(config->second, read_only(options.client));
      if (!made) {
        out[u].state = ObjectDiff::State::kError;
        out[u].note = made.error().message;
        continue;
      }
      client = std::move(made.value());
    }
    {
      std::lock_guard lock(mu);
      outstanding += 2;
    }
    auto answered = [&, u](bool live) {
      return [&, u, live](kube::ApiResult<json::object> r) {
        std::lock_guard lock(mu);
        (live ? answers[u].live : answers[u].merged) = std::move(r);
        if (--outstanding == 0) cv.notify_all();
      };
    };
    client->get_async(ref.api_version, ref.kind, ref.ns, ref.name, answered(true));
    answers[u].sent = *body;
    client->apply_async(std::move(*body), apply, answered(false));
  }
  {
    std::unique_lock lock(mu);
    cv.wait_until(lock, options.deadline, [&] { return outstanding == 0; });
  }
  clients.clear();  // what did not answer by the deadline answers no more
  std::lock_guard lock(mu);
  for (size_t u = 0; u < plan.units.size(); ++u) {
    ObjectDiff& d = out[u];
    if (d.state != ObjectDiff::State::kSame) continue;
    const Answers& a = answers[u];
    if (!a.live || !a.merged) {
      d.state = ObjectDiff::State::kError;
      d.note = "no answer before the deadline";
      continue;
    }
    const kube::ApiResult<json::object>& merged = *a.merged;
    if (!merged) {
      const kube::ApiError& e = merged.error();
      if (e.immutable() && replaced_on_immutable(plan.object_of(plan.units[u]))) {
        d.state = ObjectDiff::State::kReplaced;
        d.note = e.immutable_fields();
        d.merged = a.sent;
        strip(*d.merged);
        if (a.live && *a.live) {  // what the new object has afresh is no change to show
          d.live = a.live->value();
          if (auto* meta = d.live->if_contains("metadata"); meta && meta->is_object())
            for (const char* k : {"uid", "creationTimestamp", "generation", "finalizers"})
              meta->as_object().erase(k);
          strip(*d.live);
        }
      } else if (e.kind_unknown()) {
        d.state = ObjectDiff::State::kLater;
        d.note = "its kind is not served yet: planting creates it once it is";
      } else if (e.code == 404) {
        // Its Namespace is not there yet: what planter would send, without the server's defaults.
        d.state = ObjectDiff::State::kCreated;
        d.merged = a.sent;
        strip(*d.merged);
      } else {
        d.state = ObjectDiff::State::kError;
        d.note = e.str();
      }
      continue;
    }
    d.merged = merged.value();
    strip(*d.merged);
    const kube::ApiResult<json::object>& live = *a.live;
    if (!live) {
      if (live.error().not_found()) {
        d.state = ObjectDiff::State::kCreated;
      } else {
        d.state = ObjectDiff::State::kError;
        d.note = live.error().str();
      }
      continue;
    }
    d.live = live.value();
    strip(*d.live);
    d.state = *d.live == *d.merged ? ObjectDiff::State::kSame : ObjectDiff::State::kChanged;
  }
  return out;
}

}  // namespace planter::plant
