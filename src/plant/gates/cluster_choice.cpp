// The gate of the `cluster-choice` requirement (rule: src/plan/rules/cluster_choice.cpp): it makes
// each choice of N clusters of M (plan/cluster_choice.h) once every candidate cluster can be
// read, with the fit model (fit/cluster_choice.h: where the whole group fits, ranked by room),
// keeping the clusters an earlier run chose. Until N fit, the units wait and say why per refused
// cluster; it is decided again on each change of the candidates' nodes, pods and volumes. Once
// made, a choice holds for the rest of the run: units on chosen clusters go on, the others are
// not declared.
#include "fit/cluster_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "model/object.h"
#include "plan/cluster_choice.h"
#include "plant/gates/gate.h"
#include "plant/gates/stack_fits.h"
#include "plant/stack_group.h"

namespace planter::plant {

namespace {

// How many refused clusters a wait names before "and N more".
constexpr size_t kReasonsSaid = 5;

class ClusterChoiceGate : public Gate {
 public:
  explicit ClusterChoiceGate(GateContext& context)
      : c_(context), states_(context.plan.choices.size()) {}

  void require(size_t, const Requirement& r, std::vector<std::string>& keys) override {
    for (size_t c : choice_indices(r.when.arg)) {
      keys.push_back(key(c));
      if (!watched_.insert(c).second) continue;
      for (uint32_t candidate : c_.plan.choices[c].candidates) {
        const std::string& name = c_.plan.clusters[candidate].name;
        for (const fit::SnapshotKind& read : fit::kSnapshotKinds)
          if (reads_for(read, group_of(c)))
            c_.fleet.watch_for_the_fit(name, read.api_version, read.kind);
        on_cluster_[name].emplace_back(c, candidate);
      }
    }
  }

  std::optional<Wait> check(size_t, const Requirement& r) override {
    std::string why;
    bool open = false;
    for (size_t c : choice_indices(r.when.arg)) {
      const State& s = decide(c);
      if (!s.decided) {
        open = true;
        if (why.empty()) why = s.why;
        continue;
      }
      if (std::find(s.result.chosen.begin(), s.result.chosen.end(), r.cluster) !=
          s.result.chosen.end())
        return std::nullopt;
    }
    if (open) return Wait{std::move(why)};
    Wait not_chosen;
    not_chosen.skip = true;
    for (size_t c : choice_indices(r.when.arg)) {
      const ClusterChoice& choice = c_.plan.choices[c];
      not_chosen.why += fmt::format("{}{} chose {}", not_chosen.why.empty() ? "" : "; ",
                                    choice.name, fit::chosen_text(states_[c].result));
    }
    return not_chosen;
  }

  std::vector<std::string_view> kinds_read() const override {
    return StackFitsGate::snapshot_kinds();
  }
  void changed(const std::string& cluster, const boost::json::object& o) override {
    if (StackFitsGate::reads(o)) touched(cluster);
  }
  void synced(const std::string& cluster) override { touched(cluster); }
  void linked(const std::string& cluster) override { touched(cluster); }

 private:
  struct State {
    bool decided = false;
    bool fresh = false;  // `why` is still true: nothing it read changed since
    std::string why;     // undecided: why, for people
    fit::ClusterChoiceResult result;
    // While candidates are being read: those not read yet at the last look over all of them, and
    // those whose read changed since (only they are looked at again until none is left: a fleet
    // of N candidates is read in N changes, and a look over all at each would be quadratic).
    bool scanned = false;
    std::set<uint32_t> unread, touched;  // indices into Plan::clusters
  };
  enum class Read { kKeptOut, kGone, kUnread, kReadable };

  static std::string key(size_t choice) { return fmt::format("cluster-choice\n{}", choice); }

  // What the open choices among `cluster`'s read changed: they are made again, once per burst.
  void touched(const std::string& cluster) {
    auto it = on_cluster_.find(cluster);
    if (it == on_cluster_.end()) return;
    for (const auto& entry : it->second) {
      size_t c = entry.first;
      State& s = states_[c];
      if (s.decided) continue;
      s.fresh = false;
      s.touched.insert(entry.second);
      if (!posted_.insert(c).second) continue;
      c_.loop.post([this, c] {
        posted_.erase(c);
        c_.wake(key(c));
      });
    }
  }

  const fit::Group& group_of(size_t c) {
    auto [it, made] = groups_.try_emplace(c);
    if (made) it->second = choice_group(c_.plan, c_.plan.choices[c]);
    return it->second;
  }

  // Whether a candidate can be fitted now; `why` says why not (kept out, gone, unread).
  Read read_state(size_t c, const ClusterInfo& info, const fit::ClusterCandidate& judged,
                  const std::vector<std::string>* held, std::string& why) {
    const std::string& name = info.name;
    // One its taints keep out is not waited for (an unreachable one would never be read).
    if (judged.taint.verdict == fit::TaintVerdict::kRefused ||
        (judged.taint.verdict == fit::TaintVerdict::kOnlyIfKept &&
         (!held || std::find(held->begin(), held->end(), name) == held->end()))) {
      why = judged.taint.why;
      return Read::kKeptOut;
    }
    Fleet::Link link = c_.fleet.link(name);
    if (link == Fleet::Link::kFailed || (link == Fleet::Link::kAbsent && !info.object)) {
      why = "cannot be read: " + c_.fleet.link_status(name);
      return Read::kGone;
    }
    if (link != Fleet::Link::kLinked) {
      why = fmt::format("{}: {}", name, c_.fleet.link_status(name));
      return Read::kUnread;
    }
    bool synced = std::all_of(std::begin(fit::kSnapshotKinds), std::end(fit::kSnapshotKinds),
                              [&](const fit::SnapshotKind& k) {
                                return !reads_for(k, group_of(c)) ||
                                       c_.fleet.synced(name, k.api_version, k.kind) ||
                                       c_.fleet.unserved(name, k.api_version, k.kind);
                              });
    if (!synced) {
      why = name + ": reading its nodes, pods, volumes and devices";
      return Read::kUnread;
    }
    return Read::kReadable;
  }

