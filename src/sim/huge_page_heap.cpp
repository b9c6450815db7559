#include "sim/huge_page_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace planter::sim {

namespace {

constexpr const char* kStarted = "PLANTER_SIM_HEAP";  // set for the second start

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

}  // namespace

void run_on_huge_page_heap() {
#ifdef __GLIBC__
  if (std::getenv(kStarted)) return;
  const char* set = std::getenv("GLIBC_TUNABLES");
  std::string tunables = set ? set : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos ||
      tunables.find("glibc.malloc.arena_max") != std::string::npos)
    return;
  std::vector<std::string> args = own_arguments();
  if (args.empty()) return;
  tunables +=
      std::string(tunables.empty() ? "" : ":") + "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1";
  if (::setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0 || ::setenv(kStarted, "1", 1) != 0)
    return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  // The exec failed: this process goes on with glibc's defaults, the environment as it was.
  if (set)
    ::setenv("GLIBC_TUNABLES", set, 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv(kStarted);
#endif
}

}  // namespace planter::sim
