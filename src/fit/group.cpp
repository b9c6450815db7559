#include "fit/group.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <deque>
#include <limits>
#include <optional>
#include <queue>
#include <set>

#include "fit/filters/filters.h"
#include "fit/framework.h"

namespace planter::fit {

namespace json = boost::json;

namespace {

// Pods placed one at a time in one decision, at most: past it the group is said not to fit
// (docs/limits.md). Counted kinds are not limited.
constexpr int64_t kMaxSinglePlacements = 100000;

// How many times `need` fits in `free`, over the resources `need` asks for (cpu and memory for
// the "best node" ranking).
double ratio(const Resources& free, const Resources& need) {
  double r = 1e18;
  auto one = [&](int64_t f, int64_t n) {
    if (n > 0) r = std::min(r, static_cast<double>(f) / static_cast<double>(n));
  };
  one(free.milli_cpu, need.milli_cpu);
  one(free.memory, need.memory);
  for (const auto& [name, v] : need.scalar) one(free.get(name), v);
  return r;
}

// What decides which nodes a kind may use at all, as text: kinds that say the same share it.
std::string node_only_key(const PodInfo& p) {
  json::array tolerations;
  for (const Toleration& t : p.tolerations)
    tolerations.push_back(json::array{json::string(t.key), json::string(t.op),
                                      json::string(t.value), json::string(t.effect)});
  json::array selector;
  for (const auto& [k, v] : p.node_selector)
    selector.push_back(json::array{json::string(k), json::string(v)});
  return json::serialize(json::array{tolerations, selector, p.node_terms, p.has_node_terms,
                                     json::string(p.node_name)});
}

// What makes two pods of kinds that only need room interchangeable: where they may go (node
// constraints, claims), what they request, and, when some pod's anti-affinity or spread could
// see them (`labels_matter`), their namespace and labels.
std::string shape_key(const PodInfo& p, bool labels_matter) {
  json::object requests{{"cpu", p.requests.milli_cpu},
                        {"memory", p.requests.memory},
                        {"ephemeral-storage", p.requests.ephemeral_storage}};
  for (const auto& [name, v] : p.requests.scalar) requests[name] = v;
  json::array claims;
  for (const std::string& c : p.claims) claims.push_back(json::string(c));
  json::object labels;
  if (labels_matter)
    for (const auto& [k, v] : p.labels) labels[k] = v;
  return node_only_key(p) + json::serialize(json::array{json::string(labels_matter ? p.ns : ""),
                                                        labels, requests, claims});
}

// "a, b, c, d and 2 more": the nodes a decision uses, for people.
std::string node_list(const std::map<std::string, Resources>& placed) {
  constexpr size_t kNamed = 4;
  std::string out;
  size_t i = 0;
  for (const auto& [name, _] : placed) {
    if (i == kNamed) return out + fmt::format(" and {} more", placed.size() - kNamed);
    out += (i++ ? ", " : "") + name;
  }
  return out;
}

class Fitter {
 public:
  Fitter(const Group& g, Snapshot& s) : group_(g), snap_(s) {
    const auto& nodes = snap_.nodes();
    // Kinds that differ only in name are one kind: a stack of 10,000 one-replica members of one
    // shape is decided as one kind of 10,000 pods.
    std::map<std::string, size_t> alike;
    bool labels_matter = !snap_.anti_pods().empty() ||
                         std::any_of(group_.kinds.begin(), group_.kinds.end(),
                                     [](const PodKind& k) { return k.pod.interacts(); });
    for (const PodKind& k : group_.kinds) {
      if (k.count <= 0 && !k.per_node) continue;
      if (!k.per_node && !k.pod.interacts() && !snap_.devices().takes_devices(k.pod)) {
        std::string key = shape_key(k.pod, labels_matter);
        if (auto it = alike.find(key); it != alike.end()) {
          merged_[it->second].count = add_sat(merged_[it->second].count, k.count);
          continue;
        }
        alike.emplace(std::move(key), merged_.size());
      }
      merged_.push_back(k);
    }
    for (const PodKind& k : merged_) {
      kinds_.push_back(&k);
      pods_.push_back(std::make_shared<PodInfo>(k.pod));
      // A ReadWriteOncePod claim is one pod's: its users are placed one at a time, so that
      // VolumeRestrictions sees each.
      bool once = std::any_of(k.pod.claims.begin(), k.pod.claims.end(), [&](const auto& c) {
        const Claim* claim = snap_.claim(k.pod.ns, c);
        return claim && claim->read_write_once_pod();
      });
      // Pods that take devices are placed one at a time too: each takes its own.
      single_.push_back(k.pod.interacts() || snap_.devices().takes_devices(k.pod) || once);
    }
    allowed_.assign(kinds_.size(), {});
    refusal_.assign(nodes.size(), "");
    std::vector<std::string> avoided(nodes.size());
    for (size_t n = 0; n < nodes.size(); ++n)
      for (const std::string& other : group_.avoid)
        if (avoided[n].empty() && nodes[n].stacks.contains(other))
          avoided[n] = fmt::format("node(s) had pods of stack {}, which {} is separated from",
                                   other, group_.name);
    std::map<std::string, size_t> same;  // node-only key -> the first kind with it
    for (size_t k = 0; k < kinds_.size(); ++k) {
      auto [it, first] = same.emplace(node_only_key(kinds_[k]->pod), k);
      if (!first) {
        allowed_[k] = allowed_[it->second];
      } else {
        allowed_[k].assign(nodes.size(), false);
        for (size_t n = 0; n < nodes.size(); ++n) {
          Status s = avoided[n].empty() ? filter_node_only(kinds_[k]->pod, nodes[n])
                                        : Status{{}, {avoided[n]}, true};
          allowed_[k][n] = s.ok();
          if (!s.ok() && !kinds_[k]->per_node && refusal_[n].empty()) refusal_[n] = s.reasons[0];
        }
        continue;
      }
      if (!kinds_[k]->per_node)
        for (size_t n = 0; n < nodes.size(); ++n)
          if (!allowed_[k][n] && refusal_[n].empty())
            refusal_[n] = avoided[n].empty() ? filter_node_only(kinds_[k]->pod, nodes[n]).reasons[0]
                                             : avoided[n];
    }
    // A kind that only needs room is refused by other pods only through their anti-affinity,
    // and the group's own such pods have none: asked once, it holds for the whole decision.
    // Likewise where its claims tie it (VolumeBinding): the claims do not change in a decision.
    for (size_t k = 0; k < kinds_.size(); ++k) {
      bool anti = !snap_.anti_pods().empty() && !kinds_[k]->pod.interacts();
      bool claims = !kinds_[k]->pod.claims.empty();
      bool devices = snap_.devices().takes_devices(kinds_[k]->pod);
      if (!anti && !claims && !devices) continue;
      PodCycle cycle(snap_, kinds_[k]->pod);
      if (!cycle.prefilter_refusal().empty() && prefilter_.empty() && !kinds_[k]->per_node)
        prefilter_ = fmt::format("a pod of {}: 0/{} nodes are available: {}", kind_name(k),
                                 nodes.size(), cycle.prefilter_refusal());
      for (size_t n = 0; n < nodes.size(); ++n) {
        if (!allowed_[k][n]) continue;
        Status s = claims ? cycle.filter_only("VolumeBinding", nodes[n]) : Status{};
        if (s.ok() && anti) s = cycle.filter_only("InterPodAffinity", nodes[n]);
        if (s.ok()) continue;
        if (!kinds_[k]->per_node && refusal_[n].empty()) refusal_[n] = s.reasons[0];
        allowed_[k][n] = false;
      }
    }
    for (const PodKind* k : kinds_)
      if (!k->per_node) {
        total_ += k->pod.requests.times(k->count);
        total_pods_ = add_sat(total_pods_, k->count);
      }
  }

