#include "plan/graph_edges.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace planter {

namespace {

// Bit sets of units, one row per unit: row v holds every unit v waits for, directly or not.
class Ancestors {
 public:
  explicit Ancestors(size_t n) : words_((n + 63) / 64), bits_(n * words_, 0) {}
  bool has(size_t v, size_t u) const { return (row(v)[u / 64] >> (u % 64)) & 1; }
  void add(size_t v, size_t u) { row(v)[u / 64] |= uint64_t{1} << (u % 64); }
  void add_all(size_t v, size_t w) {
    uint64_t* to = row(v);
    const uint64_t* from = row(w);
    for (size_t i = 0; i < words_; ++i) to[i] |= from[i];
  }

 private:
  uint64_t* row(size_t v) { return bits_.data() + v * words_; }
  const uint64_t* row(size_t v) const { return bits_.data() + v * words_; }
  size_t words_;
  std::vector<uint64_t> bits_;
};

// The units in an order where each comes after all it waits for (Kahn's), or nothing if the
// requirements make a cycle (a plan has none; a drawing then keeps every arrow).
std::optional<std::vector<size_t>> topological(const std::vector<std::vector<size_t>>& preds) {
  size_t n = preds.size();
  std::vector<std::vector<size_t>> succs(n);
  std::vector<size_t> waiting(n);
  for (size_t v = 0; v < n; ++v) {
    waiting[v] = preds[v].size();
    for (size_t u : preds[v]) succs[u].push_back(v);
  }
  std::vector<size_t> order;
  order.reserve(n);
  for (size_t v = 0; v < n; ++v)
    if (waiting[v] == 0) order.push_back(v);
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t w : succs[order[i]])
      if (--waiting[w] == 0) order.push_back(w);
  if (order.size() != n) return std::nullopt;
  return order;
}

}  // namespace

GraphEdges graph_edges(const Plan& plan, const std::vector<std::string>& clusters) {
  GraphEdges out;
  size_t n = plan.units.size();
  std::map<std::string_view, size_t> index_of;  // cluster name -> index into clusters
  for (size_t k = 0; k < clusters.size(); ++k) index_of.emplace(clusters[k], k);
  // The cluster each seed cluster object makes, by the object's index.
  std::map<size_t, size_t> made_by;  // object -> index into clusters
  for (const ClusterInfo& c : plan.clusters)
    if (auto it = index_of.find(c.name); c.object && it != index_of.end())
      made_by[*c.object] = it->second;
  std::vector<std::optional<size_t>> first_on(clusters.size());
  for (size_t i = 0; i < n; ++i)
    if (auto it = index_of.find(plan.units[i].cluster);
        it != index_of.end() && !first_on[it->second])
      first_on[it->second] = i;

  // Direct requirements between units, one per pair, with the label of the first.
  std::vector<std::vector<size_t>> preds(n);
  std::map<std::pair<size_t, size_t>, std::string> label;
  for (size_t v = 0; v < n; ++v)
    for (const Requirement& r : plan.units[v].requirements) {
      if (!r.unit) continue;
      if (label.try_emplace({*r.unit, v}, r.when.str()).second) preds[v].push_back(*r.unit);
    }

  std::optional<std::vector<size_t>> order;
  if (n <= kMaxReducedUnits) order = topological(preds);
  out.reduced = order.has_value();
  std::optional<Ancestors> above;
  if (order) {
    above.emplace(n);
    for (size_t v : *order)
      for (size_t u : preds[v]) {
        above->add(v, u);
        above->add_all(v, u);
      }
  }

  std::set<std::pair<size_t, size_t>> cluster_drawn;  // (cluster object unit, cluster)
  for (size_t v = 0; v < n; ++v)
    for (size_t u : preds[v]) {
      const Unit& from = plan.units[u];
      auto made = made_by.find(from.object);
      if (made != made_by.end() && plan.units[v].cluster == clusters[made->second]) {
        if (cluster_drawn.emplace(u, made->second).second)
          out.cluster_edges.push_back({u, made->second, *first_on[made->second]});
        continue;
      }
      // Implied when another unit v waits for directly itself waits for u.
      bool implied = false;
      if (above)
        for (size_t w : preds[v])
          if (w != u && above->has(w, u)) {
            implied = true;
            break;
          }
      if (!implied) out.edges.push_back({u, v, label.at({u, v})});
    }
  return out;
}

}  // namespace planter
