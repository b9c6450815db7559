// A reader for the block-style subset of YAML (see yaml_block.h for what it accepts).
//
// It walks the text line by line. A node is parsed where it starts (a line and a column); block
// collections own the lines indented under them. Whatever the subset does not cover throws
// Unsupported, and the caller reads the whole stream with libfyaml instead: this reader only has to
// be right about what it accepts, never about what is wrong with a stream.
#include "model/yaml_block.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstring>
#include <deque>
#include <string>
#include <thread>

#include "model/arena.h"
#include "model/utf8.h"
#include "model/yaml_plain.h"
#include "model/yaml_quoted.h"

namespace planter {

namespace json = boost::json;

namespace {

// Where the reader gave up (its own source line, for tests and for finding what to support next).
struct Unsupported {
  unsigned reader_line;
};

// __builtin_LINE() rather than std::source_location: clang 14 (the fuzzing build) has no
// std::source_location with libstdc++ 12.
[[noreturn]] void unsupported(unsigned line = __builtin_LINE()) {
  throw Unsupported{line};
}

// Bytes and sequences that send a stream to libfyaml: control characters (tab and CR included),
// DEL, C1 controls, NEL, LS, PS, U+FFFE/U+FFFF, a BOM anywhere, invalid UTF-8; and lines that start
// with a directive (`%`) or a document end (`...`).
bool needs_full_reader(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  bool line_start = true;
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\n') return true;
      if (c == 0x7f) return true;
      if (line_start && (c == '%' || (c == '.' && i + 2 < n && s[i + 1] == '.' && s[i + 2] == '.')))
        return true;
      line_start = c == '\n';
      ++i;
      continue;
    }
    line_start = false;
    uint32_t cp = 0;
    size_t len = utf8_sequence(text, i, cp);
    if (len == 0) return true;
    if (cp <= 0x9f || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || cp == 0xfffe || cp == 0xffff)
      return true;
    i += len;
  }
  return false;
}

// Characters that may not start a plain scalar (YAML 1.2 c-indicator, less `-?:` which may when a
// non-space follows).
bool is_indicator(char c) {
  return std::string_view(",[]{}#&*!|>'\"%@`").find(c) != std::string_view::npos;
}