  GroupFit run() {
    if (kinds_.empty()) {
      GroupFit f;
      f.fits = true;
      f.where = "no pods to place";
      return f;
    }
    if (!prefilter_.empty()) {  // as kube-scheduler, no node is looked at
      GroupFit f;
      f.why = fmt::format("stack {}: {}", group_.name, prefilter_);
      return f;
    }
    if (group_.colocated_on == "kubernetes.io/hostname" || !group_.only_node.empty())
      return on_one_node();
    if (!group_.colocated_on.empty()) return in_one_domain();
    std::vector<size_t> all(snap_.nodes().size());
    for (size_t n = 0; n < all.size(); ++n) all[n] = n;
    GroupFit f;
    Diagnosis diag;
    for (size_t n : all)
      if (!refusal_[n].empty()) diag.add(refusal_[n]);
    std::string stuck;
    if (pack(all, f.placed, stuck)) {
      f.pods = std::move(last_pods_);
      f.fits = true;
      f.where = fmt::format("across {} node(s): {}", f.placed.size(), node_list(f.placed));
      return f;
    }
    f.placed.clear();
    f.why = fmt::format(
        "stack {} needs {} in {} pods; they do not all fit on the {} node(s) that may run them "
        "({} free in all)",
        group_.name, resources_text(total_), total_pods_, usable(all),
        resources_text(free_in(all), &total_));
    if (!diag.empty()) f.why += "; " + diag.reasons();
    if (!stuck.empty()) f.why += "; " + stuck;
    return f;
  }

