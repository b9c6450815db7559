// planter's YAML writer (model/yaml.h's to_yaml and to_yaml_stream): block YAML that YAML 1.1
// and 1.2 readers (PyYAML, go-yaml, ruamel.yaml, planter) all read back as written (docs/yaml.md).
#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "model/utf8.h"
#include "model/yaml.h"
#include "model/yaml_plain.h"

namespace planter {

namespace json = boost::json;

namespace {

// A writer for JSON values as block YAML. libfyaml 0.7.12's event emitter renders a block mapping
// inside a block sequence as a broken flow sequence (see docs/decisions.md), so planter writes
// YAML itself; parse_yaml_stream reads back exactly what it wrote (tests/unit/yaml_test.cpp).
class Writer {
 public:
  std::string take() { return std::move(out_); }

  void document(const json::value& v) {
    if (is_collection(v) && !empty_collection(v)) {
      block(v, 0);
    } else {
      scalar(v);
      out_ += '\n';
    }
  }

 private:
  static bool is_collection(const json::value& v) { return v.is_object() || v.is_array(); }
  static bool empty_collection(const json::value& v) {
    return v.is_object() ? v.get_object().empty() : v.get_array().empty();
  }

  void indent(int n) { out_.append(static_cast<size_t>(n), ' '); }

  // Writes a non-empty collection whose first line starts at the current position (already
  // indented to `level`); later lines are indented to `level`.
  void block(const json::value& v, int level) {
    bool first = true;
    if (v.is_object()) {
      for (const auto& kv : v.get_object()) {
        if (!first) indent(level);
        first = false;
        key(kv.key(), level);
        out_ += ':';
        value_after(kv.value(), level, /*in_sequence=*/false);
      }
      return;
    }
    for (const auto& item : v.get_array()) {
      if (!first) indent(level);
      first = false;
      out_ += '-';
      value_after(item, level, /*in_sequence=*/true);
    }
  }

  // Writes a value after "key:" or "-".
  void value_after(const json::value& v, int level, bool in_sequence) {
    if (!is_collection(v) || empty_collection(v)) {
      out_ += ' ';
      scalar(v, level + 2);
      out_ += '\n';
      return;
    }
    if (in_sequence) {
      // "- key: value" with the mapping's further keys aligned under the first.
      out_ += ' ';
      return block(v, level + 2);
    }
    out_ += '\n';
    // Sequences under a key stay at the key's indentation, as kubectl writes them.
    int child = v.is_array() ? level : level + 2;
    indent(child);
    block(v, child);
  }

  void scalar(const json::value& v, int level = 0) {
    switch (v.kind()) {
      case json::kind::object:
        out_ += "{}";
        break;
      case json::kind::array:
        out_ += "[]";
        break;
      case json::kind::string:
        string(v.get_string(), level);
        break;
      case json::kind::null:
        out_ += "null";
        break;
      case json::kind::bool_:
        out_ += v.get_bool() ? "true" : "false";
        break;
      case json::kind::double_:
        number(v.get_double());
        break;
      default:
        out_ += json::serialize(v);
        break;
    }
  }

