// Decoding one UTF-8 sequence, for the YAML readers (the block reader sends what it does not
// cover to libfyaml, and what is not UTF-8 at all is refused before libfyaml sees it) and CEL's
// lexer; and encoding a code point, for the escapes both decode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace planter {

// The length of the well-formed UTF-8 sequence at `i` (1 to 4), its code point in `cp`; 0 when
// the bytes there are not one (a stray continuation byte, a cut sequence, an overlong form, a
// surrogate, past U+10FFFF).
inline size_t utf8_sequence(std::string_view text, size_t i, uint32_t& cp) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  unsigned char c = s[i];
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
  if (len == 0 || c > 0xf4 || i + len > text.size()) return 0;
  cp = c & (len == 2 ? 0x1fu : len == 3 ? 0x0fu : 0x07u);
  for (size_t k = 1; k < len; ++k) {
    if ((s[i + k] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i + k] & 0x3fu);
  }
  bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

// Appends code point `cp` (at most U+10FFFF, not a surrogate) to `out` as UTF-8.
inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace planter
