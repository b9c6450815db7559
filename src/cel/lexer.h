// CEL's tokens (langdef.md, "Syntax"): punctuation and operators, numbers (int, hexadecimal, `u`
// uint, double with exponent), strings and bytes in every quoting (', ", triple, raw r'', b'')
// with every escape decoded, identifiers and the words true, false, null and in. The parser
// (parser.cpp) reads them one at a time; the first error, the lexer's or the parser's, is kept
// as cel-go words it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace planter::cel {

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

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  const Token& token() const { return tok_; }
  // The next token into token(); kEnd at the end or after an error.
  void advance();

  // Keeps the first error, "ERROR: <input>:LINE:COL: what" for the byte at `pos`.
  void fail(size_t pos, std::string what);
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  void skip_space();
  void number();
  void string_literal(bool raw, bool bytes);

  std::string_view text_;
  size_t at_ = 0;
  Token tok_;
  std::string error_;
};

}  // namespace planter::cel
