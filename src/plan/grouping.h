// Indices grouped by a dense number, laid out in one array: add(group, member) in any order, then
// finish() puts each group's members next to each other, keeping the order they were added in.
// members(group) is then a span of that array. The seed index groups objects by kind, namespace
// and identity this way; the planner groups units by the unit they require.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace planter {

class Grouping {
 public:
  void add(uint32_t group, size_t member) { added_.emplace_back(group, member); }
  // Room for `members` adds, made once (the seed index adds an entry per object to three).
  void reserve(size_t members) { added_.reserve(members); }

  // `groups`: one more than the largest group number added.
  void finish(uint32_t groups) {
    start_.assign(static_cast<size_t>(groups) + 1, 0);
    for (const auto& [group, member] : added_) ++start_[group + 1];
    for (size_t i = 1; i < start_.size(); ++i) start_[i] += start_[i - 1];
    members_.resize(added_.size());
    std::vector<size_t> next(start_.begin(), start_.end() - 1);
    for (const auto& [group, member] : added_) members_[next[group]++] = member;
    added_ = {};
  }

  // Empty for a group number that finish() did not cover.
  std::span<const size_t> members(uint32_t group) const {
    if (group >= start_.size() - 1) return {};
    return {members_.data() + start_[group], start_[group + 1] - start_[group]};
  }

 private:
  std::vector<std::pair<uint32_t, size_t>> added_;
  std::vector<size_t> start_{0};  // per group: where its members start in members_
  std::vector<size_t> members_;
};

}  // namespace planter
