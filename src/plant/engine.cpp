#include "plant/engine.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>
#include <unordered_map>

#include "model/object.h"
#include "plan/predicate_traits.h"
#include "plan/rules.h"
#include "plan/stacks/stack_policy.h"
#include "plant/event_loop.h"
#include "plant/first_writes.h"
#include "plant/fleet_view.h"
#include "plant/gates/gate.h"
#include "plant/gates/stack_fits.h"
#include "plant/ownership.h"
#include "plant/readiness_check.h"
#include "plant/seed_inventory.h"
#include "plant/substitutions.h"
#include "plant/unit_runner.h"
#include "seed/planter_annotations.h"

namespace planter::plant {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

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

void mark_adopted(json::object& body, const std::string& from_seed) {
  json::value& meta = body["metadata"];
  if (!meta.is_object()) meta = json::object{};
  json::value& notes = meta.as_object()["annotations"];
  if (!notes.is_object()) notes = json::object{};
  notes.as_object()[kAdoptedFromAnnotation] = from_seed;
}

std::optional<json::object> body_known_before(const Plan& plan, const Unit& unit,
                                              const std::string& seed_name) {
  json::object body = declared_body(plan.object_of(unit), seed_name);
  bool reads_others = false;
  auto substituted =
      apply_substitutions(plan, unit, body, [&](const std::string&, const ObjectRef&) {
        reads_others = true;
        return std::optional<json::object>();
      });
  if (reads_others || !substituted) return std::nullopt;
  return body;
}

namespace {

bool terminal(UnitState s) {
  return s == UnitState::kDeclared || s == UnitState::kFailed || s == UnitState::kBlocked ||
         s == UnitState::kNotChosen;
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
        backoff_(plan.units.size(), milliseconds(50)),
        first_writes_(options.first_writes) {
    FleetHandlers h;
    h.changed = [this](const std::string& c, const std::string& key, const json::object& o) {
      gates_->changed(c, o);
      wake_key(object_wake_key(c, key));
    };
    h.synced = [this](const std::string& c) {
      gates_->synced(c);
      wake_cluster(c);
    };
    h.linked = [this](const std::string& c) {
      ++changes_;
      gates_->linked(c);
      wake_cluster(c);
    };
    h.kind_checked = [this](const std::string& c, const std::string& av, const std::string& k) {
      gates_->kind_checked(c, av, k);
    };
    fleet_ = make_fleet(loop_, std::move(h));
    GateContext context{plan_, *fleet_, loop_};
    context.wake = [this](const std::string& key) { wake_key(key); };
    context.declared = [this](size_t u) { return records_[u].state == UnitState::kDeclared; };
    context.pending = [this](size_t u) { return records_[u].state == UnitState::kPending; };
    context.not_chosen = [this](size_t u) { return records_[u].state == UnitState::kNotChosen; };
    context.declare_again = [this](size_t u, std::string why) {
      records_[u].steered.clear();
      records_[u].waiting_for = std::move(why);
      set_state(u, UnitState::kPending);
      evaluate(u);
    };
    context.kept_choices = options_.kept_choices;
    context.chose = [this](const ClusterChoice& choice, const fit::ClusterChoiceResult& result) {
      choices_.push_back({choice.name, result});
    };
    gates_ = std::make_unique<Gates>(std::move(context));
    index();
  }

  PlantOutcome run() {
    PlantOutcome out;
    out.started = std::chrono::system_clock::now();
    start_ = Clock::now();
    open_ = plan_.units.size();
    for (size_t u = 0; u < plan_.units.size(); ++u)
      for_each_read_cluster(u, [this](const std::string& c) { ++readers_[c]; });
    for (const std::string& c : gates_->read_for_the_run()) ++readers_[c];  // never let go
    if (options_.yield_waiting_on_clusters)
      look_for_cluster_waits(*options_.yield_waiting_on_clusters);
    RunEnd end = run_units(
        loop_, *fleet_, plan_.units.size(), [this](size_t u) { evaluate(u); },
        [this] { return open_ > 0; }, start_, options_.timeout, options_.stop);
    out.timed_out = end.timed_out || yielded_;
    out.stopped = end.stopped;
    out.elapsed = since_start();
    out.units = std::move(records_);  // the engine is done with them
    out.choices = choices_;
    out.warnings = warnings_;
    out.first_written = first_written_;
    return out;
  }

 private:
  std::chrono::microseconds since_start() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_);
  }

