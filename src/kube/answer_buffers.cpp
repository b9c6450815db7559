#include "kube/answer_buffers.h"

#include <cstdlib>  // first: it says whether this is glibc
#include <mutex>
#include <string_view>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace planter::kube {

void map_large_answer_buffers() {
#ifdef __GLIBC__
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("MALLOC_MMAP_THRESHOLD_")) return;
    if (const char* t = std::getenv("GLIBC_TUNABLES");
        t && std::string_view(t).find("glibc.malloc.mmap_threshold") != std::string_view::npos)
      return;
    ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(kLargeAnswerBuffer));
  });
#endif
}

}  // namespace planter::kube
