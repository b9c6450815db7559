#include "plant/engine.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>
#include <unordered_map>

#include "plan/stacks/stack_policy.h"
#include "plant/event_loop.h"
#include "plant/fleet_view.h"
#include "plant/gates/anchor.h"
#include "plant/gates/stack_fits.h"
#include "plant/readiness_check.h"
#include "plant/substitutions.h"
#include "plant/unit_runner.h"

namespace planter::plant {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using Type = ReadinessPredicate::Type;

std::string_view to_string(UnitState s) {
  switch (s) {
    case UnitState::kPending:
      return "pending";
    case UnitState::kDeclaring:
      return "declaring";
    case UnitState::kDeclared:
      return "declared";
    case UnitState::kFailed:
      return "failed";
    case UnitState::kBlocked:
      return "blocked";
  }
  return "pending";
}

size_t PlantOutcome::count(UnitState s) const {
  size_t n = 0;
  for (const UnitRecord& r : units) n += r.state == s ? 1 : 0;
  return n;
}

json::object declared_body(const Object& object, const std::string& seed_name) {
  // A copy on the heap, freed once sent: a plain copy would share the seed's arena, which only
  // grows (every declared body, and every rehash of one, kept until the plan goes).
  json::object body(object.body, json::storage_ptr());
  json::value& meta = body["metadata"];
  if (!meta.is_object()) meta = json::object{};
  json::value& labels = meta.as_object()["labels"];
  if (!labels.is_object()) labels = json::object{};
  labels.as_object()[kManagedByLabel] = "planter";
  labels.as_object()[kSeedLabel] = seed_name;
  return body;
}

namespace {

constexpr std::string_view kCrdApiVersion = "apiextensions.k8s.io/v1";

bool terminal(UnitState s) {
  return s == UnitState::kDeclared || s == UnitState::kFailed || s == UnitState::kBlocked;
}

std::string object_key_of(const ObjectRef& r) {
  return object_key(r.group(), r.kind, r.ns, r.name);
}

std::string kind_key(std::string_view cluster, std::string_view group, std::string_view kind) {
  return fmt::format("{}\nkind\n{}/{}", cluster, group, kind);
}

std::string at(std::string_view cluster, std::string_view key) {
  return fmt::format("{}\n{}", cluster, key);
}

// What a requirement looks like right now.
struct Check {
  enum { kHeld, kWaiting, kBlocked } verdict = kHeld;
  std::string text;         // the requirement and why it does not hold
  std::string requirement;  // the requirement alone
};

class Engine {
 public:
  Engine(const Plan& plan, const FleetFactory& make_fleet, const EngineOptions& options)
      : plan_(plan),
        options_(options),
        records_(plan.units.size()),
        dependents_(plan.units.size()),
        backoff_(plan.units.size(), milliseconds(50)) {
    FleetHandlers h;
    h.changed = [this](const std::string& c, const std::string& key, const json::object& o) {
      on_changed(c, key, o);
    };
    h.synced = [this](const std::string& c) {
      fits_->invalidate(c);
      wake_cluster(c);
    };
    h.linked = [this](const std::string& c) { wake_cluster(c); };
    h.kind_checked = [this](const std::string& c, const std::string& av, const std::string& k) {
      on_kind_checked(c, av, k);
    };
    fleet_ = make_fleet(loop_, std::move(h));
    fits_ = std::make_unique<StackFitsGate>(plan, *fleet_);
    anchors_ = std::make_unique<AnchorGate>(*fleet_, *fits_);
    for (const StackNeeds& s : plan.stacks) stacks_[s.name] = &s;
    index();
  }

  PlantOutcome run() {
    PlantOutcome out;
    out.started = std::chrono::system_clock::now();
    start_ = Clock::now();
    open_ = plan_.units.size();
    RunEnd end = run_units(
        loop_, *fleet_, plan_.units.size(), [this](size_t u) { evaluate(u); },
        [this] { return open_ > 0; }, start_, options_.timeout, options_.stop);
    out.timed_out = end.timed_out;
    out.stopped = end.stopped;
    out.elapsed = since_start();
    out.units = records_;
    return out;
  }

 private:
  std::chrono::microseconds since_start() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_);
  }

