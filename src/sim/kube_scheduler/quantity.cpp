#include "sim/kube_scheduler/quantity.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace planter::sim::sched {

namespace {

struct Suffix {
  std::string_view text;
  int base;      // 2 or 10
  int exponent;  // power of the base
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50},
    {"Ei", 2, 60}, {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},
    {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
};

}  // namespace

std::optional<int64_t> parse_milli(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  // The number: digits with at most one '.'.
  size_t number_start = i;
  bool dot = false, digits = false;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      digits = true;
    } else if (ch == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  std::string number(text.substr(number_start, i - number_start));
  std::string_view rest = text.substr(i);
  int base = 10, exponent = 0;
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1) {
    // A decimal exponent: "1e3", "5E-2".
    size_t j = 1;
    bool neg_exp = false;
    if (rest[j] == '+' || rest[j] == '-') neg_exp = rest[j++] == '-';
    if (j >= rest.size()) return std::nullopt;
    int e = 0;
    for (; j < rest.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(rest[j])) || e > 1000) return std::nullopt;
      e = e * 10 + (rest[j] - '0');
    }
    exponent = neg_exp ? -e : e;
  } else if (!rest.empty()) {
    bool found = false;
    for (const auto& s : kSuffixes)
      if (rest == s.text) {
        base = s.base;
        exponent = s.exponent;
        found = true;
        break;
      }
    if (!found) return std::nullopt;
  }
  // long double carries 64 bits of mantissa: exact for every quantity a pod or node writes.
  long double value = std::strtold(number.c_str(), nullptr);
  value *= std::pow(static_cast<long double>(base), exponent) * 1000.0L;
  if (negative) value = -value;
  long double rounded = std::ceil(value - 1e-9L);
  if (rounded >= static_cast<long double>(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  if (rounded <= static_cast<long double>(std::numeric_limits<int64_t>::min()))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(rounded);
}

std::optional<int64_t> parse_milli(const boost::json::value* value) {
  if (!value) return std::nullopt;
  if (value->is_string()) return parse_milli(std::string_view(value->as_string()));
  if (value->is_int64()) return parse_milli(std::to_string(value->as_int64()));
  if (value->is_uint64()) return parse_milli(std::to_string(value->as_uint64()));
  if (value->is_double()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9f", value->as_double());
    return parse_milli(std::string_view(buf));
  }
  return std::nullopt;
}

}  // namespace planter::sim::sched
