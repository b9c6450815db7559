// RFC 3339 times as Kubernetes writes them (metav1.Time: "2026-11-21T10:00:00Z").
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace planter {

// "2026-11-21T10:00:00Z" (fractions and offsets allowed) -> a time point; nullopt if malformed.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace planter
