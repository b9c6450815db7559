#include "plan/cluster_spread_annotation.h"

#include <fmt/format.h>

#include <charconv>

#include "model/names.h"
#include "model/strings.h"
#include "plan/placement_annotations.h"

namespace planter {

namespace {

std::optional<int64_t> parse_skew(std::string_view text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxClusterCount)
    return std::nullopt;
  return n;
}

}  // namespace

Result<fit::ClusterSpread> parse_cluster_spread(std::string_view text) {
  fit::ClusterSpread out;
  bool keyed = false;
  for (std::string_view rest = text; !rest.empty();) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos)
      return Error{fmt::format("\"{}\" is not name=value", item)};
    std::string_view name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    if (name == "topologyKey") {
      if (std::string why = qualified_name_problem(value); !why.empty())
        return Error{fmt::format("topologyKey \"{}\" is not a label key: {}", value, why)};
      out.key = std::string(value);
      keyed = true;
    } else if (name == "maxSkew") {
      auto n = parse_skew(value);
      if (!n)
        return Error{fmt::format("maxSkew \"{}\" is not a whole number from 1 to {}", value,
                                 kMaxClusterCount)};
      out.max_skew = *n;
    } else if (name == "whenUnsatisfiable") {
      if (value != "DoNotSchedule" && value != "ScheduleAnyway")
        return Error{fmt::format(
            "whenUnsatisfiable \"{}\" is neither DoNotSchedule nor ScheduleAnyway", value)};
      out.hard = value == "DoNotSchedule";
    } else {
      return Error{fmt::format(
          "\"{}\" is not a field of a spread (topologyKey, maxSkew, whenUnsatisfiable)", name)};
    }
  }
  if (!keyed) return Error{"a spread needs a topologyKey"};
  return out;
}

std::string cluster_spread_annotation(const fit::ClusterSpread& spread) {
  return fmt::format("topologyKey={},maxSkew={},whenUnsatisfiable={}", spread.key, spread.max_skew,
                     spread.hard ? "DoNotSchedule" : "ScheduleAnyway");
}

}  // namespace planter