  // Who waits on what: object keys, kind keys and clusters lead to the units to re-evaluate.
  void index() {
    for (size_t u = 0; u < plan_.units.size(); ++u) {
      const Unit& unit = plan_.units[u];
      by_cluster_[unit.cluster].push_back(u);
      const Object& obj = plan_.object_of(unit);
      for (const Requirement& r : unit.requirements) {
        const ObjectRef& target = plan_.target(r);
        if (r.unit) dependents_[*r.unit].push_back(u);
        if (r.cluster != unit.cluster) by_cluster_[r.cluster].push_back(u);
        switch (r.when.type) {
          case Type::kClusterReady:
            break;
          case Type::kStackFits:
            waiters_[fit_key(r.cluster, r.when.arg)].push_back(u);
            if (auto s = stacks_.find(r.when.arg);
                s != stacks_.end() && s->second->anchor == unit.object)
              anchor_unit_[fit_key(r.cluster, r.when.arg)] = u;
            fits_->require(r.cluster, r.when.arg);
            break;
          case Type::kAnchorScheduled:
            waiters_[anchor_key(r.cluster, r.when.arg)].push_back(u);
            anchored_[fit_key(r.cluster, r.when.arg)].push_back(u);
            anchors_->require(r.cluster);
            break;
          case Type::kActive:
            waiters_[at(r.cluster, object_key_of(target))].push_back(u);
            fleet_->watch(r.cluster, "v1", "Namespace");
            break;
          case Type::kEstablished:
            fleet_->watch(r.cluster, std::string(kCrdApiVersion), "CustomResourceDefinition");
            if (!target.name.empty()) waiters_[at(r.cluster, object_key_of(target))].push_back(u);
            waiters_[kind_key(r.cluster, obj.ref.group(), obj.ref.kind)].push_back(u);
            break;
          case Type::kAvailable:
            waiters_[at(r.cluster, object_key_of(target))].push_back(u);
            fleet_->watch(r.cluster, "apiregistration.k8s.io/v1", "APIService");
            break;
          case Type::kEndpointsReady:
            waiters_[at(r.cluster, object_key("", "Endpoints", target.ns, target.name))].push_back(
                u);
            fleet_->watch(r.cluster, "v1", "Endpoints");
            break;
          case Type::kExists:
          case Type::kCondition:
          case Type::kJsonPath:
          case Type::kFieldSet:
          case Type::kHealthy:
          case Type::kSchedulerReady:
            waiters_[at(r.cluster, object_key_of(target))].push_back(u);
            // An object of the seed is watched once it is declared (its kind may not be
            // served before); a mere `exists` of one needs no watch at all.
            if (r.external()) fleet_->watch(r.cluster, target.api_version, target.kind);
            break;
        }
      }
    }
    for (auto& [cluster, units] : by_cluster_) {
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
    }
  }

  void wake(const std::vector<size_t>& units) {
    for (size_t u : units) evaluate(u);
  }
  void wake_key(const std::string& key) {
    auto it = waiters_.find(key);
    if (it != waiters_.end()) wake(it->second);
  }
  void wake_cluster(const std::string& cluster) {
    auto it = by_cluster_.find(cluster);
    if (it != by_cluster_.end()) wake(it->second);
  }

  void on_changed(const std::string& cluster, const std::string& key, const json::object& o) {
    std::string kind = string_field(o, {"kind"});
    if (StackFitsGate::reads(o)) {
      nodes_changed(cluster);
      if (const json::string* anchor =
              find_string(o, {"metadata", "labels", std::string_view(kAnchorLabel)}))
        wake_key(anchor_key(cluster, *anchor));
    }
    if (kind == "CustomResourceDefinition") {
      std::string group = string_field(o, {"spec", "group"});
      std::string kind = string_field(o, {"spec", "names", "kind"});
      std::string kk = kind_key(cluster, group, kind);
      crd_for_kind_[kk] = string_field(o, {"metadata", "name"});
      wake_key(kk);
    }
    wake_key(at(cluster, key));
  }

