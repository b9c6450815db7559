// What this machine costs today, so that a day's figures can be read against another day's: the
// same planter binary planned 100,000 objects in 0.58 s one day and 1.2 s another on this
// two-core VM, and the difference was not planter's. Three costs, three runs each (min / median
// / max):
//   - a page fault: touching fresh anonymous memory, 4 KiB pages (what a heap that grows pays
//     per page), and the same memory asked for as transparent huge pages (MADV_HUGEPAGE) where
//     the kernel offers them;
//   - a system call: getppid through syscall(2), which no library answers from a cache;
//   - the processor alone: a loop of integer arithmetic with no memory traffic.
// Numbers only; nothing passes or fails on time.
//
// Usage: machine_bench [MIB]   (fresh memory touched per run; default 256)
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& fn) {
  auto start = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// min / median / max of three runs of `fn`, each giving one figure.
void report(const char* what, const char* unit, const std::function<double()>& fn) {
  std::vector<double> v;
  for (int i = 0; i < 3; ++i) v.push_back(fn());
  std::sort(v.begin(), v.end());
  std::printf("%-58s %10.2f / %.2f / %.2f %s\n", what, v[0], v[1], v[2], unit);
}

// Microseconds per page to touch `bytes` of fresh memory, with huge pages asked for or not.
double touch_per_page(size_t bytes, bool huge) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("machine_bench: mmap");
    std::exit(1);
  }
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  auto* bytes_at = static_cast<volatile char*>(p);
  double s = seconds_of([&] {
    for (size_t at = 0; at < bytes; at += 4096) bytes_at[at] = 1;
  });
  munmap(p, bytes);
  return s * 1e6 / static_cast<double>(bytes / 4096);
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1)
                                                   : "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  if (mib == 0) mib = 256;
  size_t bytes = mib << 20;
  std::printf("machine: %ld cores online, transparent huge pages: %s\n",
              sysconf(_SC_NPROCESSORS_ONLN), thp_mode().c_str());
  report(("page fault, 4 KiB pages (" + std::to_string(mib) + " MiB touched)").c_str(),
         "us per 4 KiB", [&] { return touch_per_page(bytes, false); });
  report(("the same with MADV_HUGEPAGE (" + std::to_string(mib) + " MiB touched)").c_str(),
         "us per 4 KiB", [&] { return touch_per_page(bytes, true); });
  constexpr int kCalls = 1'000'000;
  report("system call (getppid, 1,000,000 calls)", "ns per call", [] {
    return seconds_of([] {
             for (int i = 0; i < kCalls; ++i) syscall(SYS_getppid);
           }) *
           1e9 / kCalls;
  });
  constexpr uint64_t kSteps = 200'000'000;
  report("processor (200,000,000 steps of an integer recurrence)", "ns per step", [] {
    volatile uint64_t sink = 0;
    double s = seconds_of([&] {
      uint64_t x = 1;
      for (uint64_t i = 0; i < kSteps; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      sink = x;
    });
    (void)sink;
    return s * 1e9 / static_cast<double>(kSteps);
  });
  return 0;
}
