#include "schedule/stack_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "model/quantity.h"
#include "schedule/node_filter.h"

namespace planter::schedule {

namespace {

struct PodKind {
  PodConstraints constraints;
  Usage one;  // one pod
  int64_t count = 0;
  bool per_node = false;
};

std::vector<PodKind> kinds_of(const StackNeeds& s) {
  std::vector<PodKind> out;
  for (const StackPods& p : s.pod_kinds) {
    if (p.count <= 0 && !p.per_node) continue;
    out.push_back({{&p.tolerations, &p.node_selector, &p.node_terms},
                   {p.cpu, p.memory, 1},
                   p.per_node ? 1 : p.count,
                   p.per_node});
  }
  return out;
}

std::string usage_text(const Usage& u) {
  return fmt::format("{} cpu, {}", cpu_text(u.cpu), memory_text(u.memory));
}

// Reasons counted per node, printed as kube-scheduler prints them: "2 node(s) were
// unschedulable, 3 Insufficient cpu".
class Reasons {
 public:
  void add(const std::string& reason) { ++counts_[reason]; }
  void short_of(const Usage& free, const Usage& need) {
    if (need.cpu > free.cpu + 1e-9) add("Insufficient cpu");
    if (need.memory > free.memory * (1 + 1e-9) + 1e-9) add("Insufficient memory");
    if (need.pods > free.pods) add("Too many pods");
  }
  std::string str() const {
    std::vector<std::pair<std::string, int>> list(counts_.begin(), counts_.end());
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [reason, n] : list)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, reason);
    return out;
  }

 private:
  std::map<std::string, int> counts_;
};

class Fitter {
 public:
  Fitter(const StackNeeds& s, const ClusterView& c) : stack_(s), cluster_(c), kinds_(kinds_of(s)) {
    const auto& nodes = cluster_.nodes();
    allowed_.assign(kinds_.size(), std::vector<bool>(nodes.size(), false));
    refusal_.assign(nodes.size(), "");
    for (size_t n = 0; n < nodes.size(); ++n) {
      std::string why;
      for (const std::string& other : stack_.avoid)
        if (why.empty() && nodes[n].stacks.contains(other))
          why = fmt::format("node(s) had pods of stack {}, which {} is separated from", other,
                            stack_.name);
      for (size_t k = 0; k < kinds_.size(); ++k) {
        std::string refused = why.empty() ? node_refuses(nodes[n], kinds_[k].constraints) : why;
        allowed_[k][n] = refused.empty();
        // A DaemonSet's pod that may not run on a node simply is not there.
        if (!kinds_[k].per_node && refusal_[n].empty()) refusal_[n] = refused;
      }
    }
    for (const PodKind& k : kinds_)
      if (!k.per_node) {
        total_.cpu += k.one.cpu * static_cast<double>(k.count);
        total_.memory += k.one.memory * static_cast<double>(k.count);
        total_.pods += k.count;
      }
  }

  StackFit run() {
    if (kinds_.empty()) {
      StackFit f;
      f.fits = true;
      f.where = "no pods to place";
      return f;
    }
    if (stack_.colocated_on == "kubernetes.io/hostname") return on_one_node();
    if (!stack_.colocated_on.empty()) return in_one_domain();
    std::vector<size_t> all(cluster_.nodes().size());
    for (size_t n = 0; n < all.size(); ++n) all[n] = n;
    StackFit f;
    Reasons reasons;
    for (size_t n : all)
      if (!refusal_[n].empty()) reasons.add(refusal_[n]);
    if (pack(all, f.placed)) {
      f.fits = true;
      f.where = fmt::format("across {} node(s)", f.placed.size());
      return f;
    }
    f.placed.clear();
    f.why = fmt::format(
        "stack {} needs {} in {} pods; they do not all fit on the {} node(s) that "
        "may run them ({} free in all)",
        stack_.name, usage_text(total_), total_.pods, usable(all), usage_text(free_in(all)));
    if (std::string r = reasons.str(); !r.empty()) f.why += "; " + r;
    return f;
  }

