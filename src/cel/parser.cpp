#include "cel/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "cel/functions.h"
#include "cel/lexer.h"

namespace planter::cel {

namespace {

// Words CEL reserves: an identifier may not be one (langdef.md, "Syntax").
constexpr std::array<std::string_view, 16> kReserved = {
    "as",     "break", "const", "continue", "else",      "for",    "function", "if",
    "import", "let",   "loop",  "package",  "namespace", "return", "var",      "while"};

class Parser {
 public:
  explicit Parser(std::string_view text) : lex_(text), text_size_(text.size()) {}

  Result<Node> run() {
    if (text_size_ > kMaxExpressionBytes)
      return Error{
          fmt::format("ERROR: <input>:1:1: expression of {} bytes is longer than the "
                      "{} allowed",
                      text_size_, kMaxExpressionBytes)};
    advance();
    Node root = expr();
    if (!failed() && tok_.kind != Tok::kEnd)
      fail(tok_.pos, "unexpected input after the expression");
    if (failed()) return Error{lex_.error()};
    return root;
  }

 private:
  // The first error wins; parsing then unwinds with placeholder nodes.
  void fail(size_t pos, std::string what) { lex_.fail(pos, std::move(what)); }
  bool failed() const { return lex_.failed(); }
  void advance() { lex_.advance(); }

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

  Lexer lex_;
  const Token& tok_ = lex_.token();  // the token being looked at
  size_t text_size_ = 0;
  int nesting_ = 0;
};

// Every identifier names a declared variable or a macro's variable in scope; else cel-go's
// checker's "undeclared reference". The tree is at most kMaxTreeDepth deep.
std::optional<Error> check_references(std::string_view text, const Node& n,
                                      const ParseOptions& options,
                                      std::vector<std::string_view>& scope) {
  if (n.op == Op::kIdent) {
    bool known = std::find(scope.begin(), scope.end(), n.name) != scope.end() ||
                 std::find(options.variables.begin(), options.variables.end(), n.name) !=
                     options.variables.end();
    if (!known) {
      Lexer at(text);  // its error says the line and column of the name
      at.fail(n.pos, fmt::format("undeclared reference to '{}' (in container '')", n.name));
      return Error{at.error()};
    }
    return std::nullopt;
  }
  bool macro = n.op == Op::kAll || n.op == Op::kExists || n.op == Op::kExistsOne ||
               n.op == Op::kMapMacro || n.op == Op::kFilter;
  for (size_t i = 0; i < n.kids.size(); ++i) {
    if (macro && i == 1) scope.push_back(n.name);
    if (auto e = check_references(text, n.kids[i], options, scope)) return e;
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
  if (auto e = check_references(text, *root, options, scope)) return *e;
  return root;
}

}  // namespace planter::cel
