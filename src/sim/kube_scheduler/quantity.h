// Resource quantities as Kubernetes writes them ("100m", "1.5", "512Mi", "2G", "1e3"), read by
// the sim's scheduler and controllers. The sim's own reader: planter's scheduling code reads
// quantities elsewhere, so that a mistake in one is caught by the other.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string_view>

namespace planter::sim::sched {

// A quantity in thousandths of its unit (millicores for cpu, millibytes for memory), rounded up
// as resource.Quantity's MilliValue is; saturates at INT64_MAX. nullopt when `text` is not a
// quantity.
std::optional<int64_t> parse_milli(std::string_view text);

// A quantity written as a JSON string or number (YAML `cpu: 2`); nullopt for anything else.
std::optional<int64_t> parse_milli(const boost::json::value* value);

// The whole units of a milli amount, rounded up (Quantity.Value()).
inline int64_t whole_units(int64_t milli) {
  return milli / 1000 + (milli % 1000 > 0 ? 1 : 0);
}

}  // namespace planter::sim::sched