  // A float as YAML 1.1 readers (PyYAML, go-yaml v2) read one too: with a '.' and, when there is
  // an exponent, its sign (`0.005`, `1.0e+20`), where JSON's `5E-3` would be a string to them.
  void number(double d) {
    if (std::isnan(d)) {
      out_ += ".nan";
      return;
    }
    if (std::isinf(d)) {
      out_ += d < 0 ? "-.inf" : ".inf";
      return;
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    std::string text(buf, ec == std::errc() ? end : buf);
    size_t e = text.find('e');
    if (text.find('.') == std::string::npos)
      text.insert(e == std::string::npos ? text.size() : e, ".0");
    out_ += text;
  }

  // A mapping key: never a block scalar (a key is one line), and `<<` quoted, which a plain key
  // would make a merge key for YAML 1.1 readers. A key longer than a simple key may be (1024
  // characters) is written as an explicit one, `? key` then `:` on the next line.
  void key(std::string_view s, int level) {
    bool plain = plain_safe(s);
    bool explicit_key = s.size() > 1000;
    if (explicit_key) out_ += "? ";
    if (plain)
      out_ += s;
    else
      quoted(s);
    if (explicit_key) {
      out_ += '\n';
      indent(level);
    }
  }

  // Strings a YAML 1.1 reader takes for something else: kubectl (go-yaml) reads `on` as true,
  // PyYAML reads `1:20` as 80. planter reads YAML 1.2, but what it writes is quoted for both.
  static bool yaml11_special(std::string_view s) {
    static constexpr std::string_view kWords[] = {"y",  "Y",   "yes", "Yes", "YES", "n",
                                                  "N",  "no",  "No",  "NO",  "on",  "On",
                                                  "ON", "off", "Off", "OFF"};
    if (s.size() <= 3)
      for (std::string_view w : kWords)
        if (s == w) return true;
    // YAML 1.1's value key and merge key; and its timestamps (`2024-01-02`, which PyYAML reads
    // as a date).
    if (s == "=" || s == "<<") return true;
    if (s.size() >= 8 && s.find_first_not_of("0123456789") == 4 && s[4] == '-') return true;
    // Numbers with `_` separators and base 60 (`1:20`, `-1_000`, `0b101`).
    std::string_view digits = s.substr(s.front() == '-' || s.front() == '+' ? 1 : 0);
    if (digits.starts_with("0b") || digits.starts_with("0x"))
      return digits.size() > 2 &&
             digits.find_first_not_of("0123456789abcdefABCDEF_", 2) == std::string_view::npos;
    return !digits.empty() && std::isdigit(static_cast<unsigned char>(digits.front())) &&
           digits.find_first_not_of("0123456789abcdefABCDEF_:.") == std::string_view::npos &&
           digits.find_first_of("_:") != std::string_view::npos;
  }

  // A code point that YAML readers do not take as it stands: C0 controls but for tab and line
  // feed (which the caller decides on), DEL, the C1 controls (NEL is a line break to YAML 1.1),
  // the line and paragraph separators, a byte order mark, U+FFFE and U+FFFF (not printable, which
  // PyYAML refuses anywhere in a stream). Written escaped, in a double-quoted scalar.
  static bool needs_escape(uint32_t cp) {
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
  }
  // Whether `s` holds only what a plain or block scalar can carry (tabs and, when `breaks`, line
  // feeds aside, nothing needs_escape names; and UTF-8 that reads).
  static bool printable(std::string_view s, bool breaks) {
    for (size_t i = 0; i < s.size();) {
      uint32_t cp = 0;
      size_t len = utf8_sequence(s, i, cp);
      if (len == 0) return false;
      if (needs_escape(cp) && !(breaks && cp == '\n')) return false;
      i += len;
    }
    return true;
  }

  // A double-quoted scalar: JSON's escapes for what needs one (all valid YAML escapes), and
  // YAML's \N, \L, \P, \uXXXX for the code points needs_escape names above 0x7e.
  void quoted(std::string_view s) {
    out_ += '"';
    for (size_t i = 0; i < s.size();) {
      uint32_t cp = 0;
      size_t len = utf8_sequence(s, i, cp);
      if (len == 0) {  // not UTF-8 (nothing planter read): each byte as the code point it is
        cp = static_cast<unsigned char>(s[i]);
        len = 1;
      }
      switch (cp) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case 0x85:
          out_ += "\\N";
          break;
        case 0x2028:
          out_ += "\\L";
          break;
        case 0x2029:
          out_ += "\\P";
          break;
        default:
          if (needs_escape(cp) || (len == 1 && cp >= 0x80))
            out_ += fmt::format("\\u{:04X}", cp);
          else
            out_.append(s.substr(i, len));
      }
      i += len;
    }
    out_ += '"';
  }

  static bool plain_safe(std::string_view s) {
    if (s.empty() || !resolve_plain_scalar(s, {}).is_string() || yaml11_special(s)) return false;
    if (!printable(s, false) || s.find('\t') != std::string_view::npos) return false;
    if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos &&
        !(s.front() == '-' && s.size() > 1 && s[1] != ' ' && s != "---"))
      return false;
    if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    return s.find(": ") == std::string_view::npos && s.find(" #") == std::string_view::npos &&
           s.find(":\t") == std::string_view::npos;
  }

  static bool literal_safe(std::string_view s) {
    if (s.find('\n') == std::string_view::npos || s.front() == ' ' || s.front() == '\n')
      return false;
    if (!printable(s, true)) return false;
    // Trailing spaces on a line would be kept, but are easy to misread; quote those instead.
    return s.find(" \n") == std::string_view::npos;
  }

  void string(std::string_view s, int level = 0) {
    if (plain_safe(s)) {
      out_ += s;
      return;
    }
    if (literal_safe(s)) {
      size_t trailing = 0;
      while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
      out_ += trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+";
      std::string_view body = s.substr(0, s.size() - trailing);
      size_t start = 0;
      while (start <= body.size()) {
        size_t nl = body.find('\n', start);
        if (nl == std::string_view::npos) nl = body.size();
        out_ += '\n';
        if (nl > start) indent(level);
        out_.append(body.substr(start, nl - start));
        start = nl + 1;
      }
      for (size_t i = 1; i < trailing; ++i) out_ += '\n';
      return;
    }
    quoted(s);
  }

  std::string out_;
};

}  // namespace

std::string to_yaml(const json::value& v) {
  Writer w;
  w.document(v);
  return w.take();
}

std::string to_yaml_stream(const std::vector<const json::value*>& docs) {
  std::string out;
  for (const json::value* d : docs) {
    out += "---\n";
    Writer one;
    one.document(*d);
    out += one.take();
  }
  return out;
}

}  // namespace planter
