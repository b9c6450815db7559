#include "cel/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "cel/functions.h"

namespace planter::cel {

namespace {

// Words CEL reserves: an identifier may not be one (langdef.md, "Syntax").
constexpr std::array<std::string_view, 16> kReserved = {
    "as",     "break", "const", "continue", "else",      "for",    "function", "if",
    "import", "let",   "loop",  "package",  "namespace", "return", "var",      "while"};

enum class Tok {
  kEnd,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kIdent,
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t pos = 0;
  std::string text;  // an identifier's name; a string's or bytes' decoded value; a number's digits
};

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

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Node> run() {
    if (text_.size() > kMaxExpressionBytes)
      return Error{
          fmt::format("ERROR: <input>:1:1: expression of {} bytes is longer than the "
                      "{} allowed",
                      text_.size(), kMaxExpressionBytes)};
    advance();
    Node root = expr();
    if (error_.empty() && tok_.kind != Tok::kEnd)
      fail(tok_.pos, "unexpected input after the expression");
    if (!error_.empty()) return Error{error_};
    return root;
  }

 private:
  // The first error wins; parsing then unwinds with placeholder nodes.
  void fail(size_t pos, std::string what) {
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
  bool failed() const { return !error_.empty(); }

  // ---- lexer ----

  void skip_space() {
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

  void advance() {
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

  void number() {
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

  void string_literal(bool raw, bool bytes) {
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
      for (size_t i = 0; i < out.size();) {
        auto b = static_cast<unsigned char>(out[i]);
        size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > out.size()) return fail(start, "a string literal is not UTF-8");
        for (size_t k = 1; k < n; ++k)
          if ((static_cast<unsigned char>(out[i + k]) >> 6) != 2)
            return fail(start, "a string literal is not UTF-8");
        i += n;
      }
    }
    tok_.kind = bytes ? Tok::kBytes : Tok::kString;
    tok_.text = std::move(out);
  }

  // ---- grammar ----

  bool accept(Tok t) {
    if (tok_.kind != t) return false;
    advance();
    return true;
  }
  void expect(Tok t, std::string_view what) {
    if (!accept(t)) fail(tok_.pos, fmt::format("expected {}", what));
  }

  // Enforces the nesting and tree-depth limits as nodes are made.
  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (++p.nesting_ > kMaxNesting)
        p.fail(p.tok_.pos, fmt::format("expression nests deeper than {} levels", kMaxNesting));
    }
    ~Nest() { --p.nesting_; }
  };

  Node make(Op op, size_t pos, std::vector<Node> kids = {}) {
    Node n;
    n.op = op;
    n.pos = static_cast<uint32_t>(pos);
    n.kids = std::move(kids);
    seal(n);
    return n;
  }
  // A node's depth from its children's, checked against the limit as the tree grows (a + b + c …
  // is as deep as it is long), so no walk of a too-deep tree ever happens.
  void seal(Node& n) {
    int d = 0;
    for (const Node& k : n.kids) d = std::max(d, static_cast<int>(k.depth));
    n.depth = static_cast<uint16_t>(std::min(d + 1, kMaxTreeDepth + 1));
    if (d + 1 > kMaxTreeDepth)
      fail(n.pos, fmt::format("expression is deeper than {} operations", kMaxTreeDepth));
  }

  Node expr() {
    Nest nest(*this);
    if (failed()) return {};
    size_t pos = tok_.pos;
    Node cond = logical(Tok::kOr);
    if (!accept(Tok::kQuestion)) return cond;
    Node yes = logical(Tok::kOr);
    expect(Tok::kColon, "':' of the conditional");
    Node no = expr();
    std::vector<Node> kids;
    kids.push_back(std::move(cond));
    kids.push_back(std::move(yes));
    kids.push_back(std::move(no));
    return make(Op::kCond, pos, std::move(kids));
  }

