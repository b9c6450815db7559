// Diagnostics: every problem found in a seed, collected so that a user sees all of them at once.
//
// A Diagnostic names where it came from (`seed.yaml:42`), the object (`apps/v1 Deployment
// cnf/cnf`), what is wrong, and what to do. Not thread-safe; one per planning run.
#pragma once

#include <string>
#include <vector>

namespace planter {

struct Diagnostic {
  std::string source;   // "seed.yaml:42", or "" when there is no single place
  std::string object;   // "apps/v1 Deployment cnf/cnf", or "" for stream-level problems
  std::string message;  // what is wrong
  std::string hint;     // what to do about it; may be empty

  // "seed.yaml:42: apps/v1 Deployment cnf/cnf: message\n  hint: ..." (no trailing newline).
  std::string str() const;
};

class Diagnostics {
 public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void add(std::string source, std::string object, std::string message, std::string hint = {}) {
    items_.push_back({std::move(source), std::move(object), std::move(message), std::move(hint)});
  }
  // A warning does not stop planning; it is printed with the plan.
  void warn(std::string source, std::string object, std::string message) {
    warnings_.push_back({std::move(source), std::move(object), std::move(message), {}});
  }
  const std::vector<Diagnostic>& warnings() const { return warnings_; }
  // What `later` found, after what this one holds (the second half of a pass run in two).
  void append(Diagnostics&& later) {
    for (Diagnostic& d : later.items_) items_.push_back(std::move(d));
    for (Diagnostic& w : later.warnings_) warnings_.push_back(std::move(w));
  }

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }

  // Every diagnostic, one block per problem, then a count line ("2 errors in the seed"); whether
  // anything was declared is for the command to say (`plan` never declares).
  std::string str() const;

 private:
  std::vector<Diagnostic> items_;
  std::vector<Diagnostic> warnings_;
};

}  // namespace planter