  void on_kind_checked(const std::string& cluster, const std::string& api_version,
                       const std::string& kind) {
    std::string_view group = split_api_version(api_version).first;
    std::string kk = kind_key(cluster, group, kind);
    if (fleet_->kind_state(cluster, api_version, kind) == FleetView::KindState::kMissing) {
      // The CRD says Established but discovery did not have the kind yet: look again soon,
      // backing off, for as long as the CRD keeps saying so. Without an established CRD, its
      // events ask again.
      auto crd = crd_readiness(cluster, "", group, kind);
      if (crd && crd->holds) {
        milliseconds& delay = kind_delay_[kk];
        delay = delay.count() == 0 ? milliseconds(20) : std::min(delay * 2, milliseconds(2000));
        retry_pending_.insert(kk);
        loop_.post_after(delay, [this, kk, cluster, api_version, kind] {
          retry_pending_.erase(kk);
          fleet_->check_kind(cluster, api_version, kind);
        });
      }
    } else {
      kind_delay_.erase(kk);
    }
    wake_key(kk);
  }

  // Stacks' fits: decided from the cluster's nodes and pods, once per change of them (a burst of
  // pod events is one decision), and kept once a stack is released.
  static std::string fit_key(std::string_view cluster, std::string_view stack) {
    return fmt::format("{}\nstack-fits\n{}", cluster, stack);
  }

  void nodes_changed(const std::string& cluster) {
    if (fits_->stacks_on(cluster).empty()) return;
    fits_->invalidate(cluster);
    if (!refit_posted_.insert(cluster).second) return;
    loop_.post([this, cluster] {
      refit_posted_.erase(cluster);
      for (const std::string& stack : fits_->stacks_on(cluster)) {
        if (!fits_->released(cluster, stack)) {
          wake_key(fit_key(cluster, stack));
          continue;
        }
        replace_anchor_if_stranded(cluster, stack);
        wake_key(anchor_key(cluster, stack));  // a node's cordon says whether an anchor holds
      }
    });
  }

  static std::string anchor_key(std::string_view cluster, std::string_view stack) {
    return fmt::format("{}\nanchor\n{}", cluster, stack);
  }

  // The anchor was bound where planter chose, that node is now cordoned or gone, and members
  // still wait for it: planter chooses a node again and declares the anchor again (its pod is
  // replaced by its StatefulSet's rollout), so that no member follows it onto a dead node.
  void replace_anchor_if_stranded(const std::string& cluster, const std::string& stack) {
    std::string key = fit_key(cluster, stack);
    auto anchor_unit = anchor_unit_.find(key);
    auto members = anchored_.find(key);
    const fit::GroupFit* released = fits_->released(cluster, stack);
    if (anchor_unit == anchor_unit_.end() || members == anchored_.end() || !released) return;
    size_t a = anchor_unit->second;
    if (records_[a].state != UnitState::kDeclared) return;
    bool waiting = false;
    for (size_t m : members->second) waiting = waiting || records_[m].state == UnitState::kPending;
    if (!waiting) return;
    const ObjectRef& ref = plan_.object_of(plan_.units[a]).ref;
    AnchorGate::Pod pod = anchors_->pod(cluster, ref.ns, stack);
    const auto& chosen = released->steer_values;
    if (pod.node.empty() || pod.why.empty() ||
        std::find(chosen.begin(), chosen.end(), pod.node) == chosen.end())
      return;
    fits_->unrelease(cluster, stack);
    records_[a].steered.clear();
    records_[a].waiting_for = "placing the anchor again: " + pod.why;
    set_state(a, UnitState::kPending);
    evaluate(a);
  }

  // Whether the CRD named `name` (or, without a name, the one whose events said it serves
  // `group`/`kind`) is Established; none when there is no such CRD.
  std::optional<Readiness> crd_readiness(const std::string& cluster, std::string name,
                                         std::string_view group, std::string_view kind) {
    if (name.empty()) {
      auto it = crd_for_kind_.find(kind_key(cluster, group, kind));
      if (it == crd_for_kind_.end()) return std::nullopt;
      name = it->second;
    }
    Readiness r =
        fleet_->readiness(cluster, std::string(kCrdApiVersion), "CustomResourceDefinition", "",
                          name, ReadinessPredicate::of(Type::kEstablished));
    if (!r.exists) return std::nullopt;
    return r;
  }

