#include "plant/health_wait.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "model/object.h"
#include "plan/rules.h"
#include "plant/engine.h"
#include "plant/kstatus.h"
#include "plant/ownership.h"

namespace planter::plant {

namespace json = boost::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

// The units of one kind on one cluster: one list a round serves them all.
struct Group {
  std::string cluster, api_version, kind;
  std::vector<size_t> units;
};

// A unit's own ready-when, parsed once: what decides its health instead of kstatus.
struct OwnReadiness {
  ReadinessPredicate predicate;
  std::string text;
};

std::optional<OwnReadiness> own_readiness(const Plan& plan, const Unit& unit) {
  const json::string* when = find_string(
      plan.object_of(unit).body, {"metadata", "annotations", std::string(kReadyWhenAnnotation)});
  if (!when) return std::nullopt;
  auto predicate = ReadinessPredicate::parse(*when);
  if (!predicate) return std::nullopt;  // planning refused a malformed one already
  return OwnReadiness{std::move(predicate.value()), std::string(*when)};
}

Readiness judge(const std::optional<OwnReadiness>& own, const json::object* live) {
  if (!live) return {false, "not found", false};
  if (!own) return check_current(*live);
  Readiness r = check_readiness(own->predicate, live);
  if (!r.holds && r.why.empty())
    r.why = fmt::format("its ready-when ({}) does not hold", own->text);
  return r;
}

}  // namespace

size_t HealthOutcome::healthy() const {
  return std::count_if(units.begin(), units.end(), [](const Readiness& r) { return r.holds; });
}

HealthOutcome wait_healthy(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& clusters,
                           const HealthWaitOptions& options) {
  auto start = Clock::now();
  HealthOutcome out;
  out.units.assign(plan.units.size(), Readiness{false, "not looked at yet"});
  std::map<std::string, Group> groups;
  std::vector<std::optional<OwnReadiness>> own(plan.units.size());
  std::map<std::string, std::unique_ptr<kube::Client>> clients;
  auto set = [&](size_t u, Readiness r) {
    Readiness& now = out.units[u];
    bool changed = now.holds != r.holds || now.why != r.why;
    now = std::move(r);
    if (changed && options.on_change) options.on_change(u, now);
  };
  for (size_t u = 0; u < plan.units.size(); ++u) {
    const Unit& unit = plan.units[u];
    auto config = clusters.find(unit.cluster);
    if (config == clusters.end()) {
      set(u, {false, fmt::format("cluster {} cannot be reached", unit.cluster), false});
      continue;
    }
    if (!clients.contains(unit.cluster)) {
      auto made = kube::Client::create(config->second, kube::read_only(options.client));
      if (!made) {
        set(u, {false, made.error().message, false});
        continue;
      }
      clients[unit.cluster] = std::move(made.value());
    }
    const ObjectRef& ref = plan.object_of(unit).ref;
    Group& g = groups[unit.cluster + "|" + ref.api_version + "|" + ref.kind];
    g.cluster = unit.cluster;
    g.api_version = ref.api_version;
    g.kind = ref.kind;
    g.units.push_back(u);
    own[u] = own_readiness(plan, unit);
  }

  std::string selector = fmt::format("{}={}", kSeedLabel, options.seed_name);
  milliseconds pause{500};
  for (;;) {
    // One round: every group that is not all healthy lists once, all at once. The round's state
    // is shared with the answers: one that comes after the deadline finds it still there.
    struct Round {
      std::mutex mu;
      std::condition_variable cv;
      size_t outstanding = 0;
      std::map<std::string, std::optional<kube::ApiResult<kube::ObjectList>>> answers;
    };
    auto round = std::make_shared<Round>();
    for (auto& [key, g] : groups) {
      bool done =
          std::all_of(g.units.begin(), g.units.end(), [&](size_t u) { return out.units[u].holds; });
      if (done) continue;
      {
        std::lock_guard lock(round->mu);
        ++round->outstanding;
      }
      clients.at(g.cluster)->list_async({g.api_version, g.kind, "", selector, ""},
                                        [round, key = key](kube::ApiResult<kube::ObjectList> r) {
                                          std::lock_guard lock(round->mu);
                                          round->answers[key] = std::move(r);
                                          if (--round->outstanding == 0) round->cv.notify_all();
                                        });
    }
    {
      std::unique_lock lock(round->mu);
      if (round->outstanding == 0 && round->answers.empty()) break;  // everything is healthy
      std::stop_callback wake(options.stop, [&] {
        std::lock_guard inner(round->mu);
        round->cv.notify_all();
      });
      round->cv.wait_until(lock, options.deadline, [&] {
        return round->outstanding == 0 || options.stop.stop_requested();
      });
    }
    bool progress = false;
    {
      std::lock_guard lock(round->mu);
      for (auto& [key, answer] : round->answers) {
        if (!answer) continue;
        const Group& g = groups.at(key);
        if (!*answer) {
          for (size_t u : g.units)
            if (!out.units[u].holds) set(u, {false, "cannot list it: " + answer->error().str()});
          continue;
        }
        std::map<std::string, const json::object*> live;
        for (const json::object& item : (*answer)->items)
          live[string_field(item, {"metadata", "namespace"}) + "/" +
               string_field(item, {"metadata", "name"})] = &item;
        for (size_t u : g.units) {
          if (out.units[u].holds) continue;
          const ObjectRef& ref = plan.object_of(plan.units[u]).ref;
          auto it = live.find(ref.ns + "/" + ref.name);
          Readiness r = judge(own[u], it == live.end() ? nullptr : it->second);
          progress = progress || r.holds;
          set(u, std::move(r));
        }
      }
    }
    if (options.stop.stop_requested()) {
      out.stopped = true;
      break;
    }
    if (out.all_healthy()) break;
    auto now = Clock::now();
    if (now >= options.deadline) {
      out.timed_out = true;
      break;
    }
    {
      std::mutex sleep_mu;
      std::condition_variable_any sleeper;
      std::unique_lock lock(sleep_mu);
      sleeper.wait_for(lock, options.stop, std::min<Clock::duration>(pause, options.deadline - now),
                       [] { return false; });
    }
    pause = progress ? milliseconds(500) : std::min(pause * 2, milliseconds(2000));
  }
  clients.clear();  // what did not answer by the deadline answers no more
  out.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return out;
}

std::string render_health_summary(const Plan& plan, const HealthOutcome& outcome) {
  std::string text =
      fmt::format("{} of {} objects healthy in {:.2f}s\n", outcome.healthy(), outcome.units.size(),
                  std::chrono::duration<double>(outcome.elapsed).count());
  for (size_t u = 0; u < outcome.units.size(); ++u) {
    const Readiness& r = outcome.units[u];
    if (r.holds) continue;
    const Unit& unit = plan.units[u];
    text += fmt::format("  not healthy: {} on {}: {}\n", plan.object_of(unit).display(),
                        unit.cluster, r.why);
  }
  return text;
}

}  // namespace planter::plant