  void say_unread(State& s, size_t c, const std::string& first) {
    size_t n = s.unread.size();
    s.why = fmt::format("reading {} of its {} candidate clusters: {}{}", n,
                        c_.plan.choices[c].candidates.size(), first,
                        n > 1 ? fmt::format(" (and {} more)", n - 1) : std::string());
  }

  const State& decide(size_t c) {
    State& s = states_[c];
    if (s.decided || s.fresh) return s;
    s.fresh = true;
    const ClusterChoice& choice = c_.plan.choices[c];
    auto now = std::chrono::system_clock::now();     // for tolerationSeconds
    const std::vector<std::string>* held = nullptr;  // what an earlier run chose
    if (auto it = c_.kept_choices.find(choice.name); it != c_.kept_choices.end())
      held = &it->second;
    std::string why;
    if (s.scanned && !s.unread.empty()) {  // only what changed since
      for (uint32_t index : s.touched) {
        if (!s.unread.contains(index)) continue;
        const ClusterInfo& info = c_.plan.clusters[index];
        if (read_state(c, info, choice_candidate(info, choice, now), held, why) != Read::kUnread)
          s.unread.erase(index);
      }
      s.touched.clear();
      if (!s.unread.empty()) {
        const ClusterInfo& first = c_.plan.clusters[*s.unread.begin()];
        read_state(c, first, choice_candidate(first, choice, now), held, why);
        say_unread(s, c, why);
        return s;
      }
    }
    s.touched.clear();
    // A look over every candidate: fitted once all are read.
    s.scanned = true;
    s.unread.clear();
    std::string first_unread;
    std::vector<fit::ClusterCandidate> candidates;
    std::vector<std::string> gone_ones;
    std::vector<std::pair<size_t, const ClusterInfo*>> readable;  // at: their place
    for (uint32_t index : choice.candidates) {
      const ClusterInfo& info = c_.plan.clusters[index];
      fit::ClusterCandidate judged = choice_candidate(info, choice, now);
      switch (read_state(c, info, judged, held, why)) {
        case Read::kKeptOut:
          judged.why = std::move(why);
          candidates.push_back(std::move(judged));
          break;
        case Read::kGone:
          gone_ones.push_back(info.name);
          judged.why = std::move(why);
          candidates.push_back(std::move(judged));
          break;
        case Read::kUnread:
          if (s.unread.empty()) first_unread = std::move(why);
          s.unread.insert(index);
          break;
        case Read::kReadable:
          readable.emplace_back(candidates.size(), &info);
          candidates.push_back(std::move(judged));
          break;
      }
    }
    if (!s.unread.empty()) {
      say_unread(s, c, first_unread);
      return s;
    }
    for (const auto& [at, info] : readable) {
      auto [claims, fresh] = claims_.try_emplace(info->name);
      if (fresh) claims->second = seed_claims(c_.plan, info->name);
      candidates[at].with(fit_on_fleet(c_.fleet, info->name, group_of(c), {}, claims->second));
    }
    // What an earlier run chose stays chosen, unless it cannot be read any more (its share moves).
    std::vector<std::string> kept;
    if (held)
      for (const std::string& name : *held)
        if (std::find(gone_ones.begin(), gone_ones.end(), name) == gone_ones.end())
          kept.push_back(name);
    fit::ClusterChoiceResult result =
        fit::choose_clusters(choice.count, candidates, kept, choice.spread, choice.preferences);
    if (!result.complete) {
      std::string fitting;
      for (const std::string& name : result.chosen) fitting += (fitting.empty() ? "" : ", ") + name;
      s.why = fmt::format("{} of the {} clusters it needs fit now{}", result.chosen.size(),
                          choice.count, fitting.empty() ? "" : " (" + fitting + ")");
      if (!result.why.empty())
        s.why = fmt::format("{} of the {} clusters it needs can be chosen now{}: {}",
                            result.chosen.size(), choice.count,
                            fitting.empty() ? "" : " (" + fitting + ")", result.why);
      size_t said = 0, refused = 0;
      for (const fit::ScoredCandidate& r : result.ranked) {
        if (r.chosen || r.fits) continue;  // a fitting one left out for the spread: said above
        if (++refused > kReasonsSaid) continue;
        s.why += fmt::format("; {}: {}", r.name, r.why);
        ++said;
      }
      if (refused > said) s.why += fmt::format("; and {} more cluster(s)", refused - said);
      return s;
    }
    s.decided = true;
    s.result = std::move(result);
    if (c_.chose) c_.chose(choice, s.result);
    c_.loop.post([this, c] { c_.wake(key(c)); });
    return s;
  }

  GateContext& c_;
  std::vector<State> states_;            // by choice
  std::map<size_t, fit::Group> groups_;  // by choice, made once
  std::set<size_t> watched_;             // choices whose candidates are watched
  // candidate -> its choices, and its index into Plan::clusters
  std::map<std::string, std::vector<std::pair<size_t, uint32_t>>> on_cluster_;
  std::map<std::string, std::vector<boost::json::object>> claims_;  // the seed's, by cluster
  std::set<size_t> posted_;                                         // choices with a wake due
};

}  // namespace

std::unique_ptr<Gate> make_cluster_choice_gate(GateContext& context) {
  return std::make_unique<ClusterChoiceGate>(context);
}

}  // namespace planter::plant