 private:
  bool interacting(size_t k) const { return single_[k]; }
  bool any_interacting() const {
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (interacting(k)) return true;
    return false;
  }

  // The per-node kinds' pods that come with the group's first pod on `n`.
  Resources daemons_on(size_t n, int64_t& pods) const {
    Resources r;
    pods = 0;
    if (used_.contains(n)) return r;
    for (size_t d = 0; d < kinds_.size(); ++d)
      if (kinds_[d]->per_node && allowed_[d][n]) {
        r += kinds_[d]->pod.requests;
        ++pods;
      }
    return r;
  }

  // What `n` lacks for `extra` more pods of kind `k` (and the per-node pods, on a new node).
  std::vector<std::string> short_for(size_t n, size_t k, int64_t extra) const {
    int64_t pods = 0;
    Resources need = daemons_on(n, pods);
    need += kinds_[k]->pod.requests.times(extra);
    return filters::insufficient(snap_.nodes()[n], need, add_sat(pods, extra), &snap_.devices());
  }

  void commit(size_t n, size_t k, int64_t copies, std::map<size_t, Resources>& taken) {
    if (!used_.contains(n)) {
      for (size_t d = 0; d < kinds_.size(); ++d)
        if (kinds_[d]->per_node && allowed_[d][n]) {
          snap_.assume(n, pods_[d], 1);
          commits_.emplace_back(n, PlacedPod{pods_[d], 1});
          taken[n] += kinds_[d]->pod.requests;
        }
      used_.insert(n);
    }
    snap_.assume(n, pods_[k], copies);
    commits_.emplace_back(n, PlacedPod{pods_[k], copies});
    taken[n] += kinds_[k]->pod.requests.times(copies);
  }

