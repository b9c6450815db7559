// kube-apiserver's rules for names, label keys and values, in its words: what the sim's object
// validation refuses, and what its node matching treats as a selector no node can match.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace planter::sim {

inline constexpr size_t kNameMax = 63;        // a qualified name's name part, a label value
inline constexpr size_t kSubdomainMax = 253;  // a DNS-1123 subdomain
inline constexpr const char* kQualifiedRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
inline constexpr const char* kLabelValueRule =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
inline constexpr const char* kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// RFC 1123 as kube-apiserver checks names: a label (Namespace and Service names; at most 63) and
// a subdomain (most kinds' names; at most 253).
bool is_rfc1123_label(std::string_view s);
// A label value (at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends, or empty)
// and a label key (a qualified name), as kube-apiserver's validation says.
bool is_label_value(std::string_view s);
bool is_label_key(std::string_view s);
bool is_rfc1123_subdomain(std::string_view s);

bool is_alnum(char c);
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], for a non-empty string.
bool is_qualified_token(std::string_view s);
// IsQualifiedName: the messages for a label or annotation key; empty when it is one.
std::vector<std::string> qualified_name_problems(std::string_view key);

}  // namespace planter::sim
