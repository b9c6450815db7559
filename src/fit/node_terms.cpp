#include "fit/node_terms.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <optional>

#include "model/names.h"
#include "model/object.h"

namespace planter::fit {

namespace json = boost::json;

namespace {

bool integer(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

}  // namespace

NodeTerms::NodeTerms(const json::array& terms) {
  auto read = [](const json::object& expr, bool field) -> std::optional<Requirement> {
    Requirement r;
    r.field = field;
    if (!field) {
      r.key = string_field(expr, {"key"});
      if (!qualified_name_problem(r.key).empty()) return std::nullopt;
    }
    if (const json::value* vs = expr.if_contains("values"); vs && vs->is_array())
      for (const json::value& v : vs->as_array()) {
        if (!v.is_string()) return std::nullopt;
        r.values.emplace_back(v.as_string());
        if (!field && !label_value_problem(r.values.back()).empty()) return std::nullopt;
      }
    std::string op = string_field(expr, {"operator"});
    if (op == "In" || op == "NotIn") {
      r.op = op == "In" ? Op::kIn : Op::kNotIn;
      if (r.values.empty()) return std::nullopt;
    } else if ((op == "Exists" || op == "DoesNotExist") && !field) {
      r.op = op == "Exists" ? Op::kExists : Op::kDoesNotExist;
      if (!r.values.empty()) return std::nullopt;
    } else if ((op == "Gt" || op == "Lt") && !field) {
      r.op = op == "Gt" ? Op::kGt : Op::kLt;
      if (r.values.size() != 1 || !integer(r.values[0], r.number)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    return r;
  };
  for (const json::value& t : terms) {
    Term term;
    const json::object* o = t.if_object();
    bool ok = o != nullptr, any = false;
    if (o)
      if (const json::value* es = o->if_contains("matchExpressions"); es && es->is_array())
        for (const json::value& e : es->as_array()) {
          std::optional<Requirement> r = e.is_object() ? read(e.as_object(), false) : std::nullopt;
          if (!r) ok = false;
          if (!ok) break;
          any = true;
          term.requirements.push_back(std::move(*r));
        }
    if (o && ok)
      if (const json::value* fs = o->if_contains("matchFields"); fs && fs->is_array())
        for (const json::value& f : fs->as_array()) {
          std::optional<Requirement> r =
              f.is_object() && string_field(f.as_object(), {"key"}) == "metadata.name"
                  ? read(f.as_object(), true)
                  : std::nullopt;
          if (!r) ok = false;
          if (!ok) break;
          any = true;
          term.requirements.push_back(std::move(*r));
        }
    term.valid = ok && any;
    if (!term.valid) term.requirements.clear();
    terms_.push_back(std::move(term));
  }
}

bool NodeTerms::Requirement::holds(const std::string* value) const {
  auto listed = [&] {
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
  switch (op) {
    case Op::kIn:
      return listed();
    case Op::kNotIn:
      return !listed();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      int64_t have = 0;
      if (!value || !integer(*value, have)) return false;
      return op == Op::kGt ? have > number : have < number;
    }
  }
  return false;
}

bool NodeTerms::matches(const Labels& labels, const std::string& name) const {
  return std::any_of(terms_.begin(), terms_.end(), [&](const Term& t) {
    return t.valid &&
           std::all_of(t.requirements.begin(), t.requirements.end(), [&](const Requirement& r) {
             if (r.field) return r.holds(&name);
             auto it = labels.find(r.key);
             return r.holds(it == labels.end() ? nullptr : &it->second);
           });
  });
}

}  // namespace planter::fit