  // Every pod (and a pod of each per-node kind that may run there) on one node.
  GroupFit on_one_node() {
    const auto& nodes = snap_.nodes();
    GroupFit f;
    Diagnosis diag;
    std::optional<size_t> chosen, best;
    double chosen_score = -std::numeric_limits<double>::infinity(), best_ratio = -1;
    std::map<std::string, Resources> chosen_placed;
    std::vector<std::pair<std::string, PlacedPod>> chosen_pods;
    size_t asked = 0;  // the nodes looked at
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (!group_.only_node.empty() && nodes[n].name != group_.only_node) continue;
      ++asked;
      if (!refusal_[n].empty()) {
        diag.add(refusal_[n]);
        continue;
      }
      Resources need = total_;
      int64_t pods = total_pods_;
      for (size_t k = 0; k < kinds_.size(); ++k)
        if (kinds_[k]->per_node && allowed_[k][n]) {
          need += kinds_[k]->pod.requests;
          pods = add_sat(pods, 1);
        }
      if (auto short_of = filters::insufficient(nodes[n], need, pods, &snap_.devices());
          !short_of.empty()) {
        for (const std::string& r : short_of) diag.add(r);
        if (double r = ratio(free_of(nodes[n]), need); r > best_ratio) best_ratio = r, best = n;
        continue;
      }
      std::map<std::string, Resources> placed;
      std::string stuck;
      if (!any_interacting()) {
        placed[nodes[n].name] = need;  // room is all they need, and it is there
        last_pods_.clear();
        for (size_t k = 0; k < kinds_.size(); ++k)
          if (kinds_[k]->per_node ? allowed_[k][n] : kinds_[k]->count > 0)
            last_pods_.emplace_back(
                nodes[n].name, PlacedPod{pods_[k], kinds_[k]->per_node ? 1 : kinds_[k]->count});
      } else if (!pack({n}, placed, stuck)) {
        diag.add(stuck_diag_);  // the reasons on this one node
        continue;
      }
      // Where the group already runs (planted before), it stays.
      double score = room_left(nodes[n], need) + (nodes[n].stacks.contains(group_.name) ? 2 : 0);
      if (score > chosen_score) {
        chosen_score = score;
        chosen = n;
        chosen_placed = std::move(placed);
        chosen_pods = std::move(last_pods_);
      }
    }
    if (chosen) {
      const NodeInfo& n = nodes[*chosen];
      Resources left = free_of(n);
      left -= chosen_placed[n.name];
      f.fits = true;
      f.where = fmt::format("node {} (leaves {} free)", n.name, resources_text(left, &total_));
      f.steer_key = group_.colocated_on;
      f.steer_values = {n.name};
      f.placed = std::move(chosen_placed);
      f.pods = std::move(chosen_pods);
      return f;
    }
    f.why = fmt::format("stack {} needs {}, {} pods on one node; {}", group_.name,
                        resources_text(total_), total_pods_, diag.message(asked));
    f.why.pop_back();  // the message's full stop
    if (best)
      f.why += fmt::format("; the best node, {}, has {} free", nodes[*best].name,
                           resources_text(free_of(nodes[*best]), &total_));
    return f;
  }

  // Every pod in one domain of the topology key, on its nodes.
  GroupFit in_one_domain() {
    const auto& nodes = snap_.nodes();
    const std::string& key = group_.colocated_on;
    std::map<std::string, std::vector<size_t>> domains;
    Diagnosis diag;
    for (size_t n = 0; n < nodes.size(); ++n) {
      const std::string* value = nodes[n].label(key);
      if (!value)
        diag.add(fmt::format("node(s) had no {} label", key));
      else if (!refusal_[n].empty())
        diag.add(refusal_[n]);
      else
        domains[*value].push_back(n);
    }
    GroupFit f;
    std::optional<std::string> chosen, best;
    double chosen_score = -std::numeric_limits<double>::infinity(), best_ratio = -1;
    std::string last_stuck;
    for (const auto& [value, members] : domains) {
      std::map<std::string, Resources> placed;
      std::string stuck;
      if (!pack(members, placed, stuck)) {
        last_stuck = stuck;
        if (double r = ratio(free_in(members), total_); r > best_ratio)
          best_ratio = r, best = value;
        continue;
      }
      double score = 0;
      bool home = false;
      for (size_t n : members) {
        auto it = placed.find(nodes[n].name);
        score += room_left(nodes[n], it == placed.end() ? Resources{} : it->second);
        home = home || nodes[n].stacks.contains(group_.name);
      }
      score = score / static_cast<double>(members.size()) + (home ? 2 : 0);
      if (score > chosen_score) {
        chosen_score = score;
        chosen = value;
        f.placed = std::move(placed);
        f.pods = std::move(last_pods_);
      }
    }
    if (chosen) {
      f.fits = true;
      f.where = fmt::format("{}={} ({} node(s))", key, *chosen, f.placed.size());
      f.steer_key = key;
      f.steer_values = {*chosen};
      return f;
    }
    f.why = fmt::format("stack {} needs {}, {} pods in one {} domain; 0/{} domains can hold it",
                        group_.name, resources_text(total_), total_pods_, key, domains.size());
    if (!diag.empty()) f.why += ": " + diag.reasons();
    if (best)
      f.why += fmt::format("; the best domain, {}={}, has {} free", key, *best,
                           resources_text(free_in(domains[*best]), &total_));
    if (!last_stuck.empty()) f.why += "; " + last_stuck;
    return f;
  }

