#include "fit/cluster_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "fit/group.h"

namespace planter::fit {

namespace {

// 0..50: one resource's share of the score.
double half_score(int64_t left, int64_t most) {
  if (most <= 0 || left <= 0) return 0;
  return 50.0 * static_cast<double>(left) / static_cast<double>(most);
}

void rank(ClusterChoiceResult& out);

// Each fitting candidate's score gains its preference terms' shares (fit/cluster_preferences.h).
void add_preferences(ClusterChoiceResult& out, const std::vector<ClusterCandidate>& candidates,
                     const std::vector<ClusterPreference>& preferences) {
  std::vector<PreferenceInputs> in;
  std::vector<bool> eligible;
  for (const ClusterCandidate& c : candidates) {
    in.push_back({c.labels, c.left.milli_cpu, c.left.memory, c.nodes, c.properties});
    eligible.push_back(c.fits);
  }
  std::vector<std::vector<int>> shares = preference_shares(preferences, in, eligible);
  for (size_t i = 0; i < candidates.size(); ++i) {
    ScoredCandidate& s = out.ranked[i];
    if (!s.fits) continue;
    s.shares = fmt::format("room {}", s.score);
    for (size_t t = 0; t < preferences.size(); ++t) {
      if (shares[i][t] == 0) continue;
      s.score += shares[i][t];
      s.shares += fmt::format(", {} {}", preferences[t].text, shares[i][t]);
    }
  }
}
ClusterChoiceResult choose_fitting(int64_t count, const std::vector<ClusterCandidate>& candidates,
                                   const std::vector<std::string>& kept,
                                   const ClusterSpread& spread,
                                   const std::vector<ClusterPreference>& preferences);

// The choice under a spread (fit/cluster_spread.h): kept clusters (of those recorded, at most
// `count`) are chosen first if the spread holds them, then the rest in the spread's order.
void choose_spread_into(ClusterChoiceResult& out, int64_t count,
                        const std::vector<ClusterCandidate>& candidates,
                        const std::vector<std::string>& kept, const ClusterSpread& spread) {
  std::vector<SpreadCandidate> in;
  in.reserve(candidates.size());
  std::unordered_set<std::string_view> recorded(kept.begin(), kept.end());
  int64_t keeping = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const ClusterCandidate& c = candidates[i];
    bool was = keeping < count && recorded.contains(c.name);
    keeping += was ? 1 : 0;
    in.push_back({c.name, c.domain, c.fits, was, out.ranked[i].score});
  }
  SpreadChoice chosen = choose_spread(count, in, spread);
  out.skew = chosen.skew;
  out.why = std::move(chosen.why);
  std::unordered_map<std::string_view, size_t> taken;  // name -> candidate, of the chosen
  for (size_t i : chosen.chosen) taken.emplace(candidates[i].name, i);
  for (const std::string& name : kept)  // kept ones first, in the order they were recorded
    if (auto it = taken.find(name); it != taken.end() && !out.ranked[it->second].chosen) {
      out.ranked[it->second].chosen = out.ranked[it->second].kept = true;
      out.chosen.push_back(name);
    }
  for (size_t i : chosen.chosen)
    if (!out.ranked[i].chosen) {
      out.ranked[i].chosen = true;
      out.chosen.push_back(candidates[i].name);
    }
  out.complete = static_cast<int64_t>(out.chosen.size()) >= count;
}

// The choice among the candidates that may be taken (fits).
ClusterChoiceResult choose_fitting(int64_t count, const std::vector<ClusterCandidate>& candidates,
                                   const std::vector<std::string>& kept,
                                   const ClusterSpread& spread,
                                   const std::vector<ClusterPreference>& preferences) {
  ClusterChoiceResult out;
  int64_t most_cpu = 0, most_memory = 0;
  for (const ClusterCandidate& c : candidates) {
    if (!c.fits) continue;
    most_cpu = std::max(most_cpu, c.left.milli_cpu);
    most_memory = std::max(most_memory, c.left.memory);
  }
  out.ranked.reserve(candidates.size());
  for (const ClusterCandidate& c : candidates) {
    ScoredCandidate s{c.name, c.fits, false, false, 0, c.why, ""};
    if (c.fits)
      s.score = static_cast<int>(std::lround(half_score(c.left.milli_cpu, most_cpu) +
                                             half_score(c.left.memory, most_memory)));
    if (c.domain) s.domain = spread.key + "=" + *c.domain;
    out.ranked.push_back(std::move(s));
  }
  if (!preferences.empty()) add_preferences(out, candidates, preferences);
  if (!spread.key.empty()) {
    choose_spread_into(out, count, candidates, kept, spread);
    rank(out);
    return out;
  }
  // Kept clusters first, in the order they were recorded.
  for (const std::string& name : kept) {
    if (static_cast<int64_t>(out.chosen.size()) >= count) break;
    auto it = std::find_if(out.ranked.begin(), out.ranked.end(),
                           [&](const ScoredCandidate& s) { return s.name == name; });
    if (it == out.ranked.end() || it->chosen) continue;
    it->chosen = it->kept = true;
    out.chosen.push_back(name);
  }
  std::vector<size_t> order(out.ranked.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto better = [&](size_t a, size_t b) {
    const ScoredCandidate &x = out.ranked[a], &y = out.ranked[b];
    if (x.fits != y.fits) return x.fits;
    if (x.score != y.score) return x.score > y.score;
    return x.name < y.name;
  };
  std::sort(order.begin(), order.end(), better);
  for (size_t i : order) {
    if (static_cast<int64_t>(out.chosen.size()) >= count) break;
    ScoredCandidate& s = out.ranked[i];
    if (s.chosen || !s.fits) continue;
    s.chosen = true;
    out.chosen.push_back(s.name);
  }
  out.complete = static_cast<int64_t>(out.chosen.size()) >= count;
  rank(out);
  return out;
}

// Chosen first, in the order they were chosen; then the others, best first.
void rank(ClusterChoiceResult& out) {
  auto position = [&](const ScoredCandidate& c) {
    return static_cast<size_t>(std::find(out.chosen.begin(), out.chosen.end(), c.name) -
                               out.chosen.begin());
  };
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [&](const ScoredCandidate& x, const ScoredCandidate& y) {
                     if (x.chosen || y.chosen) return position(x) < position(y);
                     if (x.fits != y.fits) return x.fits;
                     if (x.score != y.score) return x.score > y.score;
                     return x.name < y.name;
                   });
}

}  // namespace

