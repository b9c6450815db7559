// Timestamps as planter's long-running processes (the operator, the scheduler) write them: RFC
// 3339 in UTC, with microseconds (a MicroTime, and log lines) or whole seconds (a Time:
// conditions, Events). Below both, so that neither includes the other (DESIGN.md, src/daemon).
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <string>

namespace planter::daemon {

inline std::string rfc3339(std::chrono::system_clock::time_point t, bool micros) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::time_t s = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (micros) out += fmt::format(".{:06}", us % 1'000'000);
  return out + "Z";
}

}  // namespace planter::daemon