bool is_flow_indicator(char c) {
  return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

class BlockReader {
 public:
  BlockReader(std::string_view text, json::storage_ptr sp) : t_(text), sp_(std::move(sp)) {}

  int line() const { return line_no_; }

  std::vector<YamlDocument> read() {
    std::vector<YamlDocument> docs;
    const Line* l = &next();
    if (l->kind == Line::kContent) docs.push_back(document());
    while (l = &next(), l->kind == Line::kMarker) {
      size_t p = l->begin + 3;
      skip_spaces(p, l->end);
      if (p < l->end && !(t_[p] == '#' && t_[p - 1] == ' ')) unsupported();  // `--- value`
      consume();
      docs.push_back(document());
    }
    return docs;
  }

 private:
  struct Line {
    enum Kind { kContent, kMarker, kEnd } kind = kEnd;
    size_t begin = 0;  // first character
    size_t end = 0;    // the '\n' or the end of the text
    int indent = 0;    // leading spaces
    int number = 0;    // 1-based
    size_t first() const { return begin + static_cast<size_t>(indent); }
  };

  // The next line that is not blank and not only a comment (cached until consume()).
  const Line& next() {
    while (raw_line().kind == Line::kContent && (blank(line_) || t_[line_.first()] == '#'))
      consume();
    return line_;
  }

  // The line at pos_ as it is, blank or comment or not (cached until consume()).
  const Line& raw_line() {
    if (have_line_) return line_;
    have_line_ = true;
    Line& l = line_;
    l.number = line_no_;
    l.begin = pos_;
    if (pos_ >= t_.size()) {
      l.kind = Line::kEnd;
      l.end = pos_;
      l.indent = 0;
      return l;
    }
    const void* nl = std::memchr(t_.data() + pos_, '\n', t_.size() - pos_);
    l.end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - t_.data()) : t_.size();
    size_t p = pos_;
    while (p < l.end && t_[p] == ' ') ++p;
    l.indent = static_cast<int>(p - pos_);
    bool marker = p == pos_ && l.end - p >= 3 && t_.compare(p, 3, "---") == 0 &&
                  (l.end - p == 3 || t_[p + 3] == ' ');
    l.kind = marker ? Line::kMarker : Line::kContent;
    return l;
  }

  bool blank(const Line& l) const { return l.first() == l.end; }

  void consume() {
    pos_ = line_.end < t_.size() ? line_.end + 1 : line_.end;
    ++line_no_;
    have_line_ = false;
  }

  void skip_spaces(size_t& p, size_t end) const {
    while (p < end && t_[p] == ' ') ++p;
  }

  int column(size_t p) const { return static_cast<int>(p - line_.begin); }

  // The rest of the line after a value: nothing, or a comment after a space.
  void expect_line_end(size_t p) const {
    size_t q = p;
    skip_spaces(q, line_.end);
    if (q == line_.end) return;
    if (t_[q] == '#' && t_[q - 1] == ' ') return;
    unsupported();
  }

  YamlDocument document() {
    const Line& l = next();
    if (l.kind != Line::kContent) return {};  // empty: libfyaml gives it no position (line 0)
    int line = l.number;
    // Only the elements of the root mapping's `items` sequence get their lines (a `*List`).
    std::vector<int> item_lines;
    size_t p = l.first();
    json::value root(sp_);
    if (is_dash(p))
      root = sequence(p, nullptr);
    else if (is_mapping_entry(p))
      root = mapping(p, &item_lines);
    else if (t_[p] == '|' || t_[p] == '>')
      unsupported();
    else
      root = inline_value(p, -1, nullptr);
    if (next().kind == Line::kContent) unsupported();  // more content after the root node
    // Constructed, not assigned: assigning would copy the value out of the stream's storage.
    return YamlDocument{std::move(root), line, std::move(item_lines)};
  }

  bool is_dash(size_t p) const { return t_[p] == '-' && (p + 1 == line_.end || t_[p + 1] == ' '); }

  // Where a plain scalar starting at p stops: at `: `/`:`EOL (returns true), or at ` #` or the end
  // of the line (returns false). `stop` is set to the position.
  bool scan_plain(size_t p, size_t& stop) const {
    const char* s = t_.data();
    size_t end = line_.end;
    for (size_t i = p; i < end; ++i) {
      char c = s[i];
      if (c == ':' && (i + 1 == end || s[i + 1] == ' ')) {
        stop = i;
        return true;
      }
      if (c == '#' && i > p && s[i - 1] == ' ') {
        stop = i;
        return false;
      }
    }
    stop = end;
    return false;
  }

  static std::string_view rtrim(std::string_view s) {
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  }

  // A mapping entry starts at p: a plain key followed by `: ` or `:`EOL, or a quoted one.
  bool is_mapping_entry(size_t p) {
    char c = t_[p];
    if (c == '"' || c == '\'') {
      std::string key;
      size_t q = quoted(p, key, kOneLine);
      if (q == std::string_view::npos) return false;
      skip_spaces(q, line_.end);
      return q < line_.end && t_[q] == ':' && (q + 1 == line_.end || t_[q + 1] == ' ');
    }
    if (!plain_may_start(p)) return false;
    size_t stop = 0;
    return scan_plain(p, stop);
  }

  bool plain_may_start(size_t p) const {
    char c = t_[p];
    if (is_indicator(c)) return false;
    if ((c == '-' || c == '?' || c == ':') && (p + 1 == line_.end || t_[p + 1] == ' '))
      return false;
    return true;
  }

  // A node that starts at position p of the current line. `parent` is the indentation of the
  // enclosing block collection; lines indented deeper than it belong to the node. If the node is a
  // sequence, the lines of its elements go to `item_lines` (when given).
  json::value block_node(size_t p, int parent, std::vector<int>* item_lines) {
    if (is_dash(p)) return sequence(p, item_lines);
    if (is_mapping_entry(p)) return mapping(p, nullptr);
    return inline_value(p, parent, item_lines);
  }

  // A value that starts on the current line at p: a block scalar, or a scalar or flow collection
  // that ends on this line. Afterwards no line may be indented deeper than `parent`.
  json::value inline_value(size_t p, int parent, std::vector<int>* item_lines) {
    json::value v(sp_);
    char c = t_[p];
    if (c == '|' || c == '>') {
      v = block_scalar(p, parent);
    } else {
      size_t q = p;
      if (c == '"' || c == '\'') {
        std::string s;
        q = quoted(p, s, parent);
        v = json::string(s, sp_);
      } else if (c == '[' || c == '{') {
        v = flow(q, item_lines);
      } else {
        if (!plain_may_start(p)) unsupported();
        size_t stop = 0;
        if (scan_plain(p, stop)) unsupported();  // `a: b: c`
        std::string_view first = rtrim(t_.substr(p, stop - p));
        bool comment = stop < line_.end;
        expect_line_end(stop);
        consume();
        // A comment ends a plain scalar; otherwise deeper lines continue it.
        std::string folded;
        bool continued = !comment && plain_continuation(first, parent, folded);
        return after_scalar(resolve_plain_scalar(continued ? folded : first, sp_), parent);
      }
      expect_line_end(q);
      consume();
    }
    return after_scalar(std::move(v), parent);
  }

  // After a scalar no line may be indented deeper than its parent collection.
  json::value after_scalar(json::value v, int parent) {
    const Line& n = next();
    if (n.kind == Line::kContent && n.indent > parent) unsupported();
    return v;
  }

  // The lines that continue a plain scalar whose first line was `first`: lines indented deeper
  // than `parent`, each trimmed, joined by a space (or by a line break per blank line between
  // them). Returns false, consuming nothing but blank lines, when there are none.
  bool plain_continuation(std::string_view first, int parent, std::string& out) {
    size_t blanks = 0;
    bool any = false;
    while (true) {
      const Line& l = raw_line();
      if (l.kind != Line::kContent) break;
      if (blank(l)) {
        ++blanks;
        consume();
        continue;
      }
      size_t p = l.first();
      if (l.indent <= parent || t_[p] == '#') break;
      if (parent < 0) unsupported();  // a multi-line root scalar
      // Any character may start a continuation line (libfyaml reads `- b` there as text), but
      // none may hold `: ` or ` #`.
      size_t stop = 0;
      if (scan_plain(p, stop) || stop != l.end) unsupported();
      if (!any) out.assign(first);
      any = true;
      if (blanks == 0)
        out += ' ';
      else
        out.append(blanks, '\n');
      out.append(rtrim(t_.substr(p, stop - p)));
      blanks = 0;
      consume();
    }
    return any;
  }

  // Collections are built once their size is known: growing them in the arena would leave every
  // outgrown buffer behind. Their items wait in a scratch vector per nesting depth (a deque, so
  // that a deeper level never moves a shallower one's vector).
  // Past kYamlMaxDepth the stream goes to libfyaml, whose reader says where the limit was crossed.
  struct Depth {
    size_t& depth;
    explicit Depth(size_t& d) : depth(++d) {
      if (depth > kYamlMaxDepth) unsupported();
    }
    ~Depth() { --depth; }
  };
  template <class T>
  static std::vector<T>& scratch(std::deque<std::vector<T>>& levels, size_t depth) {
    if (levels.size() < depth) levels.resize(depth);
    std::vector<T>& v = levels[depth - 1];
    v.clear();
    return v;
  }
  struct Entry {
    std::string_view key;
    json::value value;
  };

  json::value sequence(size_t p, std::vector<int>* item_lines) {
    Depth level(depth_);
    std::vector<json::value>& items = scratch(seq_scratch_, depth_);
    int d = column(p);
    while (true) {
      size_t q = p + 1;
      skip_spaces(q, line_.end);
      if (q == line_.end || t_[q] == '#') {  // the item starts on a later line, or is null
        consume();
        const Line& n = next();
        if (n.kind == Line::kContent && n.indent > d) {
          if (item_lines) item_lines->push_back(n.number);
          items.push_back(block_node(n.first(), d, nullptr));
        } else {
          unsupported();  // an empty item: libfyaml rejects some (`a:` `-` `b: 1`), not others
        }
      } else {
        if (item_lines) item_lines->push_back(line_.number);
        items.push_back(block_node(q, d, nullptr));
      }
      const Line& n = next();
      if (n.kind != Line::kContent || n.indent < d) break;
      if (n.indent > d) unsupported();
      p = n.first();
      if (!is_dash(p)) break;  // the parent mapping's next key, at the same indentation
    }
    json::array arr(sp_);
    arr.reserve(items.size());
    for (json::value& v : items) arr.push_back(std::move(v));
    return arr;
  }

  // A block mapping whose first key is at p. For the root mapping, `root_items` receives the lines
  // of the elements of its `items` sequence.
  json::value mapping(size_t p, std::vector<int>* root_items) {
    Depth level(depth_);
    std::vector<Entry>& entries = scratch(map_scratch_, depth_);
    int m = column(p);
    while (true) {
      std::string quoted_key;
      std::string_view key;
      size_t q = 0;
      if (t_[p] == '"' || t_[p] == '\'') {
        q = quoted(p, quoted_key, kOneLine);
        if (q == std::string_view::npos) unsupported();
        key = quoted_keys_.emplace_back(std::move(quoted_key));
        skip_spaces(q, line_.end);
        if (q == line_.end || t_[q] != ':' || (q + 1 < line_.end && t_[q + 1] != ' '))
          unsupported();  // not a key after all
      } else {
        if (!plain_may_start(p) || !scan_plain(p, q)) unsupported();
        key = rtrim(t_.substr(p, q - p));
        if (key == "<<") unsupported();  // merge keys
        if (auto resolved = plain_key_text(key))
          key = quoted_keys_.emplace_back(std::move(*resolved));
        // A key that starts with ':' after a multi-line plain scalar is refused by libfyaml (when
        // a flow collection came before), accepted by PyYAML: libfyaml decides (found by fuzzing).
        if (key.front() == ':') unsupported();
      }
      // q is at the ':'.
      ++q;
      skip_spaces(q, line_.end);
      std::vector<int>* item_lines = root_items && key == "items" ? root_items : nullptr;
      json::value v(sp_);
      if (q == line_.end || t_[q] == '#') {
        consume();
        const Line& n = next();
        if (n.kind == Line::kContent && n.indent > m)
          v = block_node(n.first(), m, item_lines);
        else if (n.kind == Line::kContent && n.indent == m && is_dash(n.first()))
          v = sequence(n.first(), item_lines);
      } else {
        v = inline_value(q, m, item_lines);
      }
      entries.push_back({key, std::move(v)});
      const Line& n = next();
      if (n.kind != Line::kContent || n.indent < m) break;
      if (n.indent > m) unsupported();
      p = n.first();
      if (is_dash(p)) unsupported();  // a sequence item after a key that had its value
    }
    json::object obj(sp_);
    obj.reserve(entries.size());
    for (Entry& e : entries)
      if (!obj.emplace(e.key, std::move(e.value)).second) unsupported();  // a duplicate key
    return obj;
  }

  static constexpr int kOneLine = -2;

  // A quoted scalar starting at the quote at p; returns the position after the closing quote.
  // With `parent` kOneLine it must close on this line (npos when it does not); otherwise it may go
  // on over lines indented deeper than `parent`, and line_ is then the line where it closes. The
  // text between the quotes is decoded by decode_quoted_scalar, as libfyaml's reading is.
  size_t quoted(size_t p, std::string& out, int parent) {
    char quote = t_[p];
    size_t i = p + 1;
    while (true) {
      size_t end = line_.end;
      while (i < end) {
        char c = t_[i];
        if (c == quote) {
          if (quote == '\'' && i + 1 < end && t_[i + 1] == '\'') {
            i += 2;
            continue;
          }
          auto text = decode_quoted_scalar(t_.substr(p + 1, i - p - 1), quote);
          if (!text) unsupported();  // libfyaml says what is wrong with it
          out = std::move(*text);
          return i + 1;
        }
        // An escape is two characters at least; at the line's end, an escaped line break.
        i += c == '\\' && quote == '"' ? 2 : 1;
      }
      if (parent == kOneLine) return std::string_view::npos;
      if (parent < 0) unsupported();  // a multi-line root scalar
      consume();
      while (raw_line().kind == Line::kContent && blank(line_)) consume();
      // Like libfyaml (and go-yaml), any indentation will do: the closing quote ends the scalar.
      if (line_.kind != Line::kContent) unsupported();
      i = line_.first();
    }
  }

  // A flow collection that ends on this line; p moves past its closing bracket.
  json::value flow(size_t& p, std::vector<int>* item_lines) {
    Depth level(depth_);
    char open = t_[p++];
    char close = open == '[' ? ']' : '}';
    size_t end = line_.end;
    json::value result =
        open == '[' ? json::value(json::array(sp_)) : json::value(json::object(sp_));
    while (true) {
      skip_spaces(p, end);
      if (p == end) unsupported();
      if (t_[p] == close) {
        ++p;
        return result;
      }
      if (open == '{') {
        std::string key_buf;
        std::string_view key;
        if (t_[p] == '"' || t_[p] == '\'') {
          p = quoted(p, key_buf, kOneLine);
          if (p == std::string_view::npos) unsupported();
          key = key_buf;
          skip_spaces(p, end);
          if (p == end || t_[p] != ':') unsupported();
        } else {
          size_t start = p;
          if (!flow_plain(p)) unsupported();  // `{a}` or `{a, b}`
          key = rtrim(t_.substr(start, p - start));
          if (key.empty() || key == "<<") unsupported();
          if (auto resolved = plain_key_text(key)) {
            key_buf = std::move(*resolved);
            key = key_buf;
          }
        }
        ++p;  // ':'
        skip_spaces(p, end);
        if (p == end || t_[p] == ',' || t_[p] == '}') unsupported();  // `{a: }`: null values
        json::value v = flow_item(p);
        if (!result.get_object().emplace(key, std::move(v)).second) unsupported();
      } else {
        if (item_lines) item_lines->push_back(line_.number);
        result.get_array().push_back(flow_item(p));
      }
      skip_spaces(p, end);
      if (p == end) unsupported();
      if (t_[p] == ',') {
        ++p;
      } else if (t_[p] != close) {
        unsupported();
      }
    }
  }

  json::value flow_item(size_t& p) {
    char c = t_[p];
    if (c == '[' || c == '{') return flow(p, nullptr);
    if (c == '"' || c == '\'') {
      std::string s;
      p = quoted(p, s, kOneLine);
      if (p == std::string_view::npos) unsupported();
      size_t q = p;
      skip_spaces(q, line_.end);
      if (q < line_.end && t_[q] == ':') unsupported();  // `["a": b]`: a pair in a sequence
      return json::string(s, sp_);
    }
    size_t start = p;
    if (flow_plain(p)) unsupported();
    std::string_view text = rtrim(t_.substr(start, p - start));
    if (text.empty()) unsupported();
    return resolve_plain_scalar(text, sp_);
  }

  // A plain scalar inside a flow collection; stops at a flow indicator, ` #`, or `:` followed by a
  // space or a flow indicator (returns true there). Leaves p at the stop.
  bool flow_plain(size_t& p) const {
    size_t end = line_.end;
    char c = t_[p];
    if (is_indicator(c)) unsupported();
    if ((c == '-' || c == '?' || c == ':') &&
        (p + 1 == end || t_[p + 1] == ' ' || is_flow_indicator(t_[p + 1])))
      unsupported();
    for (size_t i = p; i < end; ++i) {
      char ch = t_[i];
      if (ch == ':' && (i + 1 == end || t_[i + 1] == ' ' || is_flow_indicator(t_[i + 1]))) {
        p = i;
        return true;
      }
      if (is_flow_indicator(ch)) {
        p = i;
        return false;
      }
      if (ch == '#' && t_[i - 1] == ' ') unsupported();  // a comment inside a flow collection
    }
    p = end;
    return false;
  }

  // `|` or `>` at p, with an optional chomping indicator; the content is on the following lines,
  // indented deeper than `parent`.
  json::value block_scalar(size_t p, int parent) {
    // A header on a line of its own (`key:`, then `  >` below it) is left to libfyaml, which
    // 0.7.12 misreads twice there (found by fuzzing): text indented less than the header, valid
    // YAML measured from the parent, is refused; a last line of spaces deeper than the text is
    // dropped (`a:`, ` >`, ` x`, `  `: "x\n \n" by the spec and PyYAML, "x\n" by libfyaml).
    if (p == line_.first()) unsupported();
    bool folded = t_[p] == '>';
    char chomp = 'c';  // clip
    size_t q = p + 1;
    if (q < line_.end && (t_[q] == '-' || t_[q] == '+')) chomp = t_[q++];
    if (q < line_.end && t_[q] >= '0' && t_[q] <= '9') unsupported();  // indentation indicator
    expect_line_end(q);
    consume();

    // Lines of the scalar: the text after its indentation, or empty (begin == end).
    struct Piece {
      size_t begin, end;
    };
    std::vector<Piece> pieces;
    size_t indent = 0;  // found from the first line with text
    size_t max_blank = 0;
    for (const Line* l = &raw_line(); l->kind != Line::kEnd; consume(), l = &raw_line()) {
      auto spaces = static_cast<size_t>(l->indent);
      if (blank(*l)) {
        if (indent == 0) max_blank = std::max(max_blank, spaces);
        // Spaces beyond the indentation are text.
        pieces.push_back(indent != 0 && spaces > indent ? Piece{l->begin + indent, l->end}
                                                        : Piece{l->end, l->end});
        continue;
      }
      if (indent == 0) {
        if (l->indent <= parent) break;         // no text at all
        if (max_blank > spaces) unsupported();  // leading blank lines deeper than the text
        indent = spaces;
      }
      if (spaces < indent) break;
      pieces.push_back({l->begin + indent, l->end});
    }
    // The scalar ends with the last line that has text; blank lines after it are trailing.
    size_t last_text = pieces.size();
    for (size_t i = pieces.size(); i-- > 0;)
      if (pieces[i].begin != pieces[i].end) {
        last_text = i;
        break;
      }
    // No text: libfyaml 0.7.12 then takes lines at the key's own indentation as the text (`a: |`
    // over `b: 1` in a nested mapping gives "b: 1\n"), where the spec ends the scalar.
    if (last_text == pieces.size()) unsupported();
    // The stream ends on the scalar's last line, without a line break: by the spec there is no
    // final break to keep, and a last blank line without a break is no line (PyYAML reads `a: |+`
    // over ` x` as "x", and over ` x` and ` ` as "x\n"). This reader added the break (found by
    // fuzzing); libfyaml 0.7.12 agrees with the spec for keep and adds a break for clip. libfyaml
    // decides.
    if (pieces.back().end == t_.size()) unsupported();
    std::string out;
    bool prev_text = false, prev_normal = false;
    size_t empties = 0;
    for (size_t i = 0; i <= last_text; ++i) {
      const Piece& pc = pieces[i];
      if (pc.begin == pc.end) {
        ++empties;
        continue;
      }
      bool normal = t_[pc.begin] != ' ';
      if (!prev_text) {
        out.append(empties, '\n');
      } else if (!folded) {
        out.append(empties + 1, '\n');
      } else if (prev_normal && normal) {
        if (empties == 0)
          out += ' ';
        else
          out.append(empties, '\n');
      } else if (prev_normal && empties > 0) {
        // A more-indented line after empty lines: the spec keeps the break and each empty line;
        // libfyaml 0.7.12 drops one and appends a NUL to the scalar (found by fuzzing).
        unsupported();
      } else {
        out.append(empties + 1, '\n');
      }
      out.append(t_.data() + pc.begin, pc.end - pc.begin);
      empties = 0;
      prev_text = true;
      prev_normal = normal;
    }
    if (chomp != '-') out += '\n';
    if (chomp == '+') out.append(pieces.size() - 1 - last_text, '\n');
    return json::string(out, sp_);
  }

  std::string_view t_;
  json::storage_ptr sp_;
  size_t depth_ = 0;
  std::deque<std::vector<json::value>> seq_scratch_;
  std::deque<std::vector<Entry>> map_scratch_;
  std::deque<std::string> quoted_keys_;  // keys that are not slices of the text
  size_t pos_ = 0;
  int line_no_ = 1;
  Line line_;
  bool have_line_ = false;
};

}  // namespace

