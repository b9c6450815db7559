#include "fit/cluster_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>

namespace planter::fit {

namespace {

// A domain's clusters in two orders: [1] kept first, then by score (a choice that keeps them);
// [0] by score alone (a choice made afresh).
struct Domain {
  std::string value;
  std::vector<size_t> order[2];
  size_t kept = 0;                 // how many are kept
  std::vector<int64_t> prefix[2];  // prefix[o][i]: the total score of the first i of order[o]
  size_t size() const { return order[0].size(); }
};

struct Solved {
  int64_t total = 0;
  std::vector<size_t> counts;  // by domain
  bool keep = false;           // which order the counts take from
};

// The best counts per domain for `k` clusters whose skew is at most `skew`, each domain taking at
// least its kept clusters when `keep`. Every such choice has a smallest count L: for each L the
// domains take at least max(L, kept) and at most L + skew (and what they have); the rest goes to
// the best next clusters, which is the best for that L because each domain's clusters come best
// first.
std::optional<Solved> solve(const std::vector<Domain>& domains,
                            const std::vector<SpreadCandidate>& candidates, int64_t k, int64_t skew,
                            bool keep) {
  if (domains.empty()) return k == 0 ? std::optional<Solved>(Solved{}) : std::nullopt;
  const auto d_count = static_cast<int64_t>(domains.size());
  const int o = keep ? 1 : 0;
  skew = std::min(skew, std::max<int64_t>(k, 1));  // more is no limit
  int64_t fewest = k / d_count;
  for (const Domain& d : domains) fewest = std::min(fewest, static_cast<int64_t>(d.size()));
  // A skew of k is no limit, and L = 0 is the least bound; one domain's count is its smallest.
  int64_t first = 0;
  if (skew >= k)
    fewest = 0;
  else if (d_count == 1)
    first = fewest;
  std::optional<Solved> best;
  std::vector<size_t> lower(domains.size()), upper(domains.size());
  for (int64_t l = first; l <= fewest; ++l) {
    int64_t sum_lower = 0, sum_upper = 0;
    bool possible = true;
    for (size_t d = 0; d < domains.size() && possible; ++d) {
      int64_t have = static_cast<int64_t>(domains[d].size());
      int64_t lo = std::max<int64_t>(l, keep ? static_cast<int64_t>(domains[d].kept) : 0);
      int64_t hi = std::min(l + skew, have);
      possible = lo <= hi;
      lower[d] = static_cast<size_t>(lo);
      upper[d] = static_cast<size_t>(std::max(lo, hi));
      sum_lower += lo;
      sum_upper += hi;
    }
    if (!possible || sum_lower > k || sum_upper < k) continue;
    Solved s{0, lower, keep};
    auto next_better = [&](size_t a, size_t b) {  // a heap's order: the worse on top
      const SpreadCandidate& x = candidates[domains[a].order[o][s.counts[a]]];
      const SpreadCandidate& y = candidates[domains[b].order[o][s.counts[b]]];
      if (x.score != y.score) return x.score < y.score;
      return x.name > y.name;
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(next_better)> next(next_better);
    for (size_t d = 0; d < domains.size(); ++d) {
      s.total += domains[d].prefix[o][lower[d]];
      if (s.counts[d] < upper[d]) next.push(d);
    }
    for (int64_t left = k - sum_lower; left > 0; --left) {
      size_t d = next.top();
      next.pop();
      s.total += candidates[domains[d].order[o][s.counts[d]]].score;
      if (++s.counts[d] < upper[d]) next.push(d);
    }
    if (!best || s.total > best->total) best = std::move(s);
  }
  return best;
}

int64_t skew_of(const std::vector<size_t>& counts) {
  if (counts.empty()) return 0;
  auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  return static_cast<int64_t>(*hi - *lo);
}

// The largest k' <= k (at least `from`) for which `ok(k')`, `ok` holding for `from`.
template <typename Ok>
int64_t largest(int64_t from, int64_t k, Ok ok) {
  while (from < k) {
    int64_t mid = from + (k - from + 1) / 2;
    if (ok(mid))
      from = mid;
    else
      k = mid - 1;
  }
  return from;
}

}  // namespace

std::string spread_text(const ClusterSpread& spread) {
  return fmt::format("{} (maxSkew {}, {})", spread.key, spread.max_skew,
                     spread.hard ? "DoNotSchedule" : "ScheduleAnyway");
}

SpreadChoice choose_spread(int64_t count, const std::vector<SpreadCandidate>& candidates,
                           const ClusterSpread& spread) {
  SpreadChoice out;
  std::map<std::string, size_t> index;
  std::vector<Domain> domains;
  std::vector<size_t> keyless;  // eligible, without the label: best first
  for (size_t i = 0; i < candidates.size(); ++i) {
    const SpreadCandidate& c = candidates[i];
    bool eligible = c.fits || c.kept;
    if (!c.domain) {
      if (eligible) keyless.push_back(i);
      continue;
    }
    auto [at, fresh] = index.try_emplace(*c.domain, domains.size());
    if (fresh) domains.emplace_back().value = *c.domain;
    if (!eligible) continue;
    for (std::vector<size_t>& order : domains[at->second].order) order.push_back(i);
    domains[at->second].kept += c.kept ? 1 : 0;
  }
  auto better = [&](size_t a, size_t b) {
    const SpreadCandidate &x = candidates[a], &y = candidates[b];
    if (x.score != y.score) return x.score > y.score;
    return x.name < y.name;
  };
  auto before = [&](size_t a, size_t b) {
    if (candidates[a].kept != candidates[b].kept) return candidates[a].kept;
    return better(a, b);
  };
  for (Domain& d : domains)
    for (int o : {0, 1}) {
      std::vector<size_t>& order = d.order[o];
      if (o == 0)
        std::sort(order.begin(), order.end(), better);
      else
        std::sort(order.begin(), order.end(), before);
      d.prefix[o].assign(order.size() + 1, 0);
      for (size_t i = 0; i < order.size(); ++i)
        d.prefix[o][i + 1] = d.prefix[o][i] + candidates[order[i]].score;
    }
  std::sort(keyless.begin(), keyless.end(), before);
  auto take = [&](const Solved& s) {
    for (size_t d = 0; d < domains.size(); ++d)
      for (size_t i = 0; i < s.counts[d]; ++i)
        out.chosen.push_back(domains[d].order[s.keep ? 1 : 0][i]);
    out.skew = skew_of(s.counts);
  };
  auto solved = [&](int64_t k, int64_t skew) {
    auto s = solve(domains, candidates, k, skew, true);
    return s ? s : solve(domains, candidates, k, skew, false);
  };

  if (spread.hard) {
    // As many as the spread allows, up to `count` (0 always can be).
    int64_t k =
        largest(0, count, [&](int64_t n) { return solved(n, spread.max_skew).has_value(); });
    take(*solved(k, spread.max_skew));
    if (k < count && !domains.empty()) {
      const Domain* least = &domains.front();
      for (const Domain& d : domains)
        if (d.size() < least->size()) least = &d;
      out.why = fmt::format(
          "{}={} has {}, so no {} may take more than {} (cluster-spread {})", spread.key,
          least->value,
          least->size() == 0 ? std::string("no cluster where it fits")
                             : fmt::format("{} cluster(s) where it fits", least->size()),
          spread.key, static_cast<int64_t>(least->size()) + spread.max_skew, spread_text(spread));
    } else if (k < count) {
      out.why = fmt::format("no candidate has the label {} (cluster-spread {})", spread.key,
                            spread_text(spread));
    }
    if (k < count && !keyless.empty())
      out.why +=
          fmt::format("; {} cluster(s) where it fits have no label {}", keyless.size(), spread.key);
  } else {
    // Kept clusters without the label first; then the labelled ones, as even as they can be;
    // then the others, best first.
    std::vector<size_t> first;
    for (size_t i : keyless)
      if (candidates[i].kept && static_cast<int64_t>(first.size()) < count) first.push_back(i);
    int64_t have = 0;
    for (const Domain& d : domains) have += static_cast<int64_t>(d.size());
    int64_t keyed = std::min(count - static_cast<int64_t>(first.size()), have);
    // The smallest skew that can be had: from maxSkew up (no limit at `keyed`).
    int64_t most = std::max(spread.max_skew, keyed);
    int64_t lo = spread.max_skew, hi = most;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (solved(keyed, mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    if (auto s = solved(keyed, lo)) take(*s);
    out.chosen.insert(out.chosen.begin(), first.begin(), first.end());
    for (size_t i : keyless) {
      if (static_cast<int64_t>(out.chosen.size()) >= count) break;
      if (std::find(out.chosen.begin(), out.chosen.end(), i) == out.chosen.end())
        out.chosen.push_back(i);
    }
  }
  std::stable_sort(out.chosen.begin(), out.chosen.end(), before);
  return out;
}

}  // namespace planter::fit
