#include "plant/uproot.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <unordered_map>

#include "plan/hooks.h"
#include "plant/engine.h"
#include "plant/event_loop.h"
#include "plant/fleet_view.h"
#include "plant/ownership.h"
#include "plant/unit_runner.h"

namespace planter::plant {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

std::string_view to_string(RemovalState s) {
  switch (s) {
    case RemovalState::kWaiting:
      return "waiting";
    case RemovalState::kDeleting:
      return "deleting";
    case RemovalState::kDeleted:
      return "deleted";
    case RemovalState::kAbsent:
      return "absent";
    case RemovalState::kLeft:
      return "left";
    case RemovalState::kFailed:
      return "failed";
    case RemovalState::kBlocked:
      return "blocked";
  }
  return "waiting";
}

size_t UprootOutcome::count(RemovalState s) const {
  size_t n = 0;
  for (const RemovalRecord& r : units) n += r.state == s ? 1 : 0;
  return n;
}

bool UprootOutcome::complete() const {
  return count(RemovalState::kDeleted) + count(RemovalState::kAbsent) +
             count(RemovalState::kLeft) ==
         units.size();
}

namespace {

bool finished(RemovalState s) {
  return s != RemovalState::kWaiting && s != RemovalState::kDeleting;
}
bool cleared(RemovalState s) {
  return s == RemovalState::kDeleted || s == RemovalState::kAbsent || s == RemovalState::kLeft;
}

class Uprooter {
 public:
  Uprooter(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
           const UprootOptions& options)
      : plan_(plan),
        options_(options),
        records_(plan.units.size()),
        required_by_(plan.units.size()),
        requires_(plan.units.size()) {
    FleetHandlers h;
    h.changed = [this](const std::string& c, const std::string& key, const json::object&) {
      auto it = deleting_.find(c + "\n" + key);
      if (it != deleting_.end()) check_gone(it->second);
    };
    h.synced = [this](const std::string& c) { wake_cluster(c); };
    h.linked = [this](const std::string& c) { wake_cluster(c); };
    fleet_ =
        std::make_unique<FleetView>(loop_, plan, std::move(clusters), options.client, std::move(h));
    if (options.write_as) fleet_->set_write_identity(*options.write_as);
    // u requires p  =>  u must be gone before p goes.
    std::unordered_map<std::string, size_t> cluster_object_unit;
    for (const ClusterInfo& c : plan.clusters)
      if (c.object)
        for (size_t i = 0; i < plan.units.size(); ++i)
          if (plan.units[i].object == *c.object) cluster_object_unit[c.name] = i;
    for (size_t u = 0; u < plan.units.size(); ++u) {
      auto link = [&](size_t p) {
        if (p == u) return;
        required_by_[p].push_back(u);
        requires_[u].push_back(p);
      };
      for (const Requirement& r : plan.units[u].requirements)
        if (r.unit) link(*r.unit);
      if (auto it = cluster_object_unit.find(plan.units[u].cluster);
          it != cluster_object_unit.end())
        link(it->second);
    }
  }

  UprootOutcome run() {
    start_ = Clock::now();
    open_ = plan_.units.size();
    RunEnd end = run_units(
        loop_, *fleet_, plan_.units.size(), [this](size_t u) { evaluate(u); },
        [this] { return open_ > 0; }, start_, options_.timeout, options_.stop);
    UprootOutcome out;
    out.timed_out = end.timed_out;
    out.stopped = end.stopped;
    out.elapsed = now();
    out.units = records_;
    return out;
  }

 private:
  std::chrono::microseconds now() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_);
  }

  void wake_cluster(const std::string& c) {
    for (size_t u = 0; u < plan_.units.size(); ++u) {
      if (plan_.units[u].cluster != c) continue;
      if (records_[u].state == RemovalState::kWaiting) evaluate(u);
      if (records_[u].state == RemovalState::kDeleting) check_gone(u);
    }
  }

