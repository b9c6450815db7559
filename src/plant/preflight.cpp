#include "plant/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "model/object.h"
#include "plant/created_clusters.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "plant/ownership.h"
#include "seed/planter_annotations.h"

namespace planter::plant {

namespace {

namespace json = boost::json;

// What planting would do with this answer: a refusal it would fail on, or nothing to say now
// (accepted, or not judged: the Namespace or kind is not there yet, the server did not answer).
std::optional<std::string> refusal(const kube::ApiError& e) {
  // No answer, a kind not served (404 or no mapping), a Namespace not there (404), a server
  // that is busy: not judged. 401 is about planter's credentials, not the object: planting says
  // so for the cluster.
  if (e.code == 0 || e.code == 404 || e.unauthorized() || e.transient()) return std::nullopt;
  if (e.permanent() || e.conflict() || e.code == 413) return e.str();
  return std::nullopt;
}

// A cluster the seed defines whose name a cluster object already on its host holds (another
// namespace, or the other cluster kind): the provisioner refuses it (planter's Cluster reports
// NameTaken, and placement names clusters by name alone), and everything placed on it would wait
// for a cluster that never comes.
void check_cluster_names(const Plan& plan, const std::map<std::string, kube::RestConfig>& reachable,
                         const PreflightOptions& options, Diagnostics& refused) {
  std::map<std::string, std::vector<ClusterInfo>> on_host;  // the hosts asked, what they hold
  for (const ClusterInfo& info : plan.clusters) {
    if (!info.object) continue;
    std::string host = host_of(plan, info);
    auto config = reachable.find(host);
    if (config == reachable.end()) continue;
    if (!on_host.contains(host)) {
      auto watched = options.clusters_on ? options.clusters_on(host) : std::nullopt;
      if (watched) {
        on_host[host] = std::move(*watched);
      } else {
        ExistingClustersOptions eo;
        eo.deadline = options.deadline;
        auto existing = read_existing_clusters(config->second, read_only(options.client), eo);
        on_host[host] = existing ? std::move(existing.value()) : std::vector<ClusterInfo>{};
      }
    }
    const Object& own = plan.objects[*info.object];
    for (const ClusterInfo& other : on_host[host]) {
      if (other.name != info.name || !other.existing) continue;
      const ObjectRef& holder = *other.existing;
      if (holder.ns == own.ref.ns && holder.group() == own.ref.group()) continue;  // itself
      refused.add(
          own.where(), own.display(),
          fmt::format("cluster {}: the workload cluster name \"{}\" is taken: {} {}/{} "
                      "({}) already holds it, and cluster names are unique on a "
                      "management cluster",
                      host, info.name, holder.kind, holder.ns, holder.name, holder.api_version),
          fmt::format("rename this Cluster, or plant into the existing one: leave this "
                      "Cluster out and place objects with planter.nephio.org/cluster: {}",
                      info.name));
    }
  }
}

}  // namespace

std::string preflight_hint(const kube::ApiError& e) {
  if (e.conflict())
    return "another field manager owns these fields; plant with --force-conflicts to take them "
           "over, or leave them out of the seed";
  if (e.forbidden()) return "grant planter's identity the right, or leave the object out";
  if (e.immutable())
    return fmt::format(
        "the server lets no update change it: annotate the object {}: replace to have planting "
        "delete it and create it again, or delete it yourself before planting",
        kOnImmutableAnnotation);
  // kube-apiserver's refusal to call a webhook whose sideEffects are not None or NoneOnDryRun:
  // nothing is wrong with the object, the dry run itself cannot be judged.
  if (e.message.find("does not support dry run") != std::string::npos)
    return "an admission webhook of the cluster cannot judge a dry run (its sideEffects are not "
           "None or NoneOnDryRun); plant with --preflight=false to skip the server-side dry run, "
           "or have the webhook declare sideEffects: None";
  return "fix the object in the seed";
}

PreflightOutcome preflight(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& reachable,
                           const PreflightOptions& options) {
  PreflightOutcome out;
  std::map<std::string, std::unique_ptr<kube::Client>> clients;
  std::map<std::string, std::set<std::string>> namespaces;  // per cluster, when it could list them
  // The client a unit's apply goes through: the cluster's own, or one impersonating whom planting
  // writes as (FleetView::writer's choice).
  std::map<std::string, std::unique_ptr<kube::Client>> impersonating;  // per cluster
  auto writer_of = [&](size_t u) -> kube::Client* {
    const Unit& unit = plan.units[u];
    kube::Client* own = clients.at(unit.cluster).get();
    const std::optional<WriteIdentity>& id = options.write_as;
    if (!id || !id->impersonates(unit)) return own;
    std::unique_ptr<kube::Client>& as = impersonating[unit.cluster];
    if (!as) {
      auto made = kube::Client::create(own->config(), read_only(id->impersonating(options.client)));
      if (!made) return nullptr;  // never the client's own identity instead: not judged
      as = std::move(made.value());
    }
    return as.get();
  };
  std::mutex mu;
  std::condition_variable cv;
  size_t outstanding = 0;
  // Per unit asked: nothing when the server accepted it, else its error (and, for a conflict
  // planting would not force, what planting would say).
  struct Answer {
    size_t unit;
    std::optional<kube::ApiError> error;
    std::string why, owner;    // a conflict planting would not force: what it says, and whose
    std::string live_version;  // accepted, and the object is there: its resourceVersion
  };
  std::vector<Answer> answers;

  // One dry run of unit `u`'s body. Its status comes just before its answer, on the same thread.
  auto send = [&](kube::Client& writer, size_t u, json::object body, kube::ApplyOptions how) {
    auto status = std::make_shared<int>(0);
    how.on_answer = [status](std::chrono::microseconds, int s) { *status = s; };
    writer.apply_async(
        std::move(body), std::move(how), [&, u, status](kube::ApiResult<json::object> r) {
          Answer a{u, std::nullopt, "", "", ""};
          if (!r) {
            a.error = r.error();
          } else if (*status == 200) {  // 201: the apply would create it
            const json::string* rv = find_string(r.value(), {"metadata", "resourceVersion"});
            if (rv) a.live_version = std::string(*rv);
          }
          std::lock_guard lock(mu);
          answers.push_back(std::move(a));
          if (--outstanding == 0) cv.notify_all();
        });
  };
  kube::ApplyOptions apply;
  apply.dry_run = true;
  apply.field_manager = seed_field_manager(options.seed_name);
  kube::ApplyOptions forced = apply;
  forced.force = true;
  // Per cluster, one list of Namespaces instead of a 404 per object whose Namespace the seed has
  // yet to create; all at once, for as long as the deadline allows.
  size_t listing = 0;
  for (const Unit& unit : plan.units) {
    auto config = reachable.find(unit.cluster);
    if (config == reachable.end() || clients.contains(unit.cluster)) continue;
    auto made = kube::Client::create(config->second, read_only(options.client));
    if (!made) {
      clients[unit.cluster] = nullptr;
      continue;
    }
    clients[unit.cluster] = std::move(made.value());
    {
      std::lock_guard lock(mu);
      ++listing;
    }
    clients[unit.cluster]->list_async(
        {"v1", "Namespace", "", "", ""},
        [&, cluster = unit.cluster](kube::ApiResult<kube::ObjectList> list) {
          std::lock_guard lock(mu);
          if (list) {
            std::set<std::string>& names = namespaces[cluster];
            names.insert("");  // cluster-scoped objects
            for (const json::object& n : list->items)
              if (const auto* name = find_string(n, {"metadata", "name"})) names.emplace(*name);
          }
          if (--listing == 0) cv.notify_all();
        });
  }
  {
    std::unique_lock lock(mu);
    cv.wait_until(lock, options.deadline, [&] { return listing == 0; });
  }
  for (size_t u = 0; u < plan.units.size(); ++u) {
    const Unit& unit = plan.units[u];
    auto client = clients.find(unit.cluster);
    if (client == clients.end() || !client->second) continue;  // a cluster the seed creates
    {
      std::lock_guard lock(mu);
      // A cluster that did not list its Namespaces by the deadline is not asked more.
      if (listing > 0 && std::chrono::steady_clock::now() >= options.deadline) break;
      if (auto known = namespaces.find(unit.cluster);
          known != namespaces.end() && !known->second.contains(plan.object_of(unit).ref.ns))
        continue;
    }
    // Made only for what is sent: the copy of each object is the cost here.
    std::optional<json::object> body = body_known_before(plan, unit, options.seed_name);
    if (!body) continue;
    kube::Client* writer = writer_of(u);
    if (!writer) continue;
    {
      std::lock_guard lock(mu);
      ++outstanding;
    }
    send(*writer, u, std::move(*body), apply);
  }
  auto wait = [&] {
    std::unique_lock lock(mu);
    cv.wait_until(lock, options.deadline, [&] { return outstanding == 0; });
  };
  wait();
  // As planting: a conflict is forced where planting would force it, and judged again; else it
  // says what planting would.
  std::vector<std::pair<size_t, std::string>> again;  // unit, adopted from
  {
    std::lock_guard lock(mu);
    std::erase_if(answers, [&](Answer& a) {
      if (!a.error || !a.error->conflict()) return false;
      ConflictCall call = decide_conflict(*a.error, options.seed_name, options.adopt,
                                          options.force_conflicts, options.adopt_hint, "");
      if (call.kind == ConflictCall::kRefuse) {
        a.why = std::move(call.why);
        a.owner = std::move(call.owner);
        return false;
      }
      again.emplace_back(a.unit, std::move(call.owner));
      return true;
    });
    outstanding += again.size();
  }
  for (auto& [u, from] : again) {
    json::object body = *body_known_before(plan, plan.units[u], options.seed_name);
    if (!from.empty()) mark_adopted(body, from);
    if (kube::Client* writer = writer_of(u)) {
      send(*writer, u, std::move(body), forced);
    } else {
      std::lock_guard lock(mu);
      --outstanding;
    }
  }
  if (!again.empty()) wait();
  impersonating.clear();
  clients.clear();  // what did not answer by the deadline answers no more (its callback dropped)
  std::sort(answers.begin(), answers.end(),
            [](const Answer& a, const Answer& b) { return a.unit < b.unit; });
  out.live_versions.resize(plan.units.size());
  for (Answer& a : answers) {
    if (!a.error) {
      ++out.checked;
      out.live_versions[a.unit] = std::move(a.live_version);
      continue;
    }
    const Unit& unit = plan.units[a.unit];
    const Object& o = plan.object_of(unit);
    if (a.error->immutable() && replaced_on_immutable(o)) {
      ++out.checked;
      out.replaced.emplace_back(a.unit, a.error->immutable_fields());
      continue;
    }
    if (!a.owner.empty()) {
      ++out.checked;
      out.refused.add(o.where(), o.display(), fmt::format("cluster {}: {}", unit.cluster, a.why),
                      "another seed planted it: leave it out of this seed, or adopt it");
      continue;
    }
    std::optional<std::string> why = refusal(*a.error);
    if (!why) continue;
    ++out.checked;
    out.refused.add(
        o.where(), o.display(),
        fmt::format("cluster {} refuses it (server-side dry run): {}", unit.cluster, *why),
        preflight_hint(*a.error));
  }
  out.later = plan.units.size() - out.checked;
  check_cluster_names(plan, reachable, options, out.refused);
  return out;
}

}  // namespace planter::plant