ClusterCandidate& ClusterCandidate::with(const GroupFit& fit) {
  fits = fit.fits;
  why = fit.fits ? std::string() : fit.why;
  left = fit.left;
  nodes = fit.nodes;
  return *this;
}

ClusterChoiceResult choose_clusters(int64_t count, const std::vector<ClusterCandidate>& candidates,
                                    const std::vector<std::string>& kept,
                                    const ClusterSpread& spread,
                                    const std::vector<ClusterPreference>& preferences) {
  bool tainted = std::any_of(candidates.begin(), candidates.end(), [](const ClusterCandidate& c) {
    return c.taint.verdict != TaintVerdict::kNone;
  });
  if (!tainted) return choose_fitting(count, candidates, kept, spread, preferences);
  std::unordered_set<std::string_view> refused;
  for (const ClusterCandidate& c : candidates)
    if (c.taint.verdict == TaintVerdict::kRefused) refused.insert(c.name);
  std::vector<std::string> keep;  // a NoSelect taint takes a kept cluster back
  for (const std::string& name : kept)
    if (!refused.contains(name)) keep.push_back(name);
  std::unordered_set<std::string_view> keeping(keep.begin(), keep.end());
  // First without the clusters a taint would rather leave out; with them if it must.
  std::vector<ClusterCandidate> masked = candidates;
  bool preferred_out = false;
  for (ClusterCandidate& c : masked) {
    TaintVerdict v = c.taint.verdict;
    bool out =
        v == TaintVerdict::kRefused || (v != TaintVerdict::kNone && !keeping.contains(c.name));
    if (!out) continue;
    preferred_out = preferred_out || (v == TaintVerdict::kPreferNot && c.fits);
    if (c.fits) c.why = c.taint.why;
    c.fits = false;
  }
  ClusterChoiceResult r = choose_fitting(count, masked, keep, spread, preferences);
  if (r.complete || !preferred_out) return r;
  for (size_t i = 0; i < masked.size(); ++i)
    if (candidates[i].taint.verdict == TaintVerdict::kPreferNot) masked[i] = candidates[i];
  return choose_fitting(count, masked, keep, spread, preferences);
}

std::string chosen_text(const ClusterChoiceResult& result) {
  std::string out;
  for (const ScoredCandidate& s : result.ranked) {
    if (!s.chosen) continue;
    if (!out.empty()) out += ", ";
    out +=
        s.kept ? fmt::format("{} (kept)", s.name) : fmt::format("{} (score {})", s.name, s.score);
  }
  return out;
}

}  // namespace planter::fit
