// Small string helpers shared by the parsers of annotations and selectors. Views only: the
// results point into the input, which must outlive them.
#pragma once

#include <cctype>
#include <string_view>
#include <vector>

namespace planter {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on `sep`, keeping empty fields ("a||b" -> "a", "", "b").
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// A comma list as annotations write it: items trimmed, empty items dropped.
inline std::vector<std::string_view> split_list(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::string_view item : split(s, ','))
    if (!(item = trim(item)).empty()) out.push_back(item);
  return out;
}

}  // namespace planter
