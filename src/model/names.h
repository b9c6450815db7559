// Kubernetes' name rules (RFC 1123, qualified names, label values), as the API server validates
// metadata.name, label keys and label values (k8s.io/apimachinery/pkg/util/validation).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace planter {

// A DNS-1123 label: lowercase alphanumerics and '-', at most 63, alphanumeric at both ends.
// Namespace and Service names.
inline bool is_dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      return false;
  return s.front() != '-' && s.back() != '-';
}

// A DNS-1123 subdomain: dot-separated labels, at most 253 in all. Most kinds' names.
inline bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  while (true) {
    size_t dot = s.find('.');
    std::string_view part = s.substr(0, dot);
    if (part.empty() || !is_dns_label(part)) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// The API server's description of a DNS-1123 subdomain.
inline constexpr std::string_view kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

// Why `key` is not a qualified name (`[prefix/]name`: a label or annotation key), in the API
// server's words; "" when it is one.
std::string qualified_name_problem(std::string_view key);

// Why `value` is not a label value, in the API server's words; "" when it is one.
std::string label_value_problem(std::string_view value);

}  // namespace planter
