#include "cel/lexer.h"

#include <fmt/format.h>

#include <cstdint>

#include "model/utf8.h"

namespace planter::cel {

namespace {

bool ident_start(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void Lexer::fail(size_t pos, std::string what) {
  if (!error_.empty()) return;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < pos && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  error_ = fmt::format("ERROR: <input>:{}:{}: {}", line, col, what);
}

void Lexer::skip_space() {
  while (at_ < text_.size()) {
    char c = text_[at_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++at_;
    } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '/') {
      while (at_ < text_.size() && text_[at_] != '\n') ++at_;
    } else {
      break;
    }
  }
}

void Lexer::advance() {
  skip_space();
  tok_ = Token{Tok::kEnd, at_, {}};
  if (at_ >= text_.size() || failed()) return;
  char c = text_[at_];
  auto two = [&](char next) { return at_ + 1 < text_.size() && text_[at_ + 1] == next; };
  auto punct = [&](Tok t, size_t n) {
    tok_.kind = t;
    at_ += n;
  };
  switch (c) {
    case '(':
      return punct(Tok::kLParen, 1);
    case ')':
      return punct(Tok::kRParen, 1);
    case '[':
      return punct(Tok::kLBracket, 1);
    case ']':
      return punct(Tok::kRBracket, 1);
    case '{':
      return punct(Tok::kLBrace, 1);
    case '}':
      return punct(Tok::kRBrace, 1);
    case ',':
      return punct(Tok::kComma, 1);
    case ':':
      return punct(Tok::kColon, 1);
    case '?':
      return punct(Tok::kQuestion, 1);
    case '+':
      return punct(Tok::kPlus, 1);
    case '-':
      return punct(Tok::kMinus, 1);
    case '*':
      return punct(Tok::kStar, 1);
    case '/':
      return punct(Tok::kSlash, 1);
    case '%':
      return punct(Tok::kPercent, 1);
    case '!':
      return two('=') ? punct(Tok::kNe, 2) : punct(Tok::kNot, 1);
    case '=':
      if (two('=')) return punct(Tok::kEq, 2);
      break;
    case '<':
      return two('=') ? punct(Tok::kLe, 2) : punct(Tok::kLt, 1);
    case '>':
      return two('=') ? punct(Tok::kGe, 2) : punct(Tok::kGt, 1);
    case '&':
      if (two('&')) return punct(Tok::kAnd, 2);
      break;
    case '|':
      if (two('|')) return punct(Tok::kOr, 2);
      break;
    case '.':
      if (at_ + 1 < text_.size() && digit(text_[at_ + 1])) return number();
      return punct(Tok::kDot, 1);
    default:
      break;
  }
  if (digit(c)) return number();
  if (c == '"' || c == '\'') return string_literal(false, false);
  if (ident_start(c)) {
    // String prefixes: r (raw), b (bytes), in either order and case.
    size_t p = at_;
    bool raw = false, bytes = false;
    for (int i = 0; i < 2 && p < text_.size(); ++i) {
      char l = text_[p];
      if ((l == 'r' || l == 'R') && !raw) {
        raw = true;
        ++p;
      } else if ((l == 'b' || l == 'B') && !bytes) {
        bytes = true;
        ++p;
      } else {
        break;
      }
    }
    if ((raw || bytes) && p < text_.size() && (text_[p] == '"' || text_[p] == '\'')) {
      at_ = p;
      return string_literal(raw, bytes);
    }
    size_t start = at_;
    while (at_ < text_.size() && ident_char(text_[at_])) ++at_;
    tok_.text = std::string(text_.substr(start, at_ - start));
    if (tok_.text == "true")
      tok_.kind = Tok::kTrue;
    else if (tok_.text == "false")
      tok_.kind = Tok::kFalse;
    else if (tok_.text == "null")
      tok_.kind = Tok::kNull;
    else if (tok_.text == "in")
      tok_.kind = Tok::kIn;
    else
      tok_.kind = Tok::kIdent;
    return;
  }
  fail(at_, fmt::format("token recognition error at: '{}'", text_.substr(at_, 1)));
}

void Lexer::number() {
  size_t start = at_;
  if (text_[at_] == '0' && at_ + 1 < text_.size() &&
      (text_[at_ + 1] == 'x' || text_[at_ + 1] == 'X')) {
    at_ += 2;
    size_t digits = at_;
    while (at_ < text_.size() && hex_value(text_[at_]) >= 0) ++at_;
    if (at_ == digits) return fail(start, "a hexadecimal literal needs digits");
    tok_.text = std::string(text_.substr(digits, at_ - digits));
    tok_.kind = Tok::kInt;
    tok_.text = "0x" + tok_.text;
  } else {
    while (at_ < text_.size() && digit(text_[at_])) ++at_;
    bool is_double = false;
    if (at_ + 1 < text_.size() && text_[at_] == '.' && digit(text_[at_ + 1])) {
      is_double = true;
      ++at_;
      while (at_ < text_.size() && digit(text_[at_])) ++at_;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      size_t e = at_ + 1;
      if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
      if (e < text_.size() && digit(text_[e])) {
        is_double = true;
        at_ = e;
        while (at_ < text_.size() && digit(text_[at_])) ++at_;
      }
    }
    tok_.text = std::string(text_.substr(start, at_ - start));
    tok_.kind = is_double ? Tok::kDouble : Tok::kInt;
  }
  if (tok_.kind == Tok::kInt && at_ < text_.size() && (text_[at_] == 'u' || text_[at_] == 'U')) {
    ++at_;
    tok_.kind = Tok::kUint;
  }
  if (at_ < text_.size() && ident_char(text_[at_]))
    fail(start, fmt::format("malformed number '{}'", text_.substr(start, at_ + 1 - start)));
}

void Lexer::string_literal(bool raw, bool bytes) {
  size_t start = at_;
  char q = text_[at_];
  bool triple = at_ + 2 < text_.size() && text_[at_ + 1] == q && text_[at_ + 2] == q;
  at_ += triple ? 3 : 1;
  std::string out;
  while (true) {
    if (at_ >= text_.size()) return fail(start, "a string literal is not closed");
    char c = text_[at_];
    if (c == q &&
        (!triple || (at_ + 2 < text_.size() && text_[at_ + 1] == q && text_[at_ + 2] == q))) {
      at_ += triple ? 3 : 1;
      break;
    }
    if (!triple && (c == '\n' || c == '\r'))
      return fail(at_, "a line break inside a quoted string");
    if (c != '\\' || raw) {
      out += c;
      ++at_;
      continue;
    }
    if (at_ + 1 >= text_.size()) return fail(at_, "a string literal is not closed");
    char e = text_[at_ + 1];
    at_ += 2;
    switch (e) {
      case '\\':
        out += '\\';
        break;
      case '?':
        out += '?';
        break;
      case '"':
        out += '"';
        break;
      case '\'':
        out += '\'';
        break;
      case '`':
        out += '`';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x':
      case 'X':
      case 'u':
      case 'U': {
        int n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
        uint32_t cp = 0;
        for (int i = 0; i < n; ++i) {
          int h = at_ < text_.size() ? hex_value(text_[at_]) : -1;
          if (h < 0) return fail(at_, fmt::format("\\{} needs {} hexadecimal digits", e, n));
          cp = cp * 16 + static_cast<uint32_t>(h);
          ++at_;
        }
        if (n == 2 && bytes) {
          out += static_cast<char>(cp);
        } else {
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(at_, "an escape names no Unicode code point");
          append_utf8(out, cp);
        }
        break;
      }
      case '0':
      case '1':
      case '2':
      case '3': {
        uint32_t v = static_cast<uint32_t>(e - '0');
        for (int i = 0; i < 2; ++i) {
          if (at_ >= text_.size() || text_[at_] < '0' || text_[at_] > '7')
            return fail(at_, "an octal escape needs three digits");
          v = v * 8 + static_cast<uint32_t>(text_[at_] - '0');
          ++at_;
        }
        if (bytes)
          out += static_cast<char>(v);
        else
          append_utf8(out, v);
        break;
      }
      default:
        return fail(at_ - 2, fmt::format("invalid escape sequence \\{}", e));
    }
  }
  // A string holds UTF-8 text; bytes may hold anything.
  if (!bytes) {
    uint32_t cp = 0;
    for (size_t i = 0, n = 0; i < out.size(); i += n)
      if ((n = utf8_sequence(out, i, cp)) == 0) return fail(start, "a string literal is not UTF-8");
  }
  tok_.kind = bytes ? Tok::kBytes : Tok::kString;
  tok_.text = std::move(out);
}

}  // namespace planter::cel