  size_t usable(const std::vector<size_t>& members) const {
    size_t n = 0;
    for (size_t i : members) n += refusal_[i].empty() ? 1 : 0;
    return n;
  }

  Resources free_in(const std::vector<size_t>& members) const {
    Resources u;
    for (size_t n : members)
      if (refusal_[n].empty()) u += free_of(snap_.nodes()[n]);
    return u;
  }

  int64_t free_slots(const std::vector<size_t>& members) const {
    int64_t slots = 0;
    for (size_t n : members)
      if (refusal_[n].empty()) {
        const NodeInfo& node = snap_.nodes()[n];
        slots = add_sat(slots, std::max<int64_t>(0, node.allowed_pods - node.pod_count));
      }
    return slots;
  }

  // Places every pod of the group on `members`; the snapshot is as it was afterwards. On
  // failure `stuck` says, in kube-scheduler's words, why the pod that found no node found none.
  bool pack(const std::vector<size_t>& members, std::map<std::string, Resources>& placed,
            std::string& stuck) {
    const auto& nodes = snap_.nodes();
    size_t mark = snap_.assumed();
    used_.clear();
    std::map<size_t, Resources> taken;
    commits_.clear();
    bool ok = place_all(members, taken, stuck);
    snap_.forget(snap_.assumed() - mark);
    used_.clear();
    if (!ok) return false;
    for (const auto& [n, r] : taken) placed[nodes[n].name] = r;
    last_pods_.clear();
    for (auto& [n, pod] : commits_) last_pods_.emplace_back(nodes[n].name, std::move(pod));
    return true;
  }

