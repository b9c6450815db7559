#include "sim/request_target.h"

#include <optional>

namespace planter::sim {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded; in a query (`plus_is_space`), `+` is a space too. Nothing when a `%` is not
// followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) return std::nullopt;
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string split_request_target(std::string_view target, Request& req) {
  size_t q = target.find('?');
  std::string_view raw_path = target.substr(0, q);
  std::string path =
      percent_decode(raw_path, /*plus_is_space=*/false).value_or(std::string(raw_path));
  if (q != std::string_view::npos) {
    std::string_view qs = target.substr(q + 1);
    while (!qs.empty()) {
      size_t amp = qs.find('&');
      std::string_view pair = qs.substr(0, amp);
      size_t eq = pair.find('=');
      auto key = percent_decode(pair.substr(0, eq), true);
      auto value = eq == std::string_view::npos ? std::optional<std::string>("")
                                                : percent_decode(pair.substr(eq + 1), true);
      if (key && value && !key->empty()) req.query.emplace(std::move(*key), std::move(*value));
      if (amp == std::string_view::npos) break;
      qs.remove_prefix(amp + 1);
    }
  }
  return path;
}

}  // namespace planter::sim