  void set(size_t u, RemovalState s, std::string note = {}) {
    RemovalRecord& r = records_[u];
    r.state = s;
    if (!note.empty()) r.note = std::move(note);
    if (finished(s)) {
      r.waiting_for.clear();
      if (cleared(s) && !r.gone) r.gone = now();
      --open_;
    }
    if (options_.on_change) options_.on_change(u, r);
    if (finished(s))
      for (size_t p : requires_[u]) evaluate(p);
    if (open_ == 0) loop_.stop();
  }

  void evaluate(size_t u) {
    RemovalRecord& rec = records_[u];
    if (rec.state != RemovalState::kWaiting || asking_.contains(u)) return;
    for (size_t d : required_by_[u]) {
      RemovalState s = records_[d].state;
      if (s == RemovalState::kFailed || s == RemovalState::kBlocked)
        return set(u, RemovalState::kBlocked,
                   fmt::format("blocked: {} on {} is still there",
                               plan_.object_of(plan_.units[d]).display(), plan_.units[d].cluster));
      if (!cleared(s)) {
        rec.waiting_for = fmt::format("{} on {} to go", plan_.object_of(plan_.units[d]).display(),
                                      plan_.units[d].cluster);
        return;
      }
    }
    const Unit& unit = plan_.units[u];
    const std::string& cluster = unit.cluster;
    if (!fleet_->linked(cluster)) {
      if (fleet_->link(cluster) == FleetView::Link::kAbsent)
        return set(u, RemovalState::kAbsent, "its cluster is gone");
      // A cluster that will never be provisioned (its name is taken, its provisioning failed)
      // holds nothing: nothing was ever declared there.
      if (fleet_->link(cluster) == FleetView::Link::kFailed)
        return set(u, RemovalState::kAbsent, fleet_->link_status(cluster));
      rec.waiting_for = fleet_->link_status(cluster);
      return;
    }
    const ObjectRef& ref = plan_.object_of(unit).ref;
    asking_.insert(u);
    fleet_->client(cluster)->get_async(ref.api_version, ref.kind, ref.ns, ref.name,
                                       [this, u](kube::ApiResult<json::object> r) {
                                         loop_.post([this, u, r = std::move(r)] { on_got(u, r); });
                                       });
  }

  void on_got(size_t u, const kube::ApiResult<json::object>& r) {
    asking_.erase(u);
    if (!r) {
      const kube::ApiError& e = r.error();
      if (e.not_found() || e.kind_unknown()) return set(u, RemovalState::kAbsent, "not there");
      return set(u, RemovalState::kFailed, e.str());
    }
    std::string seed = string_field(r.value(), {"metadata", "labels", std::string(kSeedLabel)});
    if (seed != options_.seed_name)
      return set(u, RemovalState::kLeft,
                 seed.empty() ? "not planted by planter: left alone"
                              : fmt::format("planted by seed \"{}\": left alone", seed));
    if (auto kept = kept_by_tools(r.value(), options_.removal, options_.conventions)) {
      records_[u].kept = true;
      return set(u, RemovalState::kLeft, *kept);
    }
    const Unit& unit = plan_.units[u];
    const ObjectRef& ref = plan_.object_of(unit).ref;
    fleet_->watch(unit.cluster, ref.api_version, ref.kind);
    deleting_[unit.cluster + "\n" + ref.key()] = u;
    RemovalRecord& rec = records_[u];
    rec.started = now();
    rec.waiting_for = "its deletion to finish";
    set(u, RemovalState::kDeleting);
    kube::DeleteOptions del;
    del.precondition_uid = string_field(r.value(), {"metadata", "uid"});
    kube::Client* writer = fleet_->writer(unit);
    if (!writer)
      return set(u, RemovalState::kFailed,
                 "cannot make a client that writes as " + options_.write_as->user);
    writer->remove_async(ref.api_version, ref.kind, ref.ns, ref.name, del,
                         [this, u](kube::ApiResult<json::object> rr) {
                           loop_.post([this, u, rr = std::move(rr)] { on_deleted(u, rr); });
                         });
  }

