#include "model/names.h"

#include <fmt/format.h>

namespace planter {

namespace {

constexpr std::string_view kQualifiedRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueRule =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, the name part of a label key and a label value.
bool is_qualified_word(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

}  // namespace

std::string qualified_name_problem(std::string_view key) {
  std::string_view name = key;
  size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (!is_dns_subdomain(prefix)) return fmt::format("prefix part {}", kSubdomainRule);
    if (name.find('/') != std::string_view::npos)
      return "a qualified name must be a name with an optional DNS subdomain prefix and '/'";
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!is_qualified_word(name)) return fmt::format("name part {}", kQualifiedRule);
  return {};
}

std::string label_value_problem(std::string_view value) {
  if (value.size() > 63) return "must be no more than 63 characters";
  if (!value.empty() && !is_qualified_word(value)) return std::string(kLabelValueRule);
  return {};
}

}  // namespace planter
