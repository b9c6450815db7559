#include "model/duration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace planter {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  double total_ms = 0;
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
      ++digits;
    if (digits == 0) return std::nullopt;
    double value = 0;
    std::string number(text.substr(0, digits));
    if (std::count(number.begin(), number.end(), '.') > 1 || number == ".") return std::nullopt;
    value = std::stod(number);
    text.remove_prefix(digits);
    double unit = 0;
    for (auto [name, ms] : {std::pair<std::string_view, double>{"ms", 1},
                            {"h", 3'600'000},
                            {"m", 60'000},
                            {"s", 1'000}})
      if (text.starts_with(name)) {
        unit = ms;
        text.remove_prefix(name.size());
        break;
      }
    if (unit == 0) return std::nullopt;
    total_ms += value * unit;
  }
  if (total_ms > 1e12) return std::nullopt;  // beyond 30 years: a typo
  return std::chrono::milliseconds(static_cast<int64_t>(total_ms));
}

std::string format_duration(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms % 1000 != 0 || ms == 0) return fmt::format("{}ms", ms);
  int64_t s = ms / 1000;
  std::string out;
  if (s >= 3600) out += fmt::format("{}h", s / 3600);
  if (s % 3600 >= 60) out += fmt::format("{}m", s % 3600 / 60);
  if (s % 60 != 0) out += fmt::format("{}s", s % 60);
  return out;
}

}  // namespace planter