  bool place_all(const std::vector<size_t>& members, std::map<size_t, Resources>& taken,
                 std::string& stuck) {
    const auto& nodes = snap_.nodes();
    if (total_pods_ > free_slots(members)) {
      stuck = fmt::format("{} pods, {} free pod slots", total_pods_, free_slots(members));
      return false;
    }
    std::vector<size_t> counted, single;
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (!kinds_[k]->per_node && kinds_[k]->count > 0)
        (interacting(k) ? single : counted).push_back(k);
    Resources all = free_in(members);
    auto size = [&](size_t k) {
      const Resources& r = kinds_[k]->pod.requests;
      return (all.milli_cpu > 0 ? static_cast<double>(r.milli_cpu) / all.milli_cpu : 0) +
             (all.memory > 0 ? static_cast<double>(r.memory) / all.memory : 0);
    };
    std::stable_sort(counted.begin(), counted.end(),
                     [&](size_t a, size_t b) { return size(a) > size(b); });
    for (size_t k : counted) {
      // The node with the most room left takes the next share; only that node's room changes,
      // so each open node has one entry in the heap (ties: the node listed first).
      auto room_of = [&](size_t n) -> std::optional<double> {
        if (!short_for(n, k, 1).empty()) return std::nullopt;  // full for this kind: it stays so
        int64_t pods = 0;
        Resources need = daemons_on(n, pods);
        need += kinds_[k]->pod.requests;
        return room_left(nodes[n], need);
      };
      std::priority_queue<std::pair<double, size_t>> open;  // room, ~node
      for (size_t n : members)
        if (allowed_[k][n])
          if (auto room = room_of(n)) open.emplace(*room, ~n);
      int64_t left = kinds_[k]->count;
      while (left > 0) {
        if (open.empty()) {
          stuck = no_node_for(k, members);
          return false;
        }
        size_t to = ~open.top().second;
        open.pop();
        // This node's share: the pods left over the open nodes, as many of them as it holds.
        int64_t share = std::max<int64_t>(1, left / static_cast<int64_t>(open.size() + 1));
        int64_t lo = 1, hi = std::min(share, left);
        while (lo < hi) {  // holding is monotone in the count
          int64_t mid = lo + (hi - lo + 1) / 2;
          if (short_for(to, k, mid).empty())
            lo = mid;
          else
            hi = mid - 1;
        }
        commit(to, k, lo, taken);
        left -= lo;
        if (auto room = room_of(to)) open.emplace(*room, ~to);
      }
    }
    // Pods free to go anywhere first, then those that start a group of their own kind, then
    // those drawn to others (a member to its anchor): each finds what it follows placed.
    auto rank = [&](size_t k) {
      const PodInfo& p = kinds_[k]->pod;
      if (p.affinity.empty()) return 0;
      for (const PodTerm& t : p.affinity)
        if (!t.matches(p.ns, p.labels)) return 2;
      return 1;
    };
    std::stable_sort(single.begin(), single.end(),
                     [&](size_t a, size_t b) { return rank(a) < rank(b); });
    int64_t singles = 0;
    for (size_t k : single) {
      if (by_room(k)) {
        if (!place_by_room(k, members, taken, stuck)) return false;
        continue;
      }
      for (int64_t i = 0; i < kinds_[k]->count; ++i) {
        if (++singles > kMaxSinglePlacements) {
          stuck = fmt::format(
              "more than {} pods with host ports, inter-pod affinity or topology spread "
              "constraints in one decision",
              kMaxSinglePlacements);
          return false;
        }
        PodCycle cycle(snap_, kinds_[k]->pod);
        std::optional<size_t> to;
        double to_room = -std::numeric_limits<double>::infinity();
        for (size_t n : members) {
          if (!allowed_[k][n]) continue;
          Status s = cycle.filter_dynamic(nodes[n]);
          if (s.ok()) s.reasons = short_for(n, k, 1);
          if (!s.ok()) continue;
          int64_t pods = 0;
          Resources need = daemons_on(n, pods);
          need += kinds_[k]->pod.requests;
          if (double room = room_left(nodes[n], need); room > to_room) to_room = room, to = n;
        }
        if (!to) {
          stuck = no_node_for(k, members);
          return false;
        }
        commit(*to, k, 1, taken);
      }
    }
    return true;
  }

  // A kind placed one at a time only because its pods take devices (no host ports, inter-pod
  // terms, spread or volume claims): a node that refuses one of its pods refuses every later one
  // of the decision (devices and room only go), so the nodes are kept in a heap by room and each
  // is filtered when it comes to the top, not every node for every pod.
  bool by_room(size_t k) const {
    const PodInfo& p = kinds_[k]->pod;
    return !p.interacts() && p.claims.empty() && !kinds_[k]->per_node;
  }

  bool place_by_room(size_t k, const std::vector<size_t>& members,
                     std::map<size_t, Resources>& taken, std::string& stuck) {
    const auto& nodes = snap_.nodes();
    auto room_of = [&](size_t n) {
      int64_t pods = 0;
      Resources need = daemons_on(n, pods);
      need += kinds_[k]->pod.requests;
      return room_left(nodes[n], need);
    };
    std::priority_queue<std::pair<double, size_t>> open;  // room, ~node (ties: the first)
    for (size_t n : members)
      if (allowed_[k][n]) open.emplace(room_of(n), ~n);
    for (int64_t i = 0; i < kinds_[k]->count; ++i) {
      PodCycle cycle(snap_, kinds_[k]->pod);
      std::optional<size_t> to;
      while (!open.empty() && !to) {
        size_t n = ~open.top().second;
        open.pop();
        Status s = cycle.filter_dynamic(nodes[n]);
        if (s.ok()) s.reasons = short_for(n, k, 1);
        if (s.ok()) to = n;
      }
      if (!to) {
        stuck = no_node_for(k, members);
        return false;
      }
      commit(*to, k, 1, taken);
      open.emplace(room_of(*to), ~*to);
    }
    return true;
  }

