#include "model/huge_page_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace planter {

namespace {

// Set for the second start: "on" when the user had no GLIBC_TUNABLES, "on:" and the user's
// value when they had. "off", set by a user, keeps glibc's defaults (the A/B switch).
constexpr const char* kMark = "PLANTER_HUGE_PAGE_HEAP";

// The process's own arguments, as the kernel keeps them (NUL-separated).
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

// The second start: the environment as the user gave it to the first.
void restore_environment(const std::string& mark) {
  if (mark == "on")
    ::unsetenv("GLIBC_TUNABLES");
  else
    ::setenv("GLIBC_TUNABLES", mark.substr(3).c_str(), 1);
  ::unsetenv(kMark);
}

}  // namespace

void run_on_huge_page_heap() {
#ifdef __GLIBC__
  if (const char* mark = std::getenv(kMark)) {
    std::string m = mark;
    if (m == "on" || m.starts_with("on:")) restore_environment(m);
    return;
  }
  const char* set = std::getenv("GLIBC_TUNABLES");
  std::string tunables = set ? set : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos ||
      tunables.find("glibc.malloc.arena_max") != std::string::npos)
    return;
  std::vector<std::string> args = own_arguments();
  if (args.empty()) return;
  std::string mark = set ? "on:" + tunables : "on";
  tunables +=
      std::string(tunables.empty() ? "" : ":") + "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1";
  if (::setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0 || ::setenv(kMark, mark.c_str(), 1) != 0)
    return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  // The exec failed: this process goes on with glibc's defaults, the environment as it was.
  restore_environment(mark);
#endif
}

}  // namespace planter