 private:
  // Every pod (and a pod of each DaemonSet member that may run there) on one node.
  StackFit on_one_node() {
    const auto& nodes = cluster_.nodes();
    StackFit f;
    Reasons reasons;
    std::optional<size_t> chosen, best;
    double chosen_score = -std::numeric_limits<double>::infinity(), best_ratio = -1;
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (!refusal_[n].empty()) {
        reasons.add(refusal_[n]);
        continue;
      }
      Usage need = total_;
      for (size_t k = 0; k < kinds_.size(); ++k)
        if (kinds_[k].per_node && allowed_[k][n]) need += kinds_[k].one;
      Usage free = nodes[n].free();
      if (!holds(free, need)) {
        reasons.short_of(free, need);
        double ratio = std::min(need.cpu > 0 ? free.cpu / need.cpu : 1e9,
                                need.memory > 0 ? free.memory / need.memory : 1e9);
        if (ratio > best_ratio) best_ratio = ratio, best = n;
        continue;
      }
      // Where the stack already runs (planted before), it stays.
      double score = room_left(nodes[n], need) + (nodes[n].stacks.contains(stack_.name) ? 2 : 0);
      if (score > chosen_score) chosen_score = score, chosen = n;
    }
    if (chosen) {
      const NodeView& n = nodes[*chosen];
      Usage need = total_;
      for (size_t k = 0; k < kinds_.size(); ++k)
        if (kinds_[k].per_node && allowed_[k][*chosen]) need += kinds_[k].one;
      Usage left = n.free();
      left.cpu -= need.cpu;
      left.memory -= need.memory;
      f.fits = true;
      f.where = fmt::format("node {} (leaves {} free)", n.name, usage_text(left));
      f.steer_key = stack_.colocated_on;
      f.steer_values = {n.name};
      f.placed[n.name] = need;
      return f;
    }
    f.why = fmt::format("stack {} needs {}, {} pods on one node; 0/{} nodes can hold it",
                        stack_.name, usage_text(total_), total_.pods, nodes.size());
    if (std::string r = reasons.str(); !r.empty()) f.why += ": " + r;
    if (best)
      f.why += fmt::format("; the best node, {}, has {} free", nodes[*best].name,
                           usage_text(nodes[*best].free()));
    return f;
  }

  // Every pod in one domain of the topology key, packed onto its nodes.
  StackFit in_one_domain() {
    const auto& nodes = cluster_.nodes();
    const std::string& key = stack_.colocated_on;
    std::map<std::string, std::vector<size_t>> domains;
    Reasons reasons;
    for (size_t n = 0; n < nodes.size(); ++n) {
      auto label = nodes[n].labels.find(key);
      if (label == nodes[n].labels.end())
        reasons.add(fmt::format("node(s) had no {} label", key));
      else if (!refusal_[n].empty())
        reasons.add(refusal_[n]);
      else
        domains[label->second].push_back(n);
    }
    StackFit f;
    std::optional<std::string> chosen, best;
    double chosen_score = -std::numeric_limits<double>::infinity(), best_ratio = -1;
    for (const auto& [value, members] : domains) {
      std::map<std::string, Usage> placed;
      Usage free = free_in(members);
      if (!pack(members, placed)) {
        double ratio = std::min(total_.cpu > 0 ? free.cpu / total_.cpu : 1e9,
                                total_.memory > 0 ? free.memory / total_.memory : 1e9);
        if (ratio > best_ratio) best_ratio = ratio, best = value;
        continue;
      }
      double score = 0;
      bool home = false;
      for (size_t n : members) {
        score +=
            room_left(nodes[n], placed.contains(nodes[n].name) ? placed[nodes[n].name] : Usage{});
        home = home || nodes[n].stacks.contains(stack_.name);
      }
      score = score / static_cast<double>(members.size()) + (home ? 2 : 0);
      if (score > chosen_score) {
        chosen_score = score;
        chosen = value;
        f.placed = std::move(placed);
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
                        stack_.name, usage_text(total_), total_.pods, key, domains.size());
    if (std::string r = reasons.str(); !r.empty()) f.why += ": " + r;
    if (best)
      f.why += fmt::format("; the best domain, {}={}, has {} free", key, *best,
                           usage_text(free_in(domains[*best])));
    return f;
  }

  size_t usable(const std::vector<size_t>& nodes) const {
    size_t n = 0;
    for (size_t i : nodes) n += refusal_[i].empty() ? 1 : 0;
    return n;
  }
  Usage free_in(const std::vector<size_t>& members) const {
    Usage u;
    for (size_t n : members)
      if (refusal_[n].empty()) {
        Usage f = cluster_.nodes()[n].free();
        u.cpu += std::max(0.0, f.cpu);
        u.memory += std::max(0.0, f.memory);
        u.pods += std::max<int64_t>(0, f.pods);
      }
    return u;
  }

  // Biggest kinds of pods first; each kind's pods go, a share at a time, to the allowed node with
  // the most room left; a node's first pod brings the stack's DaemonSet pods with it. Pods are
  // counted, never listed: a kind of 2^31 pods costs what a kind of one does (issue 29), and the
  // shares (the pods left over the nodes that may take them) spread a kind as placing its pods
  // one by one on the roomiest node did.
  bool pack(const std::vector<size_t>& members, std::map<std::string, Usage>& placed) const {
    const auto& nodes = cluster_.nodes();
    if (total_.pods > free_in(members).pods) return false;
    std::vector<size_t> order;  // kinds of pods that are not per node
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (!kinds_[k].per_node && kinds_[k].count > 0) order.push_back(k);
    Usage all = free_in(members);
    auto size = [&](size_t k) {
      return (all.cpu > 0 ? kinds_[k].one.cpu / all.cpu : 0) +
             (all.memory > 0 ? kinds_[k].one.memory / all.memory : 0);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return size(a) > size(b); });
    std::map<size_t, Usage> taken;
    // What `n` holds of the stack when `extra` more pods of kind `k` go there.
    auto with = [&](size_t n, size_t k, int64_t extra) {
      auto it = taken.find(n);
      Usage u = it == taken.end() ? Usage{} : it->second;
      if (it == taken.end())
        for (size_t d = 0; d < kinds_.size(); ++d)
          if (kinds_[d].per_node && allowed_[d][n]) u += kinds_[d].one;
      const Usage& one = kinds_[k].one;
      u += Usage{one.cpu * static_cast<double>(extra), one.memory * static_cast<double>(extra),
                 one.pods * extra};
      return u;
    };
    for (size_t k : order) {
      int64_t left = kinds_[k].count;
      std::vector<size_t> open;  // nodes that may still take a pod of this kind
      for (size_t n : members)
        if (allowed_[k][n]) open.push_back(n);
      while (left > 0) {
        std::optional<size_t> to;
        double to_room = -std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < open.size();) {
          size_t n = open[i];
          Usage one_more = with(n, k, 1);
          if (!holds(nodes[n].free(), one_more)) {
            open[i] = open.back();  // full for this kind: it stays full
            open.pop_back();
            continue;
          }
          double room = room_left(nodes[n], one_more);
          if (room > to_room) to_room = room, to = n;
          ++i;
        }
        if (!to) return false;
        // This node's share: the pods left over the open nodes, as many of them as it holds.
        int64_t share = std::max<int64_t>(1, left / static_cast<int64_t>(open.size()));
        int64_t lo = 1, hi = std::min(share, left);
        while (lo < hi) {  // the most of the share it holds (holding is monotone in the count)
          int64_t mid = lo + (hi - lo + 1) / 2;
          if (holds(nodes[*to].free(), with(*to, k, mid)))
            lo = mid;
          else
            hi = mid - 1;
        }
        taken[*to] = with(*to, k, lo);
        left -= lo;
      }
    }
    for (const auto& [n, u] : taken) placed[nodes[n].name] = u;
    return true;
  }

  const StackNeeds& stack_;
  const ClusterView& cluster_;
  std::vector<PodKind> kinds_;
  std::vector<std::vector<bool>> allowed_;  // kind -> node
  std::vector<std::string> refusal_;        // node -> why no pod of the stack may go there
  Usage total_;                             // every pod but the DaemonSets'
};

}  // namespace

StackFit fit_stack(const StackNeeds& stack, const ClusterView& cluster) {
  return Fitter(stack, cluster).run();
}

StackFit fit_stack_on(
    const StackNeeds& stack,
    const std::function<void(const std::function<void(const boost::json::object&)>&)>& each_node,
    const std::function<void(const std::function<void(const boost::json::object&)>&)>& each_pod,
    const Held& held) {
  ClusterView view;
  each_node([&](const boost::json::object& n) { view.add_node(n); });
  std::set<std::string> uncounted{stack.name};
  for (const auto& [other, _] : held) uncounted.insert(other);
  each_pod([&](const boost::json::object& p) { view.add_pod(p, uncounted); });
  for (const auto& [other, placed] : held) view.reserve(other, placed);
  return fit_stack(stack, view);
}

}  // namespace planter::schedule
