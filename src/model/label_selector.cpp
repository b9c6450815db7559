#include "model/label_selector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/strings.h"

namespace planter {

namespace json = boost::json;

namespace {

// Splits on commas that are not inside parentheses.
std::vector<std::string_view> split_terms(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')') {
      --depth;
    }
  }
  return out;
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector sel;
  if (trim(text).empty()) return sel;
  for (std::string_view term : split_terms(text)) {
    if (term.empty()) return Error{fmt::format("empty term in label selector \"{}\"", text)};
    if (term.front() == '!') {
      sel.terms_.push_back({std::string(trim(term.substr(1))), Op::kDoesNotExist, {}});
      continue;
    }
    size_t paren = term.find('(');
    if (paren != std::string_view::npos) {
      if (term.back() != ')') return Error{fmt::format("unclosed \"(\" in \"{}\"", term)};
      std::string_view head = trim(term.substr(0, paren));
      size_t sp = head.find_last_of(" \t");
      if (sp == std::string_view::npos) return Error{fmt::format("cannot read \"{}\"", term)};
      std::string_view op = trim(head.substr(sp + 1));
      std::string key(trim(head.substr(0, sp)));
      Op o;
      if (op == "in") {
        o = Op::kIn;
      } else if (op == "notin") {
        o = Op::kNotIn;
      } else {
        return Error{fmt::format("unknown operator \"{}\" in \"{}\" (use in or notin)", op, term)};
      }
      std::vector<std::string> values;
      std::string_view inner = term.substr(paren + 1, term.size() - paren - 2);
      for (std::string_view v : split_terms(inner)) values.emplace_back(v);
      sel.terms_.push_back({std::move(key), o, std::move(values)});
      continue;
    }
    size_t ne = term.find("!=");
    if (ne != std::string_view::npos) {
      sel.terms_.push_back({std::string(trim(term.substr(0, ne))),
                            Op::kNotIn,
                            {std::string(trim(term.substr(ne + 2)))}});
      continue;
    }
    size_t eq = term.find('=');
    if (eq != std::string_view::npos) {
      size_t vstart = (eq + 1 < term.size() && term[eq + 1] == '=') ? eq + 2 : eq + 1;
      sel.terms_.push_back({std::string(trim(term.substr(0, eq))),
                            Op::kIn,
                            {std::string(trim(term.substr(vstart)))}});
      continue;
    }
    sel.terms_.push_back({std::string(term), Op::kExists, {}});
  }
  for (const Term& t : sel.terms_) {
    if (t.key.empty()) return Error{fmt::format("a term of \"{}\" has no label key", text)};
    for (char c : t.key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
            c == '/'))
        return Error{fmt::format("\"{}\" is not a valid label key", t.key)};
  }
  return sel;
}

Result<LabelSelector> LabelSelector::from_json(const json::value& v) {
  LabelSelector sel;
  const json::object* o = v.if_object();
  if (!o) return sel;
  if (const json::value* ml = o->if_contains("matchLabels"); ml && ml->is_object()) {
    for (const auto& kv : ml->get_object()) {
      if (!kv.value().is_string()) return Error{"matchLabels values must be strings"};
      sel.terms_.push_back(
          {std::string(kv.key()), Op::kIn, {std::string(kv.value().get_string())}});
    }
  }
  if (const json::value* me = o->if_contains("matchExpressions"); me && me->is_array()) {
    for (const auto& e : me->get_array()) {
      const json::object* eo = e.if_object();
      if (!eo) continue;
      const json::value* key = eo->if_contains("key");
      const json::value* op = eo->if_contains("operator");
      if (!key || !key->is_string() || !op || !op->is_string())
        return Error{"a matchExpression needs key and operator"};
      Term t{std::string(key->get_string()), Op::kIn, {}};
      std::string_view ops = op->get_string();
      if (ops == "In")
        t.op = Op::kIn;
      else if (ops == "NotIn")
        t.op = Op::kNotIn;
      else if (ops == "Exists")
        t.op = Op::kExists;
      else if (ops == "DoesNotExist")
        t.op = Op::kDoesNotExist;
      else
        return Error{fmt::format("unknown matchExpression operator \"{}\"", ops)};
      if (const json::value* vals = eo->if_contains("values"); vals && vals->is_array())
        for (const auto& val : vals->get_array())
          if (val.is_string()) t.values.emplace_back(val.get_string());
      sel.terms_.push_back(std::move(t));
    }
  }
  return sel;
}

std::string LabelSelector::str() const {
  std::string out;
  for (const Term& t : terms_) {
    if (!out.empty()) out += ',';
    switch (t.op) {
      case Op::kIn:
        out += t.values.size() == 1 ? fmt::format("{}={}", t.key, t.values[0])
                                    : fmt::format("{} in ({})", t.key, fmt::join(t.values, ","));
        break;
      case Op::kNotIn:
        out += fmt::format("{} notin ({})", t.key, fmt::join(t.values, ","));
        break;
      case Op::kExists:
        out += t.key;
        break;
      case Op::kDoesNotExist:
        out += "!" + t.key;
        break;
    }
  }
  return out;
}

bool LabelSelector::matches(const Labels& labels) const {
  return std::all_of(terms_.begin(), terms_.end(), [&](const Term& t) {
    auto it = labels.find(t.key);
    bool has = it != labels.end();
    auto in_values = [&] {
      return has && std::find(t.values.begin(), t.values.end(), it->second) != t.values.end();
    };
    switch (t.op) {
      case Op::kIn:
        return in_values();
      case Op::kNotIn:
        return !in_values();
      case Op::kExists:
        return has;
      case Op::kDoesNotExist:
        return !has;
    }
    return false;
  });
}

Labels labels_of(const json::object* labels) {
  Labels out;
  if (!labels) return out;
  for (const auto& kv : *labels)
    if (kv.value().is_string())
      out.emplace(std::string(kv.key()), std::string(kv.value().get_string()));
  return out;
}

}  // namespace planter
