// A CEL expression compiled once and evaluated many times (a DeviceClass selector over every device
// of a fleet), with a cost limit per evaluation: what it may spend is counted as it runs, and
// going over ends it with an error, as the Kubernetes API server's CEL runtime does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/ast.h"
#include "cel/parser.h"
#include "cel/value.h"
#include "model/result.h"

namespace planter::cel {

// kube-apiserver's cost limit for one evaluation of a DRA selector or a CRD validation rule
// (k8s.io/apiserver's celconfig.PerCallLimit).
inline constexpr uint64_t kPerCallCostLimit = 1'000'000;
// What a value built while evaluating may hold, in elements and bytes together: cost alone
// charges a list's concatenation once, so doubling a list in a comprehension is bounded here.
inline constexpr uint64_t kMaxBuiltSize = 10'000'000;

// Variables by name, as the environment declares them (`device`, `self`).
using Bindings = std::vector<std::pair<std::string, Value>>;

struct EvalResult {
  Value value;  // an error value when evaluation failed (its message says why)
  uint64_t cost = 0;
};

class Program {
 public:
  static Result<Program> compile(std::string_view text, const ParseOptions& options);

  EvalResult evaluate(const Bindings& vars, uint64_t cost_limit = kPerCallCostLimit) const;

  const std::string& text() const { return text_; }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

}  // namespace planter::cel
