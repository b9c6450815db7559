// A duration as Kubernetes writes one (metav1.Duration, Go's time.ParseDuration): "90s", "5m",
// "1h30m", "1.5h", "250ms".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace planter {

// nullopt when `text` is not a duration (or is beyond 30 years: a typo).
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The short form a person reads: "10m", "1h30m", "45s", "250ms".
std::string format_duration(std::chrono::milliseconds d);

}  // namespace planter