  Check check(size_t u, const Requirement& r) {
    const Unit& unit = plan_.units[u];
    const ObjectRef& target = plan_.target(r);
    auto waiting = [&](std::string why) {
      std::string what = plan_.describe(r);
      return Check{Check::kWaiting, why.empty() ? what : what + ": " + why, what};
    };
    if (r.unit) {
      const UnitRecord& provider = records_[*r.unit];
      if (provider.state == UnitState::kFailed || provider.state == UnitState::kBlocked) {
        const Unit& p = plan_.units[*r.unit];
        return {Check::kBlocked,
                fmt::format("{} on {} {}", plan_.object_of(p).display(), p.cluster,
                            provider.state == UnitState::kFailed ? "failed" : "is blocked")};
      }
      if (r.when.type != Type::kClusterReady && provider.state != UnitState::kDeclared)
        return waiting("");
      if (r.when.type == Type::kExists) return {};
    }
    switch (r.when.type) {
      case Type::kClusterReady:
        if (fleet_->linked(unit.cluster)) return {};
        return waiting(fleet_->link_status(unit.cluster));
      case Type::kAnchorScheduled: {
        if (auto why = anchors_->check(r.cluster, target.ns, r.when.arg)) return waiting(*why);
        return {};
      }
      case Type::kStackFits: {
        // Once it fits, every member on the cluster is released at once, in this turn.
        StackFitsGate::Verdict v = fits_->check(r.cluster, r.when.arg);
        switch (v.state) {
          case StackFitsGate::Verdict::kHolds:
            return {};
          case StackFitsGate::Verdict::kReleasedNow:
            loop_.post([this, key = fit_key(r.cluster, r.when.arg)] { wake_key(key); });
            return {};
          case StackFitsGate::Verdict::kNotReadable:
            return waiting(v.why);
          case StackFitsGate::Verdict::kDoesNotFit:
            return {Check::kWaiting, v.why, plan_.describe(r)};
        }
        return {};
      }
      case Type::kEstablished: {
        const ObjectRef& own = plan_.object_of(unit).ref;
        // Without a CRD in the seed, the kind of the requirement is what must be served.
        const ObjectRef& served = target.name.empty() ? target : own;
        auto state = fleet_->kind_state(r.cluster, served.api_version, served.kind);
        if (state == FleetView::KindState::kServed) return {};
        if (!fleet_->linked(r.cluster)) return waiting(fleet_->link_status(r.cluster));
        auto crd = crd_readiness(r.cluster, target.name, served.group(), served.kind);
        bool established = crd && crd->holds;
        // A kind with no CRD in sight may still be served (an aggregated API, a previous
        // install): discovery is asked once; CRD events ask again.
        if (state == FleetView::KindState::kUnknown ||
            (established && state == FleetView::KindState::kMissing &&
             !retry_pending_.contains(kind_key(r.cluster, served.group(), served.kind))))
          fleet_->check_kind(r.cluster, served.api_version, served.kind);
        if (!crd) return waiting(target.name.empty() ? "no CRD serves it yet" : "not found");
        if (!established) return waiting(crd->why);
        return waiting(fmt::format("{} {} not discoverable yet", served.api_version, served.kind));
      }
      case Type::kEndpointsReady: {
        Readiness ok =
            fleet_->readiness(r.cluster, "v1", "Endpoints", target.ns, target.name, r.when);
        if (ok.holds) return {};
        return waiting(ok.exists ? ok.why : "no endpoints yet");
      }
      case Type::kActive:
      case Type::kAvailable:
      case Type::kExists:
      case Type::kCondition:
      case Type::kJsonPath:
      case Type::kFieldSet:
      case Type::kHealthy:
      case Type::kSchedulerReady: {
        Readiness ok = fleet_->readiness(r.cluster, target.api_version, target.kind, target.ns,
                                         target.name, r.when);
        if (ok.holds) return {};
        return waiting(ok.why);
      }
    }
    return {};
  }

  void set_state(size_t u, UnitState s) {
    UnitRecord& rec = records_[u];
    bool was_open = !terminal(rec.state);
    rec.state = s;
    if (terminal(s) && was_open) --open_;
    if (!terminal(s) && !was_open) ++open_;
    if (options_.on_change) options_.on_change(u, rec);
    if (open_ == 0) loop_.stop();
  }

