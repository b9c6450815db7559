#include "model/arena.h"

#include <algorithm>
#include <cstdint>
#include <new>

namespace planter {

Arena::~Arena() {
  for (char* b : blocks_) ::operator delete(b);
}

void* Arena::do_allocate(size_t bytes, size_t align) {
  auto aligned = [align](char* p) {
    auto at = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<char*>((at + align - 1) & ~(uintptr_t{align} - 1));
  };
  if (next_) {
    char* at = aligned(next_);
    if (at <= end_ && static_cast<size_t>(end_ - at) >= bytes) {
      next_ = at + bytes;
      return at;
    }
  }
  size_t size = std::max(block_, bytes + align);
  block_ = std::min(block_ * 2, kLargestBlock);
  char* block = static_cast<char*>(::operator new(size));
  blocks_.push_back(block);
  char* at = aligned(block);
  next_ = at + bytes;
  end_ = block + size;
  return at;
}

}  // namespace planter
