#include "plan/readiness.h"

#include <fmt/format.h>

#include "plan/jsonpath.h"

namespace planter {

Result<ReadinessPredicate> ReadinessPredicate::jsonpath(Type type, std::string_view expression,
                                                        std::string value) {
  auto steps = parse_jsonpath(expression);
  if (!steps) return steps.error();
  return ReadinessPredicate{
      type, std::string(expression), std::move(value),
      std::make_shared<const std::vector<JsonPathStep>>(std::move(steps).value())};
}

Result<ReadinessPredicate> ReadinessPredicate::parse(std::string_view text) {
  if (text == "exists") return of(Type::kExists);
  if (text == "healthy") return of(Type::kHealthy);
  if (text.starts_with("condition=")) {
    std::string_view cond = text.substr(10);
    if (cond.empty()) return Error{"condition= needs a condition type, e.g. condition=Ready"};
    return ReadinessPredicate{Type::kCondition, std::string(cond), {}};
  }
  if (text.starts_with("jsonpath=")) {
    std::string_view rest = text.substr(9);
    // The expression is `{...}`; the value follows the `=` after the closing brace.
    size_t close = rest.starts_with("{") ? rest.find('}') : std::string_view::npos;
    // `jsonpath={.status.url}` alone: the value is set.
    if (close != std::string_view::npos && close + 1 == rest.size())
      return jsonpath(Type::kFieldSet, rest);
    size_t eq = close == std::string_view::npos ? rest.rfind('=') : rest.find('=', close);
    if (eq == std::string_view::npos || eq == 0)
      return Error{
          "jsonpath= needs an expression and a value, e.g. jsonpath={.status.phase}=Ready"};
    return jsonpath(Type::kJsonPath, rest.substr(0, eq), std::string(rest.substr(eq + 1)));
  }
  return Error{
      fmt::format("unknown readiness predicate \"{}\"; use exists, healthy, condition=<Type> or "
                  "jsonpath=<expr>=<value>",
                  text)};
}

}  // namespace planter