  void evaluate(size_t u) {
    UnitRecord& rec = records_[u];
    if (rec.state != UnitState::kPending) return;
    const Unit& unit = plan_.units[u];
    if (fleet_->link(unit.cluster) == FleetView::Link::kFailed) {
      rec.error = fmt::format("cluster {}: {}", unit.cluster, fleet_->link_status(unit.cluster));
      rec.waiting_for.clear();
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      return wake(dependents_[u]);
    }
    std::string first_wait, first_requirement;
    for (const Requirement& r : unit.requirements) {
      Check c = check(u, r);
      if (c.verdict == Check::kBlocked) {
        rec.error = "by " + c.text;
        rec.waiting_for.clear();
        rec.failed = since_start();
        set_state(u, UnitState::kBlocked);
        wake(dependents_[u]);
        return;
      }
      if (c.verdict == Check::kWaiting && first_wait.empty()) {
        first_wait = std::move(c.text);
        first_requirement = std::move(c.requirement);
      }
    }
    if (!first_wait.empty()) {
      requirement_wait_[u] = std::move(first_requirement);
      return wait(u, std::move(first_wait));
    }
    if (!fleet_->linked(unit.cluster))
      return wait(u,
                  fmt::format("cluster {}: {}", unit.cluster, fleet_->link_status(unit.cluster)));
    declare(u);
  }

  void wait(size_t u, std::string why) {
    UnitRecord& rec = records_[u];
    if (rec.waiting_for == why) return;
    rec.waiting_for = std::move(why);
    if (options_.on_change) options_.on_change(u, rec);
  }

  void declare(size_t u) {
    auto body = body_of(u);
    if (!body) return reopen(u, "apply-time mutation: " + body.error().message);
    UnitRecord& rec = records_[u];
    const Unit& unit = plan_.units[u];
    if (!rec.ready) rec.ready = since_start();
    if (auto it = requirement_wait_.find(u); it != requirement_wait_.end()) {
      rec.held_by = it->second;
      requirement_wait_.erase(it);
    }
    rec.waiting_for.clear();
    rec.cluster_unreachable = false;
    ++rec.attempts;
    set_state(u, UnitState::kDeclaring);
    kube::ApplyOptions apply;
    apply.force = options_.force_conflicts;
    // A custom resource planter wrote a stack's policies into: a field its schema would prune
    // (and the policy with it) is refused, never dropped with a warning.
    if (fits_->strict_fields(unit.object)) apply.field_validation = "Strict";
    bool sent = fleet_->apply(unit, std::move(body.value()), apply,
                              [this, u](kube::ApiResult<json::object> r) {
                                loop_.post([this, u, r = std::move(r)] { on_applied(u, r); });
                              });
    if (!sent) {
      rec.error = options_.write_as
                      ? "cannot make a client that writes as " + options_.write_as->user
                      : "no client can write to cluster " + unit.cluster;
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      return wake(dependents_[u]);
    }
  }

  // What is applied: the object with planter's labels, its apply-time substitutions made, its
  // pods steered to where their stack was found to fit. An error when a source is not in sight.
  Result<json::object> body_of(size_t u) {
    const Unit& unit = plan_.units[u];
    json::object body = declared_body(plan_.object_of(unit), options_.seed_name);
    auto substituted = apply_substitutions(
        plan_, unit, body, [this](const std::string& cluster, const ObjectRef& ref) {
          fleet_->watch(cluster, ref.api_version, ref.kind);  // when no requirement did
          return fleet_->get(cluster, ref.api_version, ref.kind, ref.ns, ref.name);
        });
    if (!substituted) return substituted.error();
    std::string where;
    if (fits_->steer(unit, body, where)) records_[u].steered = std::move(where);
    return body;
  }

  bool waits_for_kind(const Unit& unit) const {
    for (const Requirement& r : unit.requirements)
      if (r.when.type == Type::kEstablished || r.when.type == Type::kAvailable) return true;
    return false;
  }

  // Back to pending, looked at again after a backoff: the server disagrees with the cache.
  void reopen(size_t u, std::string why) {
    UnitRecord& rec = records_[u];
    requirement_wait_[u] = why.substr(0, why.find(':'));
    rec.waiting_for = std::move(why);
    set_state(u, UnitState::kPending);
    milliseconds delay = backoff_[u];
    backoff_[u] = std::min(delay * 2, milliseconds(5000));
    loop_.post_after(delay, [this, u] { evaluate(u); });
  }

