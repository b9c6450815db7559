// libFuzzer target: the sim's CRD validation (src/sim/schema.h), a schema and an object from any
// bytes (two JSON documents, separated by a newline, and optionally a third, the object before an
// update, for transition rules), defaulted and validated as kube-apiserver would. Hostile patterns
// included: matching is RE2 (linear time), so no input hangs or overflows the stack.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace json = boost::json;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t split = input.find('\n');
  if (split == std::string_view::npos) return 0;
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 64;
  json::value schema = json::parse(input.substr(0, split), ec, {}, options);
  if (ec) return 0;
  std::string_view rest = input.substr(split + 1);
  size_t second = rest.find('\n');
  json::value object = json::parse(rest.substr(0, second), ec, {}, options);
  if (ec || !object.is_object()) return 0;
  json::value old;
  std::string_view third =
      second == std::string_view::npos ? std::string_view() : rest.substr(second + 1);
  if (third.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    old = json::parse(third, ec, {}, options);
    if (ec || !old.is_object()) return 0;
  }
  planter::sim::apply_schema_defaults(schema, object.as_object());
  auto violations = planter::sim::validate_against_schema(
      schema, object.as_object(), old.is_object() ? &old.as_object() : nullptr);
  (void)violations;
  return 0;
}