namespace {

std::optional<std::vector<YamlDocument>> read_whole(std::string_view text,
                                                    const json::storage_ptr& sp,
                                                    std::string* declined) {
  if (needs_full_reader(text)) {
    if (declined) *declined = "a character or line outside the subset";
    return std::nullopt;
  }
  BlockReader reader(text, sp);
  try {
    return reader.read();
  } catch (const Unsupported& u) {
    if (declined)
      *declined = "near line " + std::to_string(reader.line()) +
                  " (yaml_block.cpp:" + std::to_string(u.reader_line) + ")";
    return std::nullopt;
  }
}

// The offset of a `---` line (at column 0, then a space or the line's end) at or after `from`,
// or npos: where a stream may be cut into two streams of whole documents.
size_t document_marker_after(std::string_view text, size_t from) {
  for (size_t p = text.find("\n---", from); p != std::string_view::npos;
       p = text.find("\n---", p + 1)) {
    size_t after = p + 4;
    if (after == text.size() || text[after] == '\n' || text[after] == ' ') return p + 1;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<std::vector<YamlDocument>> read_block_yaml(std::string_view text,
                                                         const json::storage_ptr& sp,
                                                         std::string* declined) {
  // A large stream is read as two, its halves cut at a document marker, the first on a thread of
  // its own with an arena of its own (an arena is not shared between threads): what each reads
  // is what the whole would give, documents being independent, and either half declining sends
  // the whole to libfyaml as before. `plan_bench --benchmark_filter=ParseOnly/100000` (18.8 MB):
  // 314 ms as one, 188 ms as two halves on two cores.
  constexpr size_t kTwoHalvesFrom = size_t{4} << 20;
  size_t cut = text.size() >= kTwoHalvesFrom ? document_marker_after(text, text.size() / 2)
                                             : std::string_view::npos;
  if (cut == std::string_view::npos) return read_whole(text, sp, declined);
  std::string_view head = text.substr(0, cut), tail = text.substr(cut);
  std::optional<std::vector<YamlDocument>> first;
  std::string first_declined;
  std::thread reading(
      [&] { first = read_whole(head, json::make_shared_resource<Arena>(), &first_declined); });
  std::string tail_declined;
  std::optional<std::vector<YamlDocument>> second = read_whole(tail, sp, &tail_declined);
  reading.join();
  if (!first) {
    if (declined) *declined = first_declined;
    return std::nullopt;
  }
  int lines_before = static_cast<int>(std::count(head.begin(), head.end(), '\n'));
  if (!second) {
    if (declined)
      *declined = tail_declined + " of the stream's second half, which starts at line " +
                  std::to_string(lines_before + 1);
    return std::nullopt;
  }
  first->reserve(first->size() + second->size());
  for (YamlDocument& d : *second) {
    if (d.line > 0) d.line += lines_before;  // 0: an empty document has no position
    for (int& l : d.item_lines) l += lines_before;
    first->push_back(std::move(d));
  }
  return first;
}

}  // namespace planter
