// CEL's grammar (langdef.md, "Syntax") read into a Node tree, with the limits that keep a hostile
// expression from exhausting the stack or memory (docs/limits.md): its length, how deeply it
// nests, and how deep its tree is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cel/ast.h"
#include "model/result.h"

namespace planter::cel {

// Kubernetes refuses a DRA selector longer than 10 Ki characters (resource.k8s.io's
// CELSelectorExpressionMaxLength); CRD validation rules are bounded by their cost instead.
inline constexpr size_t kMaxExpressionBytes = 100 * 1024;
// Parentheses, brackets, calls and nested operators, together. cel-go's parser allows 250 levels
// of recursion; the conformance suite asks for 32. Each level here is a few stack frames.
inline constexpr int kMaxNesting = 100;
// The tree evaluation walks recursively (a + b + c + … is as deep as it is long).
inline constexpr int kMaxTreeDepth = 250;

struct ParseOptions {
  // The variables an expression may name (`device` for DRA, `self` for CRD rules); any other
  // identifier is "undeclared reference", as cel-go's checker says it.
  std::vector<std::string> variables;
};

// The expression's tree, or "ERROR: <input>:1:5: <what>" as cel-go words a syntax error.
Result<Node> parse(std::string_view text, const ParseOptions& options);

}  // namespace planter::cel
