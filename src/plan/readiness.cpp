#include "plan/readiness.h"

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

}  // namespace planter