  // ConditionalOr and ConditionalAnd, each one n-ary node.
  Node logical(Tok op) {
    size_t pos = tok_.pos;
    Node first = op == Tok::kOr ? logical(Tok::kAnd) : relation();
    if (tok_.kind != op) return first;
    std::vector<Node> kids;
    kids.push_back(std::move(first));
    while (!failed() && accept(op)) {
      kids.push_back(op == Tok::kOr ? logical(Tok::kAnd) : relation());
      if (kids.size() > 100'000) fail(pos, "too many operands");
    }
    return make(op == Tok::kOr ? Op::kOr : Op::kAnd, pos, std::move(kids));
  }

  static std::optional<Op> relop(Tok t) {
    switch (t) {
      case Tok::kEq:
        return Op::kEq;
      case Tok::kNe:
        return Op::kNe;
      case Tok::kLt:
        return Op::kLt;
      case Tok::kLe:
        return Op::kLe;
      case Tok::kGt:
        return Op::kGt;
      case Tok::kGe:
        return Op::kGe;
      case Tok::kIn:
        return Op::kIn;
      default:
        return std::nullopt;
    }
  }

  Node relation() {
    Node left = addition();
    while (!failed()) {
      auto op = relop(tok_.kind);
      if (!op) break;
      size_t pos = tok_.pos;
      advance();
      std::vector<Node> kids;
      kids.push_back(std::move(left));
      kids.push_back(addition());
      left = make(*op, pos, std::move(kids));
    }
    return left;
  }

  Node addition() {
    Node left = multiplication();
    while (!failed() && (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus)) {
      Op op = tok_.kind == Tok::kPlus ? Op::kAdd : Op::kSub;
      size_t pos = tok_.pos;
      advance();
      std::vector<Node> kids;
      kids.push_back(std::move(left));
      kids.push_back(multiplication());
      left = make(op, pos, std::move(kids));
    }
    return left;
  }

  Node multiplication() {
    Node left = unary();
    while (!failed() &&
           (tok_.kind == Tok::kStar || tok_.kind == Tok::kSlash || tok_.kind == Tok::kPercent)) {
      Op op = tok_.kind == Tok::kStar ? Op::kMul : tok_.kind == Tok::kSlash ? Op::kDiv : Op::kMod;
      size_t pos = tok_.pos;
      advance();
      std::vector<Node> kids;
      kids.push_back(std::move(left));
      kids.push_back(unary());
      left = make(op, pos, std::move(kids));
    }
    return left;
  }

  Node unary() {
    size_t pos = tok_.pos;
    if (tok_.kind == Tok::kNot) {
      size_t n = 0;
      while (accept(Tok::kNot)) ++n;
      Node operand = member();
      // !!x is x for a bool and the same error otherwise: an even count keeps one pair.
      if (n % 2 == 0) n = 2;
      for (size_t i = 0; i < n; ++i) {
        std::vector<Node> kids;
        kids.push_back(std::move(operand));
        operand = make(Op::kNot, pos, std::move(kids));
      }
      return operand;
    }
    if (tok_.kind == Tok::kMinus) {
      size_t n = 0;
      while (accept(Tok::kMinus)) ++n;
      // -9223372036854775808: the literal is negated as it is read, so the smallest int is one.
      bool negative_literal = n % 2 == 1 && tok_.kind == Tok::kInt;
      Node operand = negative_literal ? literal_int(true) : member();
      if (negative_literal) {
        operand = member_suffix(std::move(operand));
        --n;
      }
      if (n % 2 == 0 && n > 0) n = 2;
      for (size_t i = 0; i < n; ++i) {
        std::vector<Node> kids;
        kids.push_back(std::move(operand));
        operand = make(Op::kNeg, pos, std::move(kids));
      }
      return operand;
    }
    return member();
  }

  Node literal_int(bool negative) {
    Node n = make(Op::kLiteral, tok_.pos);
    const std::string& t = tok_.text;
    bool hex = t.size() > 2 && t[1] == 'x';
    std::string_view digits = hex ? std::string_view(t).substr(2) : std::string_view(t);
    uint64_t magnitude = 0;
    auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, hex ? 16 : 10);
    bool ok = ec == std::errc() && end == digits.data() + digits.size();
    if (ok && !negative && magnitude <= static_cast<uint64_t>(INT64_MAX))
      n.literal = Value::integer(static_cast<int64_t>(magnitude));
    else if (ok && negative && magnitude <= static_cast<uint64_t>(INT64_MAX) + 1)
      n.literal = Value::integer(magnitude == static_cast<uint64_t>(INT64_MAX) + 1
                                     ? INT64_MIN
                                     : -static_cast<int64_t>(magnitude));
    else
      fail(tok_.pos, fmt::format("invalid int literal '{}{}'", negative ? "-" : "", t));
    advance();
    return n;
  }

  Node member() { return member_suffix(primary()); }

  static bool is_macro(std::string_view name) {
    return name == "all" || name == "exists" || name == "exists_one" || name == "map" ||
           name == "filter";
  }

