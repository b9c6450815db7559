#include "kube/easy_request.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "kube/answer_buffers.h"
#include "sanitized.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace planter::kube {
namespace {

#ifdef __GLIBC__
// Kept where the compiler cannot see that a block is never read, so that it allocates it.
void* volatile held = nullptr;

// A read's answer buffer stays on a mapping of its own, given back to the system when the
// transfer frees it, also after another was freed (when glibc's dynamic threshold would carve the
// next out of a heap arena whose pages stay resident).
TEST(EasyRequest, ALargeAnswerBufferIsMappedOnItsOwnEvenAfterOneWasFreed) {
  if (testing::kSanitized) GTEST_SKIP() << "AddressSanitizer's allocator has no mmap threshold";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") ||
      (tunables && std::string_view(tunables).find("mmap_threshold") != std::string_view::npos))
    GTEST_SKIP() << "the environment sets glibc's mmap threshold";
  CURL* easy = curl_easy_init();
  ASSERT_NE(easy, nullptr);
  HttpRequest get;
  get.path = "/api/v1/namespaces/cnf/configmaps";
  set_method(easy, get, /*streaming=*/false);
  curl_easy_cleanup(easy);

  constexpr size_t kCurlBuffer = kLargeAnswerBuffer + 1;  // curl allocates one byte more
  held = std::malloc(kCurlBuffer);
  std::free(held);
  size_t mapped_before = mallinfo2().hblks;
  held = std::malloc(kCurlBuffer);
  EXPECT_EQ(mallinfo2().hblks, mapped_before + 1);
  std::free(held);
  EXPECT_EQ(mallinfo2().hblks, mapped_before);
}
#endif

}  // namespace
}  // namespace planter::kube