  void on_applied(size_t u, const kube::ApiResult<json::object>& r) {
    UnitRecord& rec = records_[u];
    const Unit& unit = plan_.units[u];
    const Object& obj = plan_.object_of(unit);
    if (r) {
      unreachable_since_.erase(unit.cluster);
      rec.declared = since_start();
      set_state(u, UnitState::kDeclared);
      // Dependents that wait for more than existence read the object from a watch.
      for (size_t d : dependents_[u])
        for (const Requirement& req : plan_.units[d].requirements)
          if (req.unit == u &&
              (req.when.type == Type::kCondition || req.when.type == Type::kJsonPath ||
               req.when.type == Type::kFieldSet || req.when.type == Type::kHealthy)) {
            const ObjectRef& target = plan_.target(req);
            fleet_->watch(req.cluster, target.api_version, target.kind);
          }
      wake(dependents_[u]);
      return;
    }
    const kube::ApiError& e = r.error();
    if (e.kind_unknown() && waits_for_kind(unit)) {
      fleet_->forget_kind(unit.cluster, obj.ref.api_version, obj.ref.kind);
      return reopen(u, fmt::format("kind {} {} established: the server does not serve it yet",
                                   obj.ref.api_version, obj.ref.kind));
    }
    if (e.not_found() && e.details_kind == "namespaces")
      return reopen(
          u, fmt::format("Namespace {} active: the server says it does not exist", obj.ref.ns));
    if (e.transient()) {
      auto [since, inserted] = unreachable_since_.try_emplace(unit.cluster, Clock::now());
      auto down = Clock::now() - since->second;
      // Without --timeout a dead cluster must still end the plant, after a while the docs state.
      rec.cluster_unreachable = true;
      if (options_.timeout || down < kTransientGiveUp)
        return reopen(u, fmt::format("cluster {} unreachable for {}s, retrying: {}", unit.cluster,
                                     std::chrono::duration_cast<std::chrono::seconds>(down).count(),
                                     e.str()));
      rec.error = fmt::format(
          "{}; cluster {} was unreachable for {} minutes (plant with --timeout "
          "to wait longer)",
          e.str(), unit.cluster, std::chrono::duration_cast<std::chrono::minutes>(down).count());
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      return wake(dependents_[u]);
    }
    rec.error = e.str();
    if (e.conflict())
      rec.error +=
          "; another field manager owns these fields: plant with --force-conflicts to "
          "take them over";
    else if (e.kind_unknown())
      rec.error += "; the cluster does not serve this kind: check the apiVersion";
    rec.failed = since_start();
    set_state(u, UnitState::kFailed);
    wake(dependents_[u]);
  }

  const Plan& plan_;
  const EngineOptions& options_;
  EventLoop loop_;
  std::unique_ptr<Fleet> fleet_;
  std::vector<UnitRecord> records_;
  std::vector<std::vector<size_t>> dependents_;
  std::vector<milliseconds> backoff_;
  std::unordered_map<std::string, std::vector<size_t>> waiters_;
  std::map<std::string, std::vector<size_t>> by_cluster_;
  std::unordered_map<std::string, std::string> crd_for_kind_;  // kind key -> CRD name
  std::unordered_map<std::string, milliseconds> kind_delay_;   // kind key -> next re-check delay
  std::set<std::string> retry_pending_;                        // kind keys with a re-check due
  std::unordered_map<size_t, std::string> requirement_wait_;   // the last requirement waited on
  std::unordered_map<std::string, Clock::time_point> unreachable_since_;  // by cluster name
  // The gates of the stack kinds (src/plant/gates/): their state lives there.
  std::unique_ptr<StackFitsGate> fits_;
  std::unique_ptr<AnchorGate> anchors_;
  std::map<std::string, const StackNeeds*> stacks_;                // by name
  std::set<std::string> refit_posted_;                             // clusters with a decision due
  std::unordered_map<std::string, size_t> anchor_unit_;            // fit key -> the anchor's unit
  std::unordered_map<std::string, std::vector<size_t>> anchored_;  // fit key -> its followers
  Clock::time_point start_;
  size_t open_ = 0;
};

}  // namespace

PlantOutcome plant(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                   const EngineOptions& options) {
  FleetFactory real = [&](EventLoop& loop, FleetHandlers handlers) -> std::unique_ptr<Fleet> {
    auto view = std::make_unique<FleetView>(loop, plan, std::move(clusters), options.client,
                                            std::move(handlers));
    if (options.write_as) view->set_write_identity(*options.write_as);
    return view;
  };
  return plant_with(plan, real, options);
}

PlantOutcome plant_with(const Plan& plan, const FleetFactory& make_fleet,
                        const EngineOptions& options) {
  Engine engine(plan, make_fleet, options);
  return engine.run();
}

}  // namespace planter::plant
