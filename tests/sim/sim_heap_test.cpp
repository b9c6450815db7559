// `planter sim` starts itself again on glibc's main arena with transparent huge pages
// (model/huge_page_heap.h): the same process, arguments and service, and a user's own allocator
// tunables are left as the user set them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sanitized.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

// /proc/PID/<file>'s NUL-separated strings.
std::vector<std::string> proc_strings(int pid, const std::string& file) {
  std::string all = read_file("/proc/" + std::to_string(pid) + "/" + file);
  std::vector<std::string> out;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    out.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::map<std::string, std::string> environment_of(int pid) {
  std::map<std::string, std::string> env;
  for (const std::string& kv : proc_strings(pid, "environ"))
    env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  return env;
}

TEST(SimHeapTest, TheSimRunsOnTheMainArenaWithHugePagesAndServesWithItsOwnArguments) {
  ::unsetenv("GLIBC_TUNABLES");
  SimProcess sim({"--nodes", "2"});
  ASSERT_TRUE(sim.running());
  auto env = environment_of(sim.pid());
  // The second start's mark; glibc rewrites GLIBC_TUNABLES in place as it reads it, and what
  // /proc shows of it afterwards is only its first entry.
  EXPECT_EQ(env["PLANTER_HUGE_PAGE_HEAP"], "on");
  EXPECT_TRUE(env["GLIBC_TUNABLES"].starts_with("glibc.malloc.arena_max=1"))
      << env["GLIBC_TUNABLES"];
  // Where the kernel gives huge pages to whoever asks (madvise), glibc asked for the heap's
  // (under AddressSanitizer the allocator is ASan's, not glibc's).
  if (!kSanitized && read_file("/sys/kernel/mm/transparent_hugepage/enabled").find("[madvise]") !=
                         std::string::npos) {
    std::string smaps = read_file("/proc/" + std::to_string(sim.pid()) + "/smaps");
    bool huge = false;
    for (size_t at = smaps.find("[heap]"); at != std::string::npos && !huge;
         at = smaps.find("[heap]", at + 1)) {
      size_t flags = smaps.find("VmFlags:", at);
      size_t end = smaps.find('\n', flags);
      huge = flags != std::string::npos &&
             smaps.substr(flags, end - flags).find(" hg") != std::string::npos;
    }
    EXPECT_TRUE(huge) << smaps;
  }
  // The process the test started is the one that serves, with the arguments it was given.
  std::vector<std::string> args = proc_strings(sim.pid(), "cmdline");
  ASSERT_GE(args.size(), 4u);
  EXPECT_EQ(args[1], "sim");
  EXPECT_EQ(args[args.size() - 2], "--nodes");
  EXPECT_EQ(args.back(), "2");
  CommandResult nodes = sim.kubectl("get nodes -o name");
  EXPECT_EQ(nodes.code, 0) << nodes.err;
  EXPECT_EQ(std::count(nodes.out.begin(), nodes.out.end(), '\n'), 2) << nodes.out;
}

TEST(SimHeapTest, AUsersOwnMallocTunablesAreLeftAsTheUserSetThem) {
  ASSERT_EQ(::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", 1), 0);
  SimProcess sim;
  ::unsetenv("GLIBC_TUNABLES");
  ASSERT_TRUE(sim.running());
  auto env = environment_of(sim.pid());
  EXPECT_EQ(env["GLIBC_TUNABLES"], "glibc.malloc.hugetlb=0");
  EXPECT_EQ(env.count("PLANTER_HUGE_PAGE_HEAP"), 0u);
}

}  // namespace
}  // namespace planter::testing
