#include "sim/selectors.h"

#include <algorithm>
#include <set>

#include "model/strings.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

// Splits on commas outside parentheses.
std::vector<std::string_view> split_requirements(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] == '(') ++depth;
    if (i < s.size() && s[i] == ')') --depth;
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool valid_label_key(std::string_view k) {
  if (k.empty() || k.size() > 317) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector sel;
  text = trim(text);
  if (text.empty()) return sel;
  for (std::string_view req : split_requirements(text)) {
    if (req.empty()) return Error{"unable to parse requirement: found ',', expected: identifier"};
    LabelRequirement r;
    using Op = LabelRequirement::Op;
    if (req.front() == '!') {
      r.key = std::string(trim(req.substr(1)));
      r.op = Op::kDoesNotExist;
    } else if (size_t p = req.find("!="); p != std::string_view::npos) {
      r.key = std::string(trim(req.substr(0, p)));
      r.op = Op::kNotIn;
      r.values.emplace_back(trim(req.substr(p + 2)));
    } else if (size_t p = req.find("=="); p != std::string_view::npos) {
      r.key = std::string(trim(req.substr(0, p)));
      r.op = Op::kIn;
      r.values.emplace_back(trim(req.substr(p + 2)));
    } else if (size_t p = req.find('='); p != std::string_view::npos) {
      r.key = std::string(trim(req.substr(0, p)));
      r.op = Op::kIn;
      r.values.emplace_back(trim(req.substr(p + 1)));
    } else if (size_t p = req.find('('); p != std::string_view::npos) {
      std::string_view head = trim(req.substr(0, p));
      if (req.back() != ')') return Error{"unable to parse requirement: expected ')'"};
      size_t sp = head.find_last_of(" \t");
      if (sp == std::string_view::npos)
        return Error{"unable to parse requirement: expected 'in' or 'notin'"};
      std::string_view op = head.substr(sp + 1);
      r.key = std::string(trim(head.substr(0, sp)));
      if (op == "in")
        r.op = Op::kIn;
      else if (op == "notin")
        r.op = Op::kNotIn;
      else
        return Error{"unable to parse requirement: unknown operator '" + std::string(op) + "'"};
      for (std::string_view v : split(req.substr(p + 1, req.size() - p - 2), ','))
        r.values.emplace_back(trim(v));
    } else {
      r.key = std::string(req);
      r.op = Op::kExists;
    }
    if (!valid_label_key(r.key))
      return Error{"unable to parse requirement: invalid label key \"" + r.key + "\""};
    sel.requirements_.push_back(std::move(r));
  }
  return sel;
}

bool labels_match(const std::vector<LabelRequirement>& requirements, const json::object* labels) {
  using Op = LabelRequirement::Op;
  for (const LabelRequirement& r : requirements) {
    const json::value* v = labels ? labels->if_contains(r.key) : nullptr;
    bool has = v && v->is_string();
    bool in = has && std::find(r.values.begin(), r.values.end(),
                               std::string_view(v->as_string())) != r.values.end();
    switch (r.op) {
      case Op::kIn:
        if (!in) return false;
        break;
      case Op::kNotIn:
        if (in) return false;
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

bool LabelSelector::matches(const json::object& object) const {
  return labels_match(requirements_, labels_of(object));
}

namespace {
bool field_supported(std::string_view field, std::string_view kind, bool custom) {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  if (custom) return false;
  static const std::set<std::string, std::less<>> pod = {
      "spec.nodeName",    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase",       "status.podIP",       "status.nominatedNodeName"};
  if (kind == "Pod") return pod.contains(field);
  if (kind == "Secret") return field == "type";
  if (kind == "Namespace") return field == "status.phase";
  if (kind == "Node") return field == "spec.unschedulable";
  if (kind == "ReplicaSet" || kind == "ReplicationController") return field == "status.replicas";
  if (kind == "Job") return field == "status.successful";
  if (kind == "Event")
    return field.starts_with("involvedObject.") || field == "reason" || field == "source" ||
           field == "type" || field == "reportingComponent";
  return false;
}
}  // namespace

Result<FieldSelector> FieldSelector::parse(std::string_view text, std::string_view kind,
                                           bool custom) {
  FieldSelector sel;
  text = trim(text);
  if (text.empty()) return sel;
  for (std::string_view req : split(text, ',')) {
    req = trim(req);
    Term t;
    size_t p;
    std::string_view field;
    if ((p = req.find("!=")) != std::string_view::npos) {
      field = trim(req.substr(0, p));
      t.value = std::string(trim(req.substr(p + 2)));
      t.negate = true;
    } else if ((p = req.find("==")) != std::string_view::npos) {
      field = trim(req.substr(0, p));
      t.value = std::string(trim(req.substr(p + 2)));
    } else if ((p = req.find('=')) != std::string_view::npos) {
      field = trim(req.substr(0, p));
      t.value = std::string(trim(req.substr(p + 1)));
    } else {
      return Error{"invalid selector: '" + std::string(req) + "'; can't understand '" +
                   std::string(req) + "'"};
    }
    if (!field_supported(field, kind, custom))
      return Error{"field label not supported: " + std::string(field)};
    for (std::string_view part : split(field, '.')) t.path.emplace_back(part);
    sel.terms_.push_back(std::move(t));
  }
  return sel;
}

bool FieldSelector::matches(const json::object& object) const {
  for (const auto& t : terms_) {
    const json::value* v = nullptr;
    const json::object* at = &object;
    for (size_t i = 0; i < t.path.size() && at; ++i) {
      v = at->if_contains(t.path[i]);
      at = v && v->is_object() ? &v->as_object() : nullptr;
      if (!v) break;
    }
    std::string value;
    if (v && v->is_string())
      value = std::string(v->as_string());
    else if (v && v->is_bool())
      value = v->as_bool() ? "true" : "false";
    else if (v && v->is_number())
      value = std::to_string(v->to_number<int64_t>());
    if ((value == t.value) == t.negate) return false;
  }
  return true;
}

}  // namespace planter::sim
