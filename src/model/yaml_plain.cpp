#include "model/yaml_plain.h"

#include <boost/json.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace planter {

namespace json = boost::json;

namespace {

bool looks_like_float(std::string_view s) {
  // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

}  // namespace

std::string key_text(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_null()) return "null";
  if (v.is_bool()) return v.get_bool() ? "true" : "false";
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  if (v.is_double()) {
    double d = v.get_double();
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d < 0 ? "-.inf" : ".inf";
    char buf[64];
    auto [end, ec] =
        std::to_chars(buf, buf + sizeof buf, static_cast<float>(d), std::chars_format::general);
    return std::string(buf, ec == std::errc() ? end : buf);
  }
  return json::serialize(v);
}

// As kubectl resolves a plain scalar: sigs.k8s.io/yaml reads YAML with go-yaml v2 (YAML 1.1's
// booleans, Go's integer syntax), so a seed means to planter what it means to `kubectl apply`
// (docs/yaml.md lists where that differs from YAML 1.2 and from PyYAML).
json::value resolve_plain_scalar(std::string_view s, const json::storage_ptr& sp) {
  static constexpr std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "y",  "Y", "yes",
                                               "Yes",  "YES",  "on",   "On", "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "n",   "N",  "no",
                                                "No",    "NO",    "off",   "Off", "OFF"};
  auto in = [&](const auto& words) {
    return std::find(std::begin(words), std::end(words), s) != std::end(words);
  };
  if (s.size() <= 5) {
    if (in(kNull)) return nullptr;
    if (in(kTrue)) return true;
    if (in(kFalse)) return false;
  }
  char c = s[0];
  std::string_view body = (c == '-' || c == '+') ? s.substr(1) : s;
  if (body == ".inf" || body == ".Inf" || body == ".INF")
    return c == '-' ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  if (c == '.') {
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (looks_like_float(s) && ec == std::errc() && p == s.data() + s.size()) return d;
    return json::string(s, sp);
  }
  if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+'))
    return json::string(s, sp);
  // Go's strconv.ParseInt(s, 0, 64) after go-yaml drops every '_': a sign, then 0x, 0o, 0b or a
  // leading 0 (octal: kubectl reads 010 as 8), else decimal; past int64, ParseUint (no sign).
  std::string plain;
  plain.reserve(s.size());
  for (char ch : s)
    if (ch != '_') plain += ch;
  {
    std::string_view d = plain;
    bool neg = false, sign = false;
    if (!d.empty() && (d[0] == '-' || d[0] == '+')) {
      neg = d[0] == '-';
      sign = true;
      d.remove_prefix(1);
    }
    int base = 10;
    if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
      base = 16;
      d.remove_prefix(2);
    } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'o' || d[1] == 'O')) {
      base = 8;
      d.remove_prefix(2);
    } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
      base = 2;
      d.remove_prefix(2);
    } else if (d.size() > 1 && d[0] == '0') {
      base = 8;
      d.remove_prefix(1);
    }
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), u, base);
    if (!d.empty() && ec == std::errc() && p == d.data() + d.size()) {
      if (!neg && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return static_cast<int64_t>(u);
      if (neg && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1)
        return static_cast<int64_t>(0 - u);
      if (!sign) return u;
    }
  }
  if (looks_like_float(plain)) {
    double d = 0;
    size_t skip = plain[0] == '+' ? 1 : 0;
    auto [p, ec] = std::from_chars(plain.data() + skip, plain.data() + plain.size(), d);
    if (ec == std::errc() && p == plain.data() + plain.size()) return d;
  }
  return json::string(s, sp);
}

std::optional<std::string> plain_key_text(std::string_view s) {
  // Most keys are words (`name`, `spec`): only what go-yaml's resolve table hints at (its first
  // character: a digit, a sign, '.', or one of y n t f o ~ in a word of five at most) is resolved,
  // so that an ordinary key costs no allocation on the readers' hot path.
  char c = s.empty() ? '\0' : s[0];
  bool maybe = s.empty() || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
               c == '.' ||
               (s.size() <= 5 && std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos);
  if (!maybe) return std::nullopt;
  json::value v = resolve_plain_scalar(s, {});
  if (v.is_string()) return std::nullopt;
  if (v.is_null()) return std::string(s.empty() ? "null" : s);
  return key_text(v);
}

}  // namespace planter
