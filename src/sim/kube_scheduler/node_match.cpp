#include "sim/kube_scheduler/node_match.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "sim/json_access.h"
#include "sim/name_validation.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

std::vector<std::string> strings_of(const json::value* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const auto& s : v->as_array())
      if (s.is_string()) out.emplace_back(s.as_string());
  return out;
}

std::optional<int64_t> integer(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

NodeRequirement::NodeRequirement(const json::object& req, bool field)
    : key(string_at(req, "key")), values(strings_of(req.if_contains("values"))) {
  std::string name = string_at(req, "operator");
  if (name == "In")
    op = Op::kIn;
  else if (name == "NotIn")
    op = Op::kNotIn;
  else if (name == "Exists")
    op = Op::kExists;
  else if (name == "DoesNotExist")
    op = Op::kDoesNotExist;
  else if (name == "Gt" || name == "Lt")
    op = name == "Gt" ? Op::kGt : Op::kLt;
  // A requirement kube-scheduler cannot parse into a label selector (a key or, for In and NotIn,
  // a value kube-apiserver's validation would refuse) makes its term match no node.
  if (!field && !is_label_key(key)) op = Op::kNever;
  if (!field && (op == Op::kIn || op == Op::kNotIn))
    for (const std::string& value : values)
      if (!is_label_value(value)) op = Op::kNever;
  if (op == Op::kGt || op == Op::kLt) {
    if (values.size() == 1) bound = integer(values.front());
    if (!bound) op = Op::kNever;
  }
}

bool NodeRequirement::matches(const json::object* labels) const {
  auto* v = labels ? labels->if_contains(key) : nullptr;
  if (!v || !v->is_string()) return matches_value(nullptr);
  std::string_view value(v->as_string());
  return matches_value(&value);
}

bool NodeRequirement::matches(const NodeLabels& labels) const {
  auto it = labels.find(key);
  if (it == labels.end()) return matches_value(nullptr);
  std::string_view value(it->second);
  return matches_value(&value);
}

bool NodeRequirement::matches_value(const std::string_view* label) const {
  bool has = label != nullptr;
  std::string_view value = has ? *label : std::string_view();
  auto in = [&] { return has && std::find(values.begin(), values.end(), value) != values.end(); };
  switch (op) {
    case Op::kIn:
      return in();
    case Op::kNotIn:
      return !in();
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGt:
    case Op::kLt: {
      if (!has) return false;
      auto have = integer(value);
      if (!have) return false;
      return op == Op::kGt ? *have > *bound : *have < *bound;
    }
    case Op::kNever:
      break;
  }
  return false;
}

NodeSelectorTerm::NodeSelectorTerm(const json::object& term) {
  auto* exprs = term.if_contains("matchExpressions");
  auto* fields = term.if_contains("matchFields");
  if (exprs && exprs->is_array())
    for (const auto& e : exprs->as_array()) {
      if (!e.is_object()) {
        never_ = true;
        continue;
      }
      expressions_.emplace_back(e.as_object(), false);
    }
  if (fields && fields->is_array())
    for (const auto& f : fields->as_array()) {
      if (!f.is_object() || string_at(f.as_object(), "key") != "metadata.name") {
        never_ = true;
        continue;
      }
      fields_.emplace_back(f.as_object(), true);
    }
  // A term with neither matches nothing.
  if (expressions_.empty() && fields_.empty()) never_ = true;
}

bool NodeSelectorTerm::matches(const json::object& node) const {
  if (never_) return false;
  const json::object* labels = labels_of(node);
  for (const NodeRequirement& r : expressions_)
    if (!r.matches(labels)) return false;
  return fields_match(meta_string(node, "name"));
}

bool NodeSelectorTerm::matches(const NodeLabels& labels, std::string_view name) const {
  if (never_) return false;
  for (const NodeRequirement& r : expressions_)
    if (!r.matches(labels)) return false;
  return fields_match(name);
}

bool NodeSelectorTerm::fields_match(std::string_view name) const {
  for (const NodeRequirement& r : fields_)
    if (!r.matches_value(&name)) return false;
  return true;
}

CompiledSelector::CompiledSelector(const json::value* selector) {
  using Op = LabelRequirement::Op;
  if (!selector || !selector->is_object()) {
    nothing_ = true;
    return;
  }
  const json::object& sel = selector->as_object();
  if (const json::object* ml = object_at(sel, "matchLabels"))
    for (const auto& [k, v] : *ml) {
      if (!v.is_string()) {
        nothing_ = true;
        return;
      }
      requirements_.push_back({std::string(k), Op::kIn, {std::string(v.as_string())}});
    }
  if (auto* exprs = sel.if_contains("matchExpressions"); exprs && exprs->is_array())
    for (const auto& e : exprs->as_array()) {
      std::string op = e.is_object() ? string_at(e.as_object(), "operator") : "";
      LabelRequirement r{e.is_object() ? string_at(e.as_object(), "key") : "", Op::kIn,
                         strings_of(e.is_object() ? e.as_object().if_contains("values") : nullptr)};
      if (op == "In")
        r.op = Op::kIn;
      else if (op == "NotIn")
        r.op = Op::kNotIn;
      else if (op == "Exists")
        r.op = Op::kExists;
      else if (op == "DoesNotExist")
        r.op = Op::kDoesNotExist;
      else {
        nothing_ = true;
        return;
      }
      requirements_.push_back(std::move(r));
    }
}

bool CompiledSelector::matches(const json::object* labels) const {
  return !nothing_ && labels_match(requirements_, labels);
}

bool label_selector_matches(const json::value* selector, const json::object* labels) {
  return CompiledSelector(selector).matches(labels);
}

bool node_selector_term_matches(const json::object& term, const json::object& node) {
  return NodeSelectorTerm(term).matches(node);
}

RequiredNodeAffinity::RequiredNodeAffinity(const json::object& spec) {
  if (const json::object* selector = object_at(spec, "nodeSelector")) {
    has_selector_ = true;
    selector_ = *selector;
  }
  const json::object* affinity = object_at(object_at(spec, "affinity"), "nodeAffinity");
  const json::object* required =
      object_at(affinity, "requiredDuringSchedulingIgnoredDuringExecution");
  if (!required) return;
  has_terms_ = true;
  if (auto* terms = required->if_contains("nodeSelectorTerms"); terms && terms->is_array())
    for (const auto& t : terms->as_array())
      if (t.is_object()) terms_.emplace_back(t.as_object());
}

bool RequiredNodeAffinity::matches(const json::object& node) const {
  if (has_selector_) {
    const json::object* labels = labels_of(node);
    for (const auto& [k, v] : selector_) {
      auto* l = labels ? labels->if_contains(k) : nullptr;
      if (!l || *l != v) return false;
    }
  }
  if (!has_terms_) return true;
  return std::any_of(terms_.begin(), terms_.end(),
                     [&](const NodeSelectorTerm& t) { return t.matches(node); });
}

bool RequiredNodeAffinity::matches(const NodeLabels& labels, std::string_view name) const {
  if (has_selector_)
    for (const auto& [k, v] : selector_) {
      auto l = labels.find(std::string_view(k));
      if (l == labels.end() || !v.is_string() || l->second != std::string_view(v.as_string()))
        return false;
    }
  if (!has_terms_) return true;
  return std::any_of(terms_.begin(), terms_.end(),
                     [&](const NodeSelectorTerm& t) { return t.matches(labels, name); });
}

PreferredNodeAffinity::PreferredNodeAffinity(const json::object& spec) {
  const json::object* affinity = object_at(object_at(spec, "affinity"), "nodeAffinity");
  auto* preferred =
      affinity ? affinity->if_contains("preferredDuringSchedulingIgnoredDuringExecution") : nullptr;
  if (!preferred || !preferred->is_array()) return;
  for (const auto& p : preferred->as_array()) {
    if (!p.is_object()) continue;
    const json::object* term = object_at(p.as_object(), "preference");
    int64_t weight = int_at(&p.as_object(), "weight");
    if (term && weight != 0) terms_.emplace_back(NodeSelectorTerm(*term), weight);
  }
}

int64_t PreferredNodeAffinity::weight(const NodeLabels& labels, std::string_view name) const {
  int64_t sum = 0;
  for (const auto& [term, weight] : terms_)
    if (term.matches(labels, name)) sum += weight;
  return sum;
}

std::vector<Taint> taints_of(const json::object& node) {
  std::vector<Taint> out;
  auto* taints = object_at(node, "spec") ? object_at(node, "spec")->if_contains("taints") : nullptr;
  if (taints && taints->is_array())
    for (const auto& t : taints->as_array())
      if (t.is_object())
        out.push_back(Taint{string_at(t.as_object(), "key"), string_at(t.as_object(), "value"),
                            string_at(t.as_object(), "effect")});
  return out;
}

bool tolerates(const json::object& tol, const Taint& taint) {
  std::string effect = string_at(tol, "effect");
  if (!effect.empty() && effect != taint.effect) return false;
  std::string key = string_at(tol, "key");
  std::string op = string_at(tol, "operator");
  if (op.empty()) op = "Equal";
  if (key.empty()) return op == "Exists";
  if (key != taint.key) return false;
  if (op == "Exists") return true;
  return op == "Equal" && string_at(tol, "value") == taint.value;
}

bool tolerated(const json::object& spec, const Taint& taint) {
  auto* tols = spec.if_contains("tolerations");
  if (!tols || !tols->is_array()) return false;
  for (const auto& t : tols->as_array())
    if (t.is_object() && tolerates(t.as_object(), taint)) return true;
  return false;
}

const Taint* first_untolerated(const json::object& spec, const std::vector<Taint>& taints) {
  for (const auto& t : taints)
    if ((t.effect == "NoSchedule" || t.effect == "NoExecute") && !tolerated(spec, t)) return &t;
  return nullptr;
}

int64_t intolerable_preferred_taints(const json::object& spec, const std::vector<Taint>& taints) {
  int64_t n = 0;
  for (const auto& t : taints)
    if (t.effect == "PreferNoSchedule" && !tolerated(spec, t)) ++n;
  return n;
}

}  // namespace planter::sim::sched