  Node member_suffix(Node left) {
    while (!failed()) {
      size_t pos = tok_.pos;
      if (accept(Tok::kDot)) {
        if (tok_.kind != Tok::kIdent) {
          fail(tok_.pos, "expected a field or method name after '.'");
          break;
        }
        std::string name = tok_.text;
        advance();
        if (tok_.kind == Tok::kLParen) {
          advance();
          std::vector<Node> args = expr_list(Tok::kRParen);
          expect(Tok::kRParen, "')'");
          left = call(pos, name, std::move(left), std::move(args));
        } else {
          std::vector<Node> kids;
          kids.push_back(std::move(left));
          Node n = make(Op::kSelect, pos, std::move(kids));
          n.name = std::move(name);
          left = std::move(n);
        }
      } else if (accept(Tok::kLBracket)) {
        std::vector<Node> kids;
        kids.push_back(std::move(left));
        kids.push_back(expr());
        expect(Tok::kRBracket, "']'");
        left = make(Op::kIndex, pos, std::move(kids));
      } else if (tok_.kind == Tok::kLBrace && left.op == Op::kIdent) {
        fail(pos, "message construction is not supported (no protocol buffer types)");
      } else {
        break;
      }
    }
    return left;
  }

  std::vector<Node> expr_list(Tok close) {
    std::vector<Node> out;
    if (tok_.kind == close) return out;
    do {
      if (tok_.kind == close) break;  // a trailing comma
      out.push_back(expr());
    } while (!failed() && accept(Tok::kComma));
    return out;
  }

  // A method call or a macro on `target`.
  Node call(size_t pos, const std::string& name, Node target, std::vector<Node> args) {
    if (is_macro(name) && !args.empty() && args.front().op == Op::kIdent &&
        (args.size() == 2 || (name == "map" && args.size() == 3))) {
      Op op = name == "all"          ? Op::kAll
              : name == "exists"     ? Op::kExists
              : name == "exists_one" ? Op::kExistsOne
              : name == "map"        ? Op::kMapMacro
                                     : Op::kFilter;
      std::vector<Node> kids;
      kids.push_back(std::move(target));
      for (size_t i = 1; i < args.size(); ++i) kids.push_back(std::move(args[i]));
      Node n = make(op, pos, std::move(kids));
      n.name = args.front().name;
      return n;
    }
    if (is_macro(name)) {
      fail(pos, fmt::format("{}() takes a variable and an expression", name));
      return {};
    }
    auto fn = find_function(name, true);
    if (!fn) {
      fail(pos, fmt::format("undeclared reference to '{}' (in container '')", name));
      return {};
    }
    std::vector<Node> kids;
    kids.push_back(std::move(target));
    for (Node& a : args) kids.push_back(std::move(a));
    Node n = make(Op::kCall, pos, std::move(kids));
    n.name = name;
    n.fn = *fn;
    n.receiver = true;
    return n;
  }