  // Why no node of `members` takes one more pod of kind `k`, each node's reason counted.
  std::string no_node_for(size_t k, const std::vector<size_t>& members) const {
    const auto& nodes = snap_.nodes();
    PodCycle cycle(snap_, kinds_[k]->pod);
    Diagnosis diag;
    for (size_t n : members) {
      Status s = allowed_[k][n] ? cycle.filter_dynamic(nodes[n]) : Status{{}, {refusal_[n]}, true};
      if (s.ok()) s.reasons = short_for(n, k, 1);
      diag.add(s);
    }
    stuck_diag_ = diag;
    std::string out = fmt::format("a pod of {}: {}", kind_name(k), diag.message(members.size()));
    out.pop_back();  // the message's full stop
    return out;
  }

  std::string kind_name(size_t k) const {
    const PodInfo& p = kinds_[k]->pod;
    return p.name.empty() ? fmt::format("stack {}", group_.name) : p.name;
  }

  const Group& group_;
  Snapshot& snap_;
  std::deque<PodKind> merged_;  // the group's kinds, alike ones merged (stable addresses)
  std::vector<const PodKind*> kinds_;
  std::vector<std::shared_ptr<const PodInfo>> pods_;  // one per kind, to assume
  std::vector<bool> single_;  // kind -> its pods are placed one at a time (they interact)
  std::string prefilter_;     // a PreFilter refusal: no pod of some kind can go anywhere
  std::vector<std::vector<bool>> allowed_;  // kind -> node: node-only filters pass
  std::vector<std::string> refusal_;        // node -> why no pod of the group may go there
  Resources total_;                         // every pod but the per-node kinds'
  int64_t total_pods_ = 0;
  std::set<size_t> used_;         // nodes the group has a pod on, in the placement being tried
  mutable Diagnosis stuck_diag_;  // why the last placement that failed found no node for a pod
  std::vector<std::pair<size_t, PlacedPod>> commits_;         // of the placement being tried
  std::vector<std::pair<std::string, PlacedPod>> last_pods_;  // of the last one that held
};

}  // namespace

GroupFit fit_group(const Group& group, Snapshot& snapshot) {
  GroupFit fit = Fitter(group, snapshot).run();
  for (const NodeInfo& n : snapshot.nodes()) {
    if (n.unschedulable) continue;
    ++fit.nodes;
    fit.left.milli_cpu = add_sat(fit.left.milli_cpu, std::max<int64_t>(0, n.free("cpu")));
    fit.left.memory = add_sat(fit.left.memory, std::max<int64_t>(0, n.free("memory")));
  }
  for (const auto& [node, taken] : fit.placed) {
    fit.left.milli_cpu = std::max<int64_t>(0, add_sat(fit.left.milli_cpu, -taken.milli_cpu));
    fit.left.memory = std::max<int64_t>(0, add_sat(fit.left.memory, -taken.memory));
  }
  return fit;
}

GroupFit fit_group_on(const Group& group, const Visit& each_node, const Visit& each_pod,
                      const Held& held, const Visit& each_volume_object) {
  Snapshot snapshot;
  each_node([&](const json::object& n) { snapshot.add_node(n); });
  if (each_volume_object)
    each_volume_object([&](const json::object& o) { snapshot.add_volume_object(o); });
  std::set<std::string> uncounted{group.name};
  for (const auto& [other, _] : held) uncounted.insert(other);
  each_pod([&](const json::object& p) { snapshot.add_pod(p, uncounted); });
  for (const auto& [other, pods] : held)
    for (const auto& [node, pod] : pods)
      if (auto n = snapshot.index(node)) snapshot.assume(*n, pod.info, pod.copies);
  return fit_group(group, snapshot);
}

}  // namespace planter::fit
