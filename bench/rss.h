// Resident memory of a process, for the benchmarks that print it (Linux /proc).
#pragma once

#include <sys/types.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace planter::bench {

// VmRSS of process `pid` (0: this process) in MiB; 0 when it cannot be read.
inline double rss_mib(pid_t pid = 0) {
  std::ifstream status(pid == 0 ? std::string("/proc/self/status")
                                : "/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:")) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return 0;
}

}  // namespace planter::bench