  void on_deleted(size_t u, const kube::ApiResult<json::object>& r) {
    if (records_[u].state != RemovalState::kDeleting) return;
    if (!r) {
      const kube::ApiError& e = r.error();
      if (e.not_found() || e.kind_unknown()) return gone(u);
      // A uid precondition that fails: it was replaced by someone else meanwhile.
      if (e.conflict()) return gone(u);
      return set(u, RemovalState::kFailed, e.str());
    }
    check_gone(u);
  }

  void check_gone(size_t u) {
    if (records_[u].state != RemovalState::kDeleting) return;
    const Unit& unit = plan_.units[u];
    const ObjectRef& ref = plan_.object_of(unit).ref;
    if (!fleet_->synced(unit.cluster, ref.api_version, ref.kind)) return;
    auto obj = fleet_->get(unit.cluster, ref.api_version, ref.kind, ref.ns, ref.name);
    if (!obj) return gone(u);
    const json::value* finalizers = find_path(*obj, {"metadata", "finalizers"});
    if (finalizers && finalizers->is_array() && !finalizers->as_array().empty())
      records_[u].waiting_for = "finalizers " + json::serialize(*finalizers);
  }

  void gone(size_t u) {
    const Unit& unit = plan_.units[u];
    deleting_.erase(unit.cluster + "\n" + plan_.object_of(unit).ref.key());
    set(u, RemovalState::kDeleted);
  }

  const Plan& plan_;
  const UprootOptions& options_;
  EventLoop loop_;
  std::unique_ptr<FleetView> fleet_;
  std::vector<RemovalRecord> records_;
  std::vector<std::vector<size_t>> required_by_, requires_;
  std::unordered_map<std::string, size_t> deleting_;  // cluster \n key -> unit
  std::set<size_t> asking_;
  Clock::time_point start_;
  size_t open_ = 0;
};

}  // namespace

UprootOutcome uproot(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                     const UprootOptions& options) {
  Uprooter u(plan, std::move(clusters), options);
  return u.run();
}

std::string render_uproot_summary(const Plan& plan, const UprootOutcome& out) {
  auto clusters = plan.units_by_cluster();
  size_t width = 7;
  for (const auto& [c, _] : clusters) width = std::max(width, c.size());
  std::string text = fmt::format("{:<{}}  {:>7}  {:>6}  {:>4}  {:>11}\n", "CLUSTER", width,
                                 "DELETED", "ABSENT", "LEFT", "NOT DONE");
  for (const auto& [c, units] : clusters) {
    size_t n[7] = {0, 0, 0, 0, 0, 0, 0};
    for (size_t i : units) ++n[static_cast<int>(out.units[i].state)];
    text += fmt::format("{:<{}}  {:>7}  {:>6}  {:>4}  {:>11}\n", c, width, n[2], n[3], n[4],
                        n[0] + n[1] + n[5] + n[6]);
  }
  bool header = false;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const RemovalRecord& r = out.units[i];
    if (r.state == RemovalState::kDeleted || r.state == RemovalState::kAbsent) continue;
    if (!header) {
      text += "\nNot deleted:\n";
      header = true;
    }
    const Unit& u = plan.units[i];
    std::string why = finished(r.state) ? r.note : "waiting for " + r.waiting_for;
    text += fmt::format("  {} {} on {}: {}\n", to_string(r.state), plan.object_of(u).display(),
                        u.cluster, why);
  }
  double secs = static_cast<double>(out.elapsed.count()) / 1e6;
  size_t deleted = out.count(RemovalState::kDeleted);
  text += out.complete()
              ? fmt::format("\nuprooted {} units in {:.2f}s\n", deleted, secs)
              : fmt::format("\n{} units deleted; not finished after {:.2f}s{}\n", deleted, secs,
                            out.timed_out ? " (timed out)"
                            : out.stopped ? " (interrupted)"
                                          : "");
  return text;
}

}  // namespace planter::plant
