#include "model/yaml_block_scalar.h"

#include <algorithm>
#include <vector>

namespace planter {

namespace {

struct Header {
  bool folded = false;
  char chomp = 'c';   // clip, '-' strip, '+' keep
  int increment = 0;  // the indentation indicator; 0: detected from the first text line
};

// The header on the line that ends just before `content`: `|` or `>`, then at most one chomping
// and one indentation indicator in either order, then only white space or a comment.
std::optional<Header> header_before(std::string_view s, size_t content) {
  if (content == 0 || content > s.size() || s[content - 1] != '\n') return std::nullopt;
  size_t end = content - 1;
  if (end > 0 && s[end - 1] == '\r') --end;
  size_t begin = s.rfind('\n', end == 0 ? 0 : end - 1);
  begin = begin == std::string_view::npos || end == 0 ? 0 : begin + 1;
  std::string_view line = s.substr(begin, end - begin);
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '|' && line[i] != '>') continue;
    if (i > 0 && line[i - 1] != ' ' && line[i - 1] != '\t') continue;
    Header h;
    h.folded = line[i] == '>';
    size_t j = i + 1;
    bool bad = false;
    for (int k = 0; k < 2 && j < line.size(); ++k, ++j) {
      char c = line[j];
      if ((c == '-' || c == '+') && h.chomp == 'c')
        h.chomp = c;
      else if (c >= '1' && c <= '9' && h.increment == 0)
        h.increment = c - '0';
      else if (c == '0')
        bad = true;
      else
        break;
    }
    if (bad) return std::nullopt;
    size_t rest = j;
    while (rest < line.size() && (line[rest] == ' ' || line[rest] == '\t')) ++rest;
    if (rest == line.size() || (line[rest] == '#' && rest > j)) return h;
  }
  return std::nullopt;
}

struct Line {
  size_t begin, end;  // the text, without its line break
  bool broken;        // a line break follows it
};

}  // namespace

std::optional<std::string> decode_block_scalar(std::string_view s, size_t content, int parent) {
  auto header = header_before(s, content);
  if (!header) return std::nullopt;
  // The lines from `content` on, each without its break (LF, CRLF or CR), read one at a time:
  // only as far as the scalar goes (a stream holds many block scalars; splitting the whole rest
  // of it for each one was quadratic).
  size_t cursor = content;
  auto next_line = [&](Line& l) {
    if (cursor >= s.size()) return false;
    size_t j = cursor;
    while (j < s.size() && s[j] != '\n' && s[j] != '\r') ++j;
    l = {cursor, j, j < s.size()};
    cursor =
        j < s.size() ? j + ((s[j] == '\r' && j + 1 < s.size() && s[j + 1] == '\n') ? 2 : 1) : j;
    return true;
  };
  std::vector<Line> lines;
  auto spaces = [&](const Line& l) {
    size_t n = 0;
    while (l.begin + n < l.end && s[l.begin + n] == ' ') ++n;
    return n;
  };
  auto blank = [&](const Line& l) {
    for (size_t k = l.begin; k < l.end; ++k)
      if (s[k] != ' ' && s[k] != '\t') return false;
    return true;
  };
  // The indentation: the parent's plus the indicator, or that of the first line with text (at
  // least one more than the parent's), as PyYAML and the spec measure it.
  const size_t least = static_cast<size_t>(std::max(parent + 1, 1));
  size_t indent = 0;
  if (header->increment > 0) {
    indent = static_cast<size_t>(std::max(parent + 1, 1) + header->increment - 1);
  } else {
    size_t deepest_blank = 0;
    for (Line l; next_line(l);) {
      lines.push_back(l);  // read again below, from `lines`
      if (blank(l)) {
        deepest_blank = std::max(deepest_blank, spaces(l));
        continue;
      }
      indent = spaces(l);
      break;
    }
    if (indent != 0 && deepest_blank > indent) return std::nullopt;  // refused by the spec
    if (indent < least) indent = std::max(least, deepest_blank);
  }
  // The scalar's lines: empty ones (white space up to the indentation), and text lines (indented
  // that much; spaces beyond it are text); it ends at the first line indented less that has
  // text, or a document marker.
  struct Piece {
    std::string_view text;
    bool empty;
  };
  std::vector<Piece> pieces;
  bool last_broken = false;
  size_t read_ahead = 0;  // the lines the indentation was detected from come first
  for (Line l;;) {
    if (read_ahead < lines.size())
      l = lines[read_ahead++];
    else if (!next_line(l))
      break;
    std::string_view whole = s.substr(l.begin, l.end - l.begin);
    if ((whole.starts_with("---") || whole.starts_with("...")) &&
        (whole.size() == 3 || whole[3] == ' ' || whole[3] == '\t'))
      break;
    size_t lead = spaces(l);
    if (blank(l)) {
      // White space alone: an empty line, or, where it goes deeper than the indentation, a line
      // of that white space (PyYAML and the spec keep it).
      if (whole.size() > indent)
        pieces.push_back({whole.substr(indent), false});
      else
        pieces.push_back({{}, true});
    } else if (lead >= indent) {
      pieces.push_back({whole.substr(indent), false});
    } else {
      break;  // less indented text: the scalar ended on the line before
    }
    last_broken = l.broken;
  }
  for (const Piece& p : pieces)
    for (size_t k = 0; k + 1 < p.text.size(); ++k) {
      unsigned char a = static_cast<unsigned char>(p.text[k]);
      unsigned char b = static_cast<unsigned char>(p.text[k + 1]);
      // NEL (C2 85), LS and PS (E2 80 A8/A9): line breaks to YAML 1.1 readers, not to 1.2.
      if ((a == 0xc2 && b == 0x85) || (a == 0xe2 && b == 0x80 && k + 2 < p.text.size() &&
                                       (static_cast<unsigned char>(p.text[k + 2]) == 0xa8 ||
                                        static_cast<unsigned char>(p.text[k + 2]) == 0xa9)))
        return std::nullopt;
    }
  // The last line with text; what follows are trailing empty lines (chomping decides).
  size_t last_text = pieces.size();
  for (size_t i = pieces.size(); i-- > 0;)
    if (!pieces[i].empty) {
      last_text = i;
      break;
    }
  std::string out;
  if (last_text == pieces.size()) {
    // No text: only keep chomping keeps the empty lines' breaks.
    if (header->chomp == '+') out.append(pieces.size(), '\n');
    return out;
  }
  bool prev_text = false, prev_normal = false;
  size_t empties = 0;
  for (size_t i = 0; i <= last_text; ++i) {
    const Piece& p = pieces[i];
    if (p.empty) {
      ++empties;
      continue;
    }
    bool normal = p.text.front() != ' ' && p.text.front() != '\t';
    if (!prev_text)
      out.append(empties, '\n');
    else if (!header->folded || !prev_normal || !normal)
      out.append(empties + 1, '\n');
    else if (empties == 0)
      out += ' ';
    else
      out.append(empties, '\n');
    out.append(p.text);
    empties = 0;
    prev_text = true;
    prev_normal = normal;
  }
  // The final break (when the last text line has one) and the trailing empty lines.
  bool final_break =
      last_text + 1 < pieces.size() || (last_text + 1 == pieces.size() && last_broken);
  if (header->chomp != '-' && final_break) out += '\n';
  if (header->chomp == '+') out.append(pieces.size() - 1 - last_text, '\n');
  return out;
}

}  // namespace planter
