#include "fit/cluster_preferences.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace planter::fit {

namespace {

std::optional<double> value_of(const ClusterPreference& term, const PreferenceInputs& in) {
  if (term.property == "cpu") return static_cast<double>(in.milli_cpu);
  if (term.property == "memory") return static_cast<double>(in.memory);
  if (term.property == "nodes") return static_cast<double>(in.nodes);
  bool label = term.property.starts_with("label:");
  const Labels* from = label ? in.labels : in.properties;
  if (!from || (!label && !term.property.starts_with("property:"))) return std::nullopt;
  auto it = from->find(std::string_view(term.property).substr(label ? 6 : 9));
  if (it == from->end()) return std::nullopt;
  double v = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::vector<int>> preference_shares(const std::vector<ClusterPreference>& terms,
                                                const std::vector<PreferenceInputs>& candidates,
                                                const std::vector<bool>& eligible) {
  std::vector<std::vector<int>> out(candidates.size(), std::vector<int>(terms.size(), 0));
  for (size_t t = 0; t < terms.size(); ++t) {
    const ClusterPreference& term = terms[t];
    if (term.selector) {
      for (size_t c = 0; c < candidates.size(); ++c)
        if (candidates[c].labels && term.selector->matches(*candidates[c].labels))
          out[c][t] = static_cast<int>(term.weight);
      continue;
    }
    std::vector<std::optional<double>> values(candidates.size());
    std::optional<double> least, most;
    for (size_t c = 0; c < candidates.size(); ++c) {
      values[c] = value_of(term, candidates[c]);
      if (!values[c] || !eligible[c]) continue;
      least = least ? std::min(*least, *values[c]) : *values[c];
      most = most ? std::max(*most, *values[c]) : *values[c];
    }
    if (!least) continue;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!values[c]) continue;
      double at = *most > *least
                      ? (std::clamp(*values[c], *least, *most) - *least) / (*most - *least)
                      : 1.0;
      if (term.ascending && *most > *least) at = 1.0 - at;
      out[c][t] = static_cast<int>(std::lround(static_cast<double>(term.weight) * at));
    }
  }
  return out;
}

}  // namespace planter::fit
