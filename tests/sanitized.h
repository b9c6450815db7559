// Whether the tests (and the planter they run) are built with AddressSanitizer: its allocator
// keeps freed memory in quarantine (256 MiB at most) and its code runs at -O0, so memory and time
// bounds measured in a test need room on top.
#pragma once

namespace planter::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace planter::testing