  Node primary() {
    size_t pos = tok_.pos;
    switch (tok_.kind) {
      case Tok::kInt:
        return literal_int(false);
      case Tok::kUint: {
        Node n = make(Op::kLiteral, pos);
        std::string_view t = tok_.text;
        bool hex = t.size() > 2 && t[1] == 'x';
        std::string_view digits = hex ? t.substr(2) : t;
        uint64_t v = 0;
        auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), v, hex ? 16 : 10);
        if (ec != std::errc() || end != digits.data() + digits.size())
          fail(pos, fmt::format("invalid uint literal '{}u'", t));
        n.literal = Value::unsigned_integer(v);
        advance();
        return n;
      }
      case Tok::kDouble: {
        Node n = make(Op::kLiteral, pos);
        std::string t = tok_.text;
        char* end = nullptr;
        double d = std::strtod(t.c_str(), &end);
        if (end != t.c_str() + t.size()) fail(pos, fmt::format("invalid double literal '{}'", t));
        n.literal = Value::floating(d);
        advance();
        return n;
      }
      case Tok::kString:
      case Tok::kBytes: {
        Node n = make(Op::kLiteral, pos);
        n.literal = tok_.kind == Tok::kString ? Value::string(tok_.text) : Value::bytes(tok_.text);
        advance();
        return n;
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        Node n = make(Op::kLiteral, pos);
        n.literal = Value::boolean(tok_.kind == Tok::kTrue);
        advance();
        return n;
      }
      case Tok::kNull:
        advance();
        return make(Op::kLiteral, pos);
      case Tok::kLParen: {
        advance();
        Node inner = expr();
        expect(Tok::kRParen, "')'");
        return inner;
      }
      case Tok::kLBracket: {
        Nest nest(*this);
        advance();
        Node n = make(Op::kList, pos, expr_list(Tok::kRBracket));
        expect(Tok::kRBracket, "']'");
        return n;
      }
      case Tok::kLBrace: {
        Nest nest(*this);
        advance();
        Node n = make(Op::kMap, pos);
        while (!failed() && tok_.kind != Tok::kRBrace) {
          n.kids.push_back(expr());
          expect(Tok::kColon, "':' after a map key");
          n.kids.push_back(expr());
          if (!accept(Tok::kComma)) break;
        }
        expect(Tok::kRBrace, "'}'");
        seal(n);
        return n;
      }
      case Tok::kDot:
        advance();  // a leading dot names the root namespace: the same names here
        if (tok_.kind != Tok::kIdent) {
          fail(tok_.pos, "expected a name after '.'");
          return {};
        }
        return identifier();
      case Tok::kIdent:
        return identifier();
      case Tok::kEnd:
        fail(pos, "unexpected end of the expression");
        return {};
      default:
        fail(pos, "unexpected token");
        return {};
    }
  }

  Node identifier() {
    size_t pos = tok_.pos;
    std::string name = tok_.text;
    if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end()) {
      fail(pos, fmt::format("reserved identifier: {}", name));
      return {};
    }
    advance();
    if (accept(Tok::kLParen)) {
      Nest nest(*this);
      std::vector<Node> args = expr_list(Tok::kRParen);
      expect(Tok::kRParen, "')'");
      if (failed()) return {};
      if (name == "has") {
        if (args.size() != 1 || args.front().op != Op::kSelect) {
          fail(pos, "invalid argument to has() macro");
          return {};
        }
        Node n = std::move(args.front());
        n.op = Op::kHas;
        return n;
      }
      auto fn = find_function(name, false);
      if (!fn) {
        fail(pos, fmt::format("undeclared reference to '{}' (in container '')", name));
        return {};
      }
      Node n = make(Op::kCall, pos, std::move(args));
      n.name = std::move(name);
      n.fn = *fn;
      return n;
    }
    // Type names are values (`type(1) == int`).
    static constexpr std::pair<std::string_view, Kind> kTypes[] = {
        {"int", Kind::kInt},   {"uint", Kind::kUint},     {"double", Kind::kDouble},
        {"bool", Kind::kBool}, {"string", Kind::kString}, {"bytes", Kind::kBytes},
        {"list", Kind::kList}, {"map", Kind::kMap},       {"null_type", Kind::kNull},
        {"type", Kind::kType}};
    for (const auto& [type_name, kind] : kTypes)
      if (name == type_name) {
        Node n = make(Op::kLiteral, pos);
        n.literal = Value::type(kind);
        return n;
      }
    Node n = make(Op::kIdent, pos);
    n.name = std::move(name);
    return n;
  }

  std::string_view text_;
  size_t at_ = 0;
  Token tok_;
  std::string error_;
  int nesting_ = 0;
};

// Every identifier names a declared variable or a macro's variable in scope; else cel-go's
// checker's "undeclared reference". The tree is at most kMaxTreeDepth deep.
std::optional<Error> check_references(const Node& n, const ParseOptions& options,
                                      std::vector<std::string_view>& scope) {
  if (n.op == Op::kIdent) {
    bool known = std::find(scope.begin(), scope.end(), n.name) != scope.end() ||
                 std::find(options.variables.begin(), options.variables.end(), n.name) !=
                     options.variables.end();
    if (!known)
      return Error{
          fmt::format("ERROR: <input>:1:{}: undeclared reference to '{}' (in container '')",
                      n.pos + 1, n.name)};
    return std::nullopt;
  }
  bool macro = n.op == Op::kAll || n.op == Op::kExists || n.op == Op::kExistsOne ||
               n.op == Op::kMapMacro || n.op == Op::kFilter;
  for (size_t i = 0; i < n.kids.size(); ++i) {
    if (macro && i == 1) scope.push_back(n.name);
    if (auto e = check_references(n.kids[i], options, scope)) return e;
  }
  if (macro && n.kids.size() > 1) scope.pop_back();
  return std::nullopt;
}

}  // namespace

Result<Node> parse(std::string_view text, const ParseOptions& options) {
  Parser p(text);
  auto root = p.run();
  if (!root) return root;
  std::vector<std::string_view> scope;
  if (auto e = check_references(*root, options, scope)) return *e;
  return root;
}

}  // namespace planter::cel
