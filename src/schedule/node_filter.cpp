#include "schedule/node_filter.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>

namespace planter::schedule {

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

// One requirement of a node selector term against a value the node may or may not have.
bool requirement_holds(const json::object& expr, const std::string* value) {
  std::string op = text(expr, "operator");
  std::vector<std::string> values;
  if (const json::value* vs = expr.if_contains("values"); vs && vs->is_array())
    for (const json::value& v : vs->as_array())
      if (v.is_string()) values.emplace_back(v.as_string());
  auto listed = [&] {
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
  if (op == "In") return listed();
  if (op == "NotIn") return !listed();
  if (op == "Exists") return value != nullptr;
  if (op == "DoesNotExist") return value == nullptr;
  if (op == "Gt" || op == "Lt") {
    int64_t have = 0, want = 0;
    if (!value || values.size() != 1 || !integer(*value, have) || !integer(values[0], want))
      return false;
    return op == "Gt" ? have > want : have < want;
  }
  return false;
}

// A term's matchExpressions (on labels) and matchFields (metadata.name) all hold; an empty term
// matches nothing.
bool term_matches(const NodeView& node, const json::object& term) {
  bool any = false;
  if (const json::value* es = term.if_contains("matchExpressions"); es && es->is_array())
    for (const json::value& e : es->as_array()) {
      if (!e.is_object()) return false;
      any = true;
      auto it = node.labels.find(text(e.as_object(), "key"));
      if (!requirement_holds(e.as_object(), it == node.labels.end() ? nullptr : &it->second))
        return false;
    }
  if (const json::value* fs = term.if_contains("matchFields"); fs && fs->is_array())
    for (const json::value& f : fs->as_array()) {
      if (!f.is_object() || text(f.as_object(), "key") != "metadata.name") return false;
      any = true;
      if (!requirement_holds(f.as_object(), &node.name)) return false;
    }
  return any;
}

}  // namespace

bool tolerated(const json::array* tolerations, const json::object& taint) {
  if (!tolerations) return false;
  std::string key = text(taint, "key"), value = text(taint, "value"),
              effect = text(taint, "effect");
  for (const json::value& t : *tolerations) {
    if (!t.is_object()) continue;
    const json::object& o = t.as_object();
    std::string t_effect = text(o, "effect");
    if (!t_effect.empty() && t_effect != effect) continue;
    std::string t_key = text(o, "key"), op = text(o, "operator");
    if (op.empty()) op = "Equal";
    if (t_key.empty()) {
      if (op == "Exists") return true;  // an empty key with Exists tolerates everything
      continue;
    }
    if (t_key != key) continue;
    if (op == "Exists" || (op == "Equal" && text(o, "value") == value)) return true;
  }
  return false;
}

std::string node_refuses(const NodeView& node, const PodConstraints& pod) {
  if (node.unschedulable) {
    json::object cordon{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}};
    if (!tolerated(pod.tolerations, cordon)) return "node(s) were unschedulable";
  }
  for (const json::value& t : node.taints) {
    if (!t.is_object()) continue;
    std::string effect = text(t.as_object(), "effect");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    if (!tolerated(pod.tolerations, t.as_object()))
      return fmt::format("node(s) had untolerated taint {{{}: {}}}", text(t.as_object(), "key"),
                         text(t.as_object(), "value"));
  }
  if (pod.node_selector)
    for (const auto& [k, v] : *pod.node_selector) {
      auto it = node.labels.find(k);
      if (!v.is_string() || it == node.labels.end() || it->second != v.as_string())
        return "node(s) didn't match Pod's node affinity/selector";
    }
  if (pod.node_terms && !pod.node_terms->empty()) {
    bool any = false;
    for (const json::value& term : *pod.node_terms)
      any = any || (term.is_object() && term_matches(node, term.as_object()));
    if (!any) return "node(s) didn't match Pod's node affinity/selector";
  }
  return "";
}

}  // namespace planter::schedule
