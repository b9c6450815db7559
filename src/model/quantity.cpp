#include "model/quantity.h"

#include <fmt/format.h>

#include <boost/json/value.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace planter {

std::optional<double> parse_signed_quantity(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    std::optional<double> amount = parse_quantity(text.substr(1));
    if (amount && text.front() == '-') *amount = -*amount;
    return amount;
  }
  return parse_quantity(text);
}

std::optional<double> parse_quantity(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // The suffix is the trailing run of letters (an exponent "e3" is digits after a letter).
  size_t end = text.size();
  while (end > 0 && std::isalpha(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string_view number = text.substr(0, end), suffix = text.substr(end);
  // "1e3" / "1E3": the letters were an exponent marker followed by digits.
  if (suffix.empty()) {
    size_t e = number.find_first_of("eE");
    if (e != std::string_view::npos) {
      double mantissa = 0;
      int exponent = 0;
      auto [p1, ec1] = std::from_chars(number.data(), number.data() + e, mantissa);
      auto [p2, ec2] = std::from_chars(number.data() + e + 1 + (number[e + 1] == '+' ? 1 : 0),
                                       number.data() + number.size(), exponent);
      if (ec1 != std::errc() || ec2 != std::errc() || p1 != number.data() + e ||
          p2 != number.data() + number.size())
        return std::nullopt;
      return mantissa * std::pow(10.0, exponent);
    }
  }
  if (number.empty() || number.front() == '+') return std::nullopt;
  double value = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || p != number.data() + number.size() || value < 0) return std::nullopt;
  static constexpr std::pair<std::string_view, double> kScale[] = {{"", 1},
                                                                   {"m", 1e-3},
                                                                   {"u", 1e-6},
                                                                   {"n", 1e-9},
                                                                   {"k", 1e3},
                                                                   {"M", 1e6},
                                                                   {"G", 1e9},
                                                                   {"T", 1e12},
                                                                   {"P", 1e15},
                                                                   {"E", 1e18},
                                                                   {"Ki", 1024.0},
                                                                   {"Mi", 1048576.0},
                                                                   {"Gi", 1073741824.0},
                                                                   {"Ti", 1099511627776.0},
                                                                   {"Pi", 1125899906842624.0},
                                                                   {"Ei", 1152921504606846976.0}};
  for (const auto& [s, scale] : kScale)
    if (suffix == s) return value * scale;
  return std::nullopt;
}

std::string quantity_text(const boost::json::value* v) {
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  if (v->is_double()) {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v->as_double());
    return ec == std::errc() ? std::string(buf, p) : "";
  }
  return "";
}

std::string cpu_text(double cores) {
  if (cores <= 0) return "0";
  if (cores < 1) return fmt::format("{}m", static_cast<int64_t>(std::ceil(cores * 1000 - 1e-6)));
  return fmt::format("{:g}", std::ceil(cores * 1000 - 1e-6) / 1000);
}
std::string memory_text(double bytes) {
  constexpr double kGi = 1024.0 * 1024 * 1024, kMi = 1024.0 * 1024;
  if (bytes <= 0) return "0";
  if (bytes >= kGi) return fmt::format("{:g}Gi", std::round(bytes / kGi * 100) / 100);
  return fmt::format("{:g}Mi", std::ceil(bytes / kMi - 1e-9));
}

}  // namespace planter
