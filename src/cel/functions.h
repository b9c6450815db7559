// CEL's functions by name: the standard ones (size, contains, startsWith, endsWith, matches, the
// conversions int, uint, double, string, bytes, bool, type, dyn) and the Kubernetes libraries
// Dynamic Resource Allocation's environment has (strings: lowerAscii, upperAscii, trim, split,
// join, replace, indexOf; quantity; semver). Each is looked up once, when an expression is parsed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "cel/value.h"

namespace planter::cel {

// What a function call may spend: each function charges what it reads (a string's length, a
// list's size), as cel-go's runtime cost estimates do.
struct Spend {
  uint64_t cost = 0;
};

struct Function {
  std::string_view name;
  bool method;  // called as `target.name(args)` (the target is args[0]); else `name(args)`
  // Returns the value, or an error value ("no such overload" when the arguments' kinds are not
  // the function's).
  Value (*call)(std::span<const Value> args, Spend& spend);
};

// The entry of `name` called as a method (or not), or nullopt when CEL's environment has none.
std::optional<int16_t> find_function(std::string_view name, bool method);
const Function& function_at(int16_t index);

// A semantic version as semver("1.2.3") reads it (a DRA attribute of type version), or an error.
Value parse_semver(std::string_view text);

// "no such overload: size(int)": the message for arguments of kinds a function does not take.
Value no_overload(std::string_view name, std::span<const Value> args);

}  // namespace planter::cel
