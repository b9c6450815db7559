#include "plan/jsonpath.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>

namespace planter {

Result<std::vector<JsonPathStep>> parse_jsonpath(std::string_view expr) {
  std::string_view e = expr;
  if (e.starts_with("{")) {
    if (!e.ends_with("}")) return Error{fmt::format("jsonpath {}: missing closing brace", expr)};
    e = e.substr(1, e.size() - 2);
  }
  if (!e.starts_with(".")) return Error{fmt::format("jsonpath {}: must start with '.'", expr)};
  std::vector<JsonPathStep> steps;
  size_t i = 0;
  while (i < e.size()) {
    if (e[i] == '.') {
      size_t end = e.find_first_of(".[", i + 1);
      std::string_view name = e.substr(i + 1, end == std::string_view::npos ? e.npos : end - i - 1);
      if (name.empty()) {
        if (e.size() == 1) break;  // `{.}`: the object itself
        return Error{fmt::format("jsonpath {}: empty field name", expr)};
      }
      steps.push_back({JsonPathStep::Kind::kField, std::string(name), 0, {}});
      i = end == std::string_view::npos ? e.size() : end;
      continue;
    }
    if (e[i] != '[')
      return Error{fmt::format("jsonpath {}: unexpected '{}' at {}", expr, e[i], i + 1)};
    size_t close = e.find(']', i);
    if (close == std::string_view::npos)
      return Error{fmt::format("jsonpath {}: missing ']'", expr)};
    std::string_view inside = e.substr(i + 1, close - i - 1);
    i = close + 1;
    if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"') &&
        inside.back() == inside.front()) {  // ['key.with.dots']
      steps.push_back(
          {JsonPathStep::Kind::kField, std::string(inside.substr(1, inside.size() - 2)), 0, {}});
      continue;
    }
    if (inside.starts_with("?(@.") && inside.ends_with(")")) {
      std::string_view cond = inside.substr(4, inside.size() - 5);
      size_t eq = cond.find("==");
      if (eq == std::string_view::npos)
        return Error{fmt::format("jsonpath {}: a filter needs ==", expr)};
      std::string_view field = cond.substr(0, eq), want = cond.substr(eq + 2);
      if (field.empty()) return Error{fmt::format("jsonpath {}: a filter needs a field", expr)};
      if (want.size() >= 2 && (want.front() == '"' || want.front() == '\'') &&
          want.back() == want.front())
        want = want.substr(1, want.size() - 2);
      steps.push_back({JsonPathStep::Kind::kFilter, std::string(field), 0, std::string(want)});
      continue;
    }
    size_t index = 0;
    auto [p, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), index);
    if (ec != std::errc() || p != inside.data() + inside.size())
      return Error{fmt::format("jsonpath {}: [{}] is neither an index nor a filter", expr, inside)};
    steps.push_back({JsonPathStep::Kind::kIndex, {}, index, {}});
  }
  return steps;
}

std::string jsonpath_text(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::string:
      return std::string(v.get_string());
    case boost::json::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case boost::json::kind::null:
      return "";
    default:
      return boost::json::serialize(v);
  }
}

const boost::json::value* locate_jsonpath(const boost::json::object& object,
                                          const std::vector<JsonPathStep>& steps) {
  const boost::json::value* cur = nullptr;  // null: still at `object` itself
  for (const JsonPathStep& step : steps) {
    if (step.kind == JsonPathStep::Kind::kField) {
      const boost::json::object* here = !cur ? &object : cur->if_object();
      cur = here ? here->if_contains(step.field) : nullptr;
    } else if (!cur || !cur->is_array()) {
      cur = nullptr;
    } else if (step.kind == JsonPathStep::Kind::kIndex) {
      const boost::json::array& arr = cur->get_array();
      cur = step.index < arr.size() ? &arr[step.index] : nullptr;
    } else {
      const boost::json::value* match = nullptr;
      for (const boost::json::value& item : cur->get_array()) {
        const boost::json::value* f =
            item.is_object() ? item.get_object().if_contains(step.field) : nullptr;
        if (f && jsonpath_text(*f) == step.value) {
          match = &item;
          break;
        }
      }
      cur = match;
    }
    if (!cur) return nullptr;
  }
  return cur;  // null for no steps: the caller holds the object itself
}

}  // namespace planter