  // Who waits on what: the keys each requirement's gate names, and clusters, lead to the units
  // to evaluate again.
  void index() {
    std::vector<std::string> keys;
    for (size_t u = 0; u < plan_.units.size(); ++u) {
      const Unit& unit = plan_.units[u];
      by_cluster_[unit.cluster].push_back(u);
      for (const Requirement& r : unit.requirements) {
        if (r.unit) dependents_[*r.unit].push_back(u);
        if (r.cluster != unit.cluster) by_cluster_[r.cluster].push_back(u);
        keys.clear();
        gates_->of(r.when.type).require(u, r, keys);
        for (std::string& k : keys) waiters_[std::move(k)].push_back(u);
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

  Check check(size_t u, const Requirement& r) {
    auto waiting = [&](std::string why) {
      std::string what = plan_.describe(r);
      return Check{Check::kWaiting, why.empty() ? what : what + ": " + why, what};
    };
    if (r.unit) {
      const UnitRecord& provider = records_[*r.unit];
      if (provider.state == UnitState::kNotChosen) {
        // A roll-out batch that went to no chosen cluster holds nothing back.
        if (const RequirementRule* rule = rule_named(r.rule);
            rule && rule->unchosen_provider_holds_nothing)
          return {};
        const Unit& p = plan_.units[*r.unit];
        return {Check::kBlocked, fmt::format("{} on {}, whose cluster was not chosen",
                                             plan_.object_of(p).display(), p.cluster)};
      }
      if (provider.state == UnitState::kFailed || provider.state == UnitState::kBlocked) {
        const Unit& p = plan_.units[*r.unit];
        return {Check::kBlocked,
                fmt::format("{} on {} {}", plan_.object_of(p).display(), p.cluster,
                            provider.state == UnitState::kFailed ? "failed" : "is blocked")};
      }
      const PredicateTraits& traits = traits_of(r.when.type);
      if (!traits.before_provider_declared && provider.state != UnitState::kDeclared)
        return waiting("");
      if (traits.declared_is_enough) return {};
    }
    std::optional<Gate::Wait> wait = gates_->of(r.when.type).check(u, r);
    if (!wait) return {};
    if (wait->bare) return {Check::kWaiting, std::move(wait->why), plan_.describe(r)};
    return waiting(std::move(wait->why));
  }

  // EngineOptions::yield_waiting_on_clusters: looked at every `quiet`, the run ends when nothing
  // changed since the last look and every open unit waits for its cluster to be linked.
  void look_for_cluster_waits(milliseconds quiet) {
    loop_.post_after(quiet, [this, quiet, seen = changes_] {
      if (open_ == 0) return;
      if (changes_ == seen && waits_only_on_clusters()) {
        yielded_ = true;
        return loop_.stop();
      }
      look_for_cluster_waits(quiet);
    });
  }
  bool waits_only_on_clusters() const {
    for (size_t u = 0; u < records_.size(); ++u)
      if (!terminal(records_[u].state) &&
          (records_[u].state != UnitState::kPending || fleet_->linked(plan_.units[u].cluster)))
        return false;
    return true;
  }

  void set_state(size_t u, UnitState s) {
    ++changes_;
    UnitRecord& rec = records_[u];
    bool was_open = !terminal(rec.state);
    rec.state = s;
    if (terminal(s) && was_open) {
      --open_;
      for_each_read_cluster(u, [this](const std::string& c) {
        if (--readers_[c] == 0) fleet_->needed(c, false);
      });
    }
    if (!terminal(s) && !was_open) {
      ++open_;
      for_each_read_cluster(u, [this](const std::string& c) {
        if (readers_[c]++ == 0) fleet_->needed(c, true);
      });
    }
    if (options_.on_change) options_.on_change(u, rec);
    if (open_ == 0) loop_.stop();
  }

  // Each cluster a requirement of unit `u` is on, once.
  template <class Fn>
  void for_each_read_cluster(size_t u, Fn fn) const {
    const std::vector<Requirement>& reqs = plan_.units[u].requirements;
    for (size_t i = 0; i < reqs.size(); ++i) {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j) seen = reqs[j].cluster == reqs[i].cluster;
      if (!seen) fn(reqs[i].cluster);
    }
  }

  void evaluate(size_t u) {
    UnitRecord& rec = records_[u];
    if (rec.state != UnitState::kPending) return;
    const Unit& unit = plan_.units[u];
    // On a cluster its choice did not choose, nothing else matters (that cluster may be gone);
    // while the choice is open, a cluster that cannot be reached is the choice's to refuse.
    bool choosing = false;
    for (const Requirement& r : unit.requirements) {
      if (!traits_of(r.when.type).decides_the_cluster) continue;
      std::optional<Gate::Wait> wait = gates_->of(r.when.type).check(u, r);
      if (wait && !wait->skip) choosing = true;
      if (!wait || !wait->skip) continue;
      rec.waiting_for = std::move(wait->why);
      set_state(u, UnitState::kNotChosen);
      return wake(dependents_[u]);
    }
    if (!choosing && fleet_->link(unit.cluster) == FleetView::Link::kFailed) {
      rec.error = fmt::format("cluster {}: {}", unit.cluster, fleet_->link_status(unit.cluster));
      rec.waiting_for.clear();
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      return wake(dependents_[u]);
    }
    std::string first_wait, first_requirement;
    int32_t first_index = WaitSpan::kLinkWait;
    for (size_t i = 0; i < unit.requirements.size(); ++i) {
      const Requirement& r = unit.requirements[i];
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
        first_index = static_cast<int32_t>(i);
      }
    }
    if (!first_wait.empty()) {
      requirement_wait_[u] = std::move(first_requirement);
      return wait(u, std::move(first_wait), first_index);
    }
    if (!fleet_->linked(unit.cluster))
      return wait(u, fmt::format("cluster {}: {}", unit.cluster, fleet_->link_status(unit.cluster)),
                  WaitSpan::kLinkWait);
    if (first_writes_.pending(unit.cluster)) return write_first(u);
    declare(u);
  }

  // Unit `u` waits for its cluster's first write (first_writes.h), sent with the first unit held.
  void write_first(size_t u) {
    const std::string& cluster = plan_.units[u].cluster;
    wait(u, fmt::format("cluster {}: the seed's inventory written there first", cluster),
         WaitSpan::kLinkWait);
    if (!first_writes_.hold(cluster, u)) return;
    kube::ApplyOptions apply = inventory_apply_options(options_.seed_name);
    auto answered = [this, cluster](kube::ApiResult<json::object> r) {
      loop_.post([this, cluster, r = std::move(r)] {
        if (!r && r.error().transient())  // a cluster just provisioned may not answer at once
          return loop_.post_after(milliseconds(500),
                                  [this, cluster] { wake(first_writes_.again(cluster)); });
        if (r)
          first_written_.push_back(cluster);
        else
          warnings_.push_back(fmt::format("cluster {}: writing the seed's inventory: {}", cluster,
                                          r.error().str()));
        wake(first_writes_.done(cluster));
      });
    };
    if (!fleet_->apply(plan_.units[u], first_writes_.object(cluster), apply, answered)) {
      warnings_.push_back(
          fmt::format("cluster {}: no client to write the seed's inventory with", cluster));
      wake(first_writes_.done(cluster));
    }
  }

  // The unit's wait goes on, for `requirement` from now on (a new span when that changed).
  void wait_span(UnitRecord& rec, int32_t requirement) {
    if (!rec.waits.empty() && rec.waits.back().until < 0 &&
        rec.waits.back().requirement == requirement)
      return;
    int64_t now = since_start().count();
    end_span(rec, now);
    rec.waits.push_back({now, -1, requirement});
  }
  static void end_span(UnitRecord& rec, int64_t now) {
    if (!rec.waits.empty() && rec.waits.back().until < 0) rec.waits.back().until = now;
  }

  void wait(size_t u, std::string why, int32_t requirement) {
    UnitRecord& rec = records_[u];
    wait_span(rec, requirement);
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
    rec.sent = since_start();
    end_span(rec, rec.sent->count());
    if (auto it = requirement_wait_.find(u); it != requirement_wait_.end()) {
      rec.held_by = it->second;
      requirement_wait_.erase(it);
    }
    rec.waiting_for.clear();
    rec.cluster_unreachable = false;
    ++rec.attempts;
    set_state(u, UnitState::kDeclaring);
    kube::ApplyOptions apply;
    apply.field_manager = seed_field_manager(options_.seed_name);
    // Unforced first: a conflict says whether another seed owns the object (on_applied).
    apply.force = forced_.contains(u);
    // A custom resource planter wrote a stack's policies into: a field its schema would prune
    // (and the policy with it) is refused, never dropped with a warning.
    if (gates_->stack_fits().strict_fields(unit.object)) apply.field_validation = "Strict";
    // Told on the transport's thread just before the answer, which then carries it to the loop.
    auto answer = std::make_shared<std::pair<std::chrono::microseconds, int>>();
    apply.on_answer = [answer](std::chrono::microseconds t, int status) { *answer = {t, status}; };
    bool sent = fleet_->apply(unit, std::move(body.value()), apply,
                              [this, u, answer](kube::ApiResult<json::object> r) {
                                loop_.post([this, u, r = std::move(r), a = *answer] {
                                  records_[u].on_wire = a.first;
                                  on_applied(u, r, a.second);
                                });
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
    if (gates_->stack_fits().steer(unit, body, where)) records_[u].steered = std::move(where);
    if (auto it = forced_.find(u); it != forced_.end() && !it->second.empty())
      mark_adopted(body, it->second);
    return body;
  }

  bool waits_for_kind(const Unit& unit) const {
    for (const Requirement& r : unit.requirements)
      if (traits_of(r.when.type).serves_a_kind) return true;
    return false;
  }

  // What the apply did, from its status and the resourceVersion before it: the one this run's
  // last apply left, else the one the preflight saw.
  void note_applied(size_t u, const json::object& answer, int status) {
    UnitRecord& rec = records_[u];
    std::string before = std::move(rec.resource_version);
    if (before.empty() && u < options_.live_versions.size()) before = options_.live_versions[u];
    const json::string* after = find_string(answer, {"metadata", "resourceVersion"});
    rec.resource_version = after ? std::string(*after) : std::string();
    if (status == 201)
      rec.applied = rec.replacing.empty() ? Applied::kCreated : Applied::kReplaced;
    else if (before.empty() || rec.resource_version.empty())
      rec.applied = Applied::kApplied;
    else
      rec.applied = before == rec.resource_version ? Applied::kUnchanged : Applied::kConfigured;
  }

  // Back to pending, looked at again after a backoff: the server disagrees with the cache.
  void reopen(size_t u, std::string why) {
    UnitRecord& rec = records_[u];
    requirement_wait_[u] = why.substr(0, why.find(':'));
    wait_span(rec, WaitSpan::kRetryWait);
    rec.waiting_for = std::move(why);
    set_state(u, UnitState::kPending);
    milliseconds delay = backoff_[u];
    backoff_[u] = std::min(delay * 2, milliseconds(5000));
    loop_.post_after(delay, [this, u] { evaluate(u); });
  }

  void on_applied(size_t u, const kube::ApiResult<json::object>& r, int status) {
    UnitRecord& rec = records_[u];
    const Unit& unit = plan_.units[u];
    const Object& obj = plan_.object_of(unit);
    if (r) {
      unreachable_since_.erase(unit.cluster);
      rec.declared = since_start();
      note_applied(u, r.value(), status);
      set_state(u, UnitState::kDeclared);
      // Their gates learn that the object their dependents wait on is there (they may watch it).
      for (size_t d : dependents_[u])
        for (const Requirement& req : plan_.units[d].requirements)
          if (req.unit == u) gates_->of(req.when.type).provider_declared(req);
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
    if (e.immutable() && replaced_on_immutable(obj)) return replace(u, e);
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
    if (e.conflict() && !forced_.contains(u)) {
      ConflictCall call = decide_conflict(e, options_.seed_name, options_.adopt,
                                          options_.force_conflicts, options_.adopt_hint,
                                          "another field manager owns these fields: plant with "
                                          "--force-conflicts to take them over");
      if (call.kind == ConflictCall::kForce) {
        rec.error.clear();
        forced_[u] = std::move(call.owner);
        return declare(u);
      }
      rec.error = call.owner.empty() ? rec.error + "; " + call.why : call.why;
    } else if (e.kind_unknown()) {
      rec.error += "; the cluster does not serve this kind: check the apiVersion";
    } else if (e.immutable()) {
      rec.error += fmt::format("; annotate it {}: replace to have it deleted and created again",
                               kOnImmutableAnnotation);
    }
    rec.failed = since_start();
    set_state(u, UnitState::kFailed);
    wake(dependents_[u]);
  }

  // An immutable field changes and the object says to make it again: it is deleted, and applied
  // again once it is gone. While finalizers hold it (a PodGroup while its pods run) the apply is
  // refused as immutable again, and it is deleted again, with the backoff of a retry.
  void replace(size_t u, const kube::ApiError& refusal) {
    UnitRecord& rec = records_[u];
    const Unit& unit = plan_.units[u];
    rec.replacing = refusal.immutable_fields();
    kube::DeleteOptions background;
    background.propagation_policy = "Background";  // what it owns goes after it, not before
    bool sent = fleet_->remove(unit, plan_.object_of(unit).ref, background,
                               [this, u](kube::ApiResult<json::object> r) {
                                 loop_.post([this, u, r = std::move(r)] { on_removed(u, r); });
                               });
    if (!sent) {
      rec.error = "no client can delete it on cluster " + unit.cluster;
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      wake(dependents_[u]);
    }
  }

  void on_removed(size_t u, const kube::ApiResult<json::object>& r) {
    UnitRecord& rec = records_[u];
    const Object& obj = plan_.object_of(plan_.units[u]);
    if (!r && !r.error().not_found() && !r.error().transient()) {
      rec.error = fmt::format(
          "{} cannot change ({}: the server lets no update change it), and deleting it to create "
          "it again was refused: {}",
          obj.display(), rec.replacing, r.error().str());
      rec.failed = since_start();
      set_state(u, UnitState::kFailed);
      return wake(dependents_[u]);
    }
    std::string held;  // the answer is the object while finalizers keep it
    if (r)
      if (const json::value* f = find_path(r.value(), {"metadata", "finalizers"});
          f && f->is_array() && !f->as_array().empty()) {
        for (const json::value& name : f->as_array())
          if (name.is_string()) held += (held.empty() ? "" : ", ") + std::string(name.as_string());
        held = "; its finalizers hold it: " + held;
      }
    reopen(u, fmt::format("{} gone: deleted to be created again ({} cannot change){}",
                          obj.display(), rec.replacing, held));
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
  std::unordered_map<size_t, std::string> requirement_wait_;  // the last requirement waited on
  // Units applied forced after a conflict allowed it: whom each was adopted from ("" when the
  // fields were another manager's, not a seed's).
  std::unordered_map<size_t, std::string> forced_;
  std::unordered_map<std::string, Clock::time_point> unreachable_since_;  // by cluster name
  std::vector<ChoiceRecord> choices_;  // the cluster choices made, in order
  FirstWrites first_writes_;
  std::vector<std::string> warnings_;
  std::vector<std::string> first_written_;
  // The gates of the requirement kinds (src/plant/gates/): their state lives there.
  std::unique_ptr<Gates> gates_;
  Clock::time_point start_;
  uint64_t changes_ = 0;  // of a unit's state or a cluster's link, counted
  bool yielded_ = false;  // EngineOptions::yield_waiting_on_clusters ended the run
  size_t open_ = 0;
  // Per cluster: the open units that read it (a requirement of theirs is on it). When the last
  // ends, the fleet may close the cluster's watches; when one opens again, it opens them again.
  std::unordered_map<std::string, size_t> readers_;
};

}  // namespace

std::string describe(const Plan& plan, const Unit& unit, const WaitSpan& span) {
  if (span.requirement == WaitSpan::kLinkWait)
    return fmt::format("cluster {} linked (its API answers)", unit.cluster);
  if (span.requirement < 0 || static_cast<size_t>(span.requirement) >= unit.requirements.size())
    return "a retry after the server's answer";
  return plan.describe(unit.requirements[static_cast<size_t>(span.requirement)]);
}

WaitKind wait_kind(const Unit& unit, const WaitSpan& span) {
  if (span.requirement == WaitSpan::kLinkWait) return WaitKind::kCluster;
  if (span.requirement < 0 || static_cast<size_t>(span.requirement) >= unit.requirements.size())
    return WaitKind::kRetry;
  return traits_of(unit.requirements[static_cast<size_t>(span.requirement)].when.type).wait;
}

std::string_view to_string(WaitKind kind) {
  switch (kind) {
    case WaitKind::kCluster:
      return "cluster";
    case WaitKind::kApi:
      return "api";
    case WaitKind::kNamespace:
      return "namespace";
    case WaitKind::kReady:
      return "ready";
    case WaitKind::kRoom:
      return "room";
    case WaitKind::kRetry:
      return "retry";
  }
  return "ready";
}

PlantOutcome plant(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                   const EngineOptions& options) {
  FleetFactory real = [&](EventLoop& loop, FleetHandlers handlers) -> std::unique_ptr<Fleet> {
    auto view = std::make_unique<FleetView>(loop, plan, std::move(clusters), options.client,
                                            std::move(handlers));
    if (options.write_as) view->set_write_identity(*options.write_as);
    view->set_cache(options.fleet_cache);
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
