// NodeAffinity: the node has every label of the pod's nodeSelector, and matches one of the
// required nodeSelectorTerms (ORed; within a term every requirement must hold; a term with no
// requirement matches nothing). Operators In, NotIn, Exists, DoesNotExist, Gt, Lt on labels;
// matchFields on metadata.name. A requirement kube-apiserver would not accept (a key that is not
// a qualified name, a value that is not a label value, Gt/Lt without one integer) makes its term
// match nothing, as kube-scheduler's selector parsing does.
#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

#include "fit/filters/filters.h"
#include "model/names.h"

namespace planter::fit::filters {

namespace json = boost::json;

namespace {

std::string text(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

bool integer(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// One requirement against the value the node has (null: the node lacks the key). False also for
// a requirement that is not valid.
bool requirement_holds(const json::object& expr, const std::string* value, bool field) {
  std::string key = text(expr, "key");
  if (!field && !qualified_name_problem(key).empty()) return false;
  std::string op = text(expr, "operator");
  std::vector<std::string> values;
  if (const json::value* vs = expr.if_contains("values"); vs && vs->is_array())
    for (const json::value& v : vs->as_array()) {
      if (!v.is_string()) return false;
      values.emplace_back(v.as_string());
    }
  if (!field)
    for (const std::string& v : values)
      if (!label_value_problem(v).empty()) return false;
  auto listed = [&] {
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
  if (op == "In" || op == "NotIn") {
    if (values.empty()) return false;
    return op == "In" ? listed() : !listed();
  }
  if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) return false;
    return (op == "Exists") == (value != nullptr);
  }
  if ((op == "Gt" || op == "Lt") && !field) {
    int64_t have = 0, want = 0;
    if (values.size() != 1 || !integer(values[0], want)) return false;
    if (!value || !integer(*value, have)) return false;
    return op == "Gt" ? have > want : have < want;
  }
  return false;
}

bool term_matches(const NodeInfo& node, const json::object& term) {
  bool any = false;
  if (const json::value* es = term.if_contains("matchExpressions"); es && es->is_array())
    for (const json::value& e : es->as_array()) {
      if (!e.is_object()) return false;
      any = true;
      if (!requirement_holds(e.as_object(), node.label(text(e.as_object(), "key")), false))
        return false;
    }
  if (const json::value* fs = term.if_contains("matchFields"); fs && fs->is_array())
    for (const json::value& f : fs->as_array()) {
      if (!f.is_object() || text(f.as_object(), "key") != "metadata.name") return false;
      const json::object& o = f.as_object();
      std::string op = text(o, "operator");
      if (op != "In" && op != "NotIn") return false;
      any = true;
      if (!requirement_holds(o, &node.name, true)) return false;
    }
  return any;
}

}  // namespace

bool node_terms_match(const json::array& terms, const NodeInfo& node) {
  return std::any_of(terms.begin(), terms.end(), [&](const json::value& t) {
    return t.is_object() && term_matches(node, t.as_object());
  });
}

bool node_affinity_matches(const PodInfo& pod, const NodeInfo& node) {
  for (const auto& [k, v] : pod.node_selector) {
    const std::string* have = node.label(k);
    if (!have || *have != v) return false;
  }
  return !pod.has_node_terms || node_terms_match(pod.node_terms, node);
}

Status node_affinity(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  if (node_affinity_matches(pod, node)) return {};
  return {{}, {kNodeAffinity}, true};
}

}  // namespace planter::fit::filters
