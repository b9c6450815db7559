// The memory of a parsed YAML stream: its values live and die together, so nothing is given back
// one by one (as boost::json::monotonic_resource). Unlike that resource, whose blocks double
// without bound (a 35 MB seed's last block alone held 128 MiB, mostly unused), blocks double from
// 4 KiB only up to 1 MiB: what a stream takes stays within a MiB of what its values use.
#pragma once

#include <boost/json/memory_resource.hpp>
#include <cstddef>
#include <vector>

namespace planter {

class Arena final : public boost::json::memory_resource {
 public:
  static constexpr size_t kFirstBlock = 4096;
  static constexpr size_t kLargestBlock = size_t{1} << 20;

  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() override;

 private:
  void* do_allocate(size_t bytes, size_t align) override;
  void do_deallocate(void*, size_t, size_t) override {}
  bool do_is_equal(const boost::json::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::vector<char*> blocks_;
  char* next_ = nullptr;  // free space of the current block: [next_, end_)
  char* end_ = nullptr;
  size_t block_ = kFirstBlock;  // the size of the next block
};

}  // namespace planter

namespace boost::json {
// Values in an Arena are never freed one by one: boost::json skips destroying them.
template <>
struct is_deallocate_trivial<planter::Arena> {
  static constexpr bool value = true;
};
}  // namespace boost::json
