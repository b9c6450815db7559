// A parsed CEL expression: operators resolved when parsed (so evaluation switches on an enum, not a
// name), macros expanded to their own nodes, functions resolved to their table entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cel/value.h"

namespace planter::cel {

enum class Op : uint8_t {
  kLiteral,
  kIdent,   // name
  kSelect,  // kids[0].name; on a map, the entry under the key `name`
  kHas,     // has(kids[0].name)
  kIndex,   // kids[0][kids[1]]
  kList,
  kMap,  // kids: key, value, key, value, …
  kAnd,  // n-ary: a && b && c is one node, so a long chain is not a deep tree
  kOr,
  kNot,
  kNeg,
  kCond,  // kids[0] ? kids[1] : kids[2]
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kCall,  // function `fn` of the table (functions.h); with a receiver, kids[0] is it
  // Macros over kids[0] (a list's elements or a map's keys) bound to `name`: kids[1] is the
  // predicate or the transform; map with a filter has kids[1] the filter, kids[2] the transform.
  kAll,
  kExists,
  kExistsOne,
  kMapMacro,
  kFilter,
};

struct Node {
  Op op = Op::kLiteral;
  uint32_t pos = 0;    // byte offset in the expression, for messages
  int16_t fn = -1;     // kCall: index into the function table
  uint16_t depth = 1;  // of the tree below and including this node
  bool receiver = false;
  Value literal;
  std::string name;
  std::vector<Node> kids;
};

}  // namespace planter::cel
