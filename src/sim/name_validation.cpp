#include "sim/name_validation.h"

namespace planter::sim {

namespace {

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, no length limit.
bool subdomain(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != '.') {
      char c = s[i];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
      continue;
    }
    std::string_view part = s.substr(start, i - start);
    if (part.empty() || part.front() == '-' || part.back() == '-') return false;
    start = i + 1;
  }
  return true;
}

}  // namespace

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_qualified_token(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::vector<std::string> qualified_name_problems(std::string_view key) {
  std::vector<std::string> out;
  std::string_view name = key;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      out.push_back(std::string("a qualified name ") + kQualifiedRule +
                    " with an optional DNS subdomain prefix and '/' (e.g. "
                    "'example.com/MyName')");
      return out;
    }
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      out.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > kSubdomainMax)
        out.push_back("prefix part must be no more than " + std::to_string(kSubdomainMax) +
                      " characters");
      if (!subdomain(prefix)) out.push_back(std::string("prefix part ") + kSubdomainRule);
    }
  }
  if (name.empty()) {
    out.emplace_back("name part must be non-empty");
    return out;
  }
  if (name.size() > kNameMax)
    out.push_back("name part must be no more than " + std::to_string(kNameMax) + " characters");
  if (!is_qualified_token(name)) out.push_back(std::string("name part ") + kQualifiedRule);
  return out;
}

bool is_label_value(std::string_view s) {
  return s.size() <= kNameMax && (s.empty() || is_qualified_token(s));
}

bool is_label_key(std::string_view s) {
  return qualified_name_problems(std::string(s)).empty();
}

bool is_rfc1123_label(std::string_view s) {
  return s.size() <= kNameMax && s.find('.') == std::string_view::npos && subdomain(s);
}

bool is_rfc1123_subdomain(std::string_view s) {
  return s.size() <= kSubdomainMax && subdomain(s);
}

}  // namespace planter::sim
