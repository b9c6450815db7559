#include "model/yaml_quoted.h"

#include <cstdint>

#include "model/utf8.h"

namespace planter {

namespace {

bool is_white(char c) {
  return c == ' ' || c == '\t';
}

// The length of the line break at i, 0 when there is none. Line breaks are YAML 1.1's, as kubectl's
// go-yaml and PyYAML read them: LF, CRLF, CR and NEL, and LS and PS, which stay in the text
// (`kept`: the break's own bytes) where the others fold.
size_t break_at(std::string_view s, size_t i, std::string_view* kept = nullptr) {
  if (kept) *kept = {};
  if (i >= s.size()) return 0;
  if (s[i] == '\n') return 1;
  if (s[i] == '\r') return i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
  if (s.substr(i, 2) == "\xc2\x85") return 2;
  if (s.substr(i, 3) == "\xe2\x80\xa8" || s.substr(i, 3) == "\xe2\x80\xa9") {
    if (kept) *kept = s.substr(i, 3);
    return 3;
  }
  return 0;
}

// The breaks of the empty lines that follow a line break (white space only), each a line feed
// or the LS or PS it is; `i` moves to the next line's text, past its indentation.
void empty_lines(std::string_view s, size_t& i, std::string& breaks) {
  while (true) {
    size_t j = i;
    while (j < s.size() && is_white(s[j])) ++j;
    std::string_view kept;
    size_t b = break_at(s, j, &kept);
    if (b == 0) {
      i = j;
      return;
    }
    if (kept.empty())
      breaks += '\n';
    else
      breaks += kept;
    i = j + b;
  }
}

// The escape after a backslash at i - 1 (c-ns-esc-char); the position after it, or npos.
size_t escape(std::string_view s, size_t i, std::string& out) {
  static constexpr std::string_view kFrom = "0abt\tnvfre \"/\\";
  static constexpr std::string_view kTo{"\0\a\b\t\t\n\v\f\r\x1b \"/\\", kFrom.size()};
  static constexpr std::string_view kUnicodeFrom = "N_LP";
  static constexpr uint32_t kUnicodeTo[] = {0x85, 0xa0, 0x2028, 0x2029};
  if (i >= s.size()) return std::string_view::npos;
  char e = s[i++];
  if (size_t k = kFrom.find(e); k != std::string_view::npos) {
    out += kTo[k];
    return i;
  }
  if (size_t k = kUnicodeFrom.find(e); k != std::string_view::npos) {
    append_utf8(out, kUnicodeTo[k]);
    return i;
  }
  size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
  if (digits == 0 || i + digits > s.size()) return std::string_view::npos;
  uint32_t cp = 0;
  for (size_t k = 0; k < digits; ++k) {
    char h = s[i + k];
    uint32_t d = h >= '0' && h <= '9'   ? static_cast<uint32_t>(h - '0')
                 : h >= 'a' && h <= 'f' ? static_cast<uint32_t>(h - 'a' + 10)
                 : h >= 'A' && h <= 'F' ? static_cast<uint32_t>(h - 'A' + 10)
                                        : 0xffu;
    if (d == 0xffu) return std::string_view::npos;
    cp = cp * 16 + d;
  }
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::string_view::npos;
  append_utf8(out, cp);
  return i + digits;
}

}  // namespace

std::optional<std::string> decode_quoted_scalar(std::string_view s, char quote) {
  std::string out;
  out.reserve(s.size());
  // out's length without the white space that ends the current line, which folds away; escaped
  // characters and the first line's leading white space are content and stay.
  size_t keep = 0;
  size_t i = 0;
  std::string breaks;
  while (i < s.size()) {
    char c = s[i];
    std::string_view kept;
    if (size_t b = break_at(s, i, &kept)) {
      // A folded break: trailing white space goes, and the next lines' indentation; one LF alone
      // is a space, with empty lines after it each is a line feed; an LS or PS stays, and the
      // empty lines after it add theirs.
      out.resize(keep);
      i += b;
      breaks.clear();
      empty_lines(s, i, breaks);
      if (!kept.empty())
        out.append(kept).append(breaks);
      else if (breaks.empty())
        out += ' ';
      else
        out += breaks;
      keep = out.size();
      continue;
    }
    if (c == quote) {
      if (quote == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
        out += '\'';
        keep = out.size();
        i += 2;
        continue;
      }
      return std::nullopt;  // a quote that would have closed the scalar
    }
    if (c == '\\' && quote == '"') {
      size_t b = break_at(s, i + 1);
      if (b != 0) {
        // An escaped break: the white space before the '\' stays, the break goes, each empty
        // line after it is a line feed (or its LS or PS), the next line's indentation goes.
        i += 1 + b;
        breaks.clear();
        empty_lines(s, i, breaks);
        out += breaks;
        keep = out.size();
        continue;
      }
      i = escape(s, i + 1, out);
      if (i == std::string_view::npos) return std::nullopt;
      keep = out.size();
      continue;
    }
    out += c;
    if (!is_white(c)) keep = out.size();
    ++i;
  }
  return out;
}

}  // namespace planter
