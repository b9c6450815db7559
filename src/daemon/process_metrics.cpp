#include "daemon/process_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace planter::daemon {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;

// What /proc says of this process, for the process_* families (as Prometheus' process
// collector reads it).
struct ProcessStats {
  double cpu_seconds = 0, start_time = 0, virtual_bytes = 0, resident_bytes = 0;
  double open_fds = 0, max_fds = 0;
};

ProcessStats process_stats() {
  ProcessStats s;
  long ticks = ::sysconf(_SC_CLK_TCK), page = ::sysconf(_SC_PAGESIZE);
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close != std::string::npos && ticks > 0) {
    std::istringstream fields(text.substr(close + 2));
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    // Fields from the state (3rd of proc(5)); utime is the 14th, starttime the 22nd, vsize the
    // 23rd, rss the 24th.
    auto at = [&](size_t n) { return n - 3 < f.size() ? std::atof(f[n - 3].c_str()) : 0.0; };
    s.cpu_seconds = (at(14) + at(15)) / static_cast<double>(ticks);
    s.virtual_bytes = at(23);
    s.resident_bytes = at(24) * static_cast<double>(page);
    std::ifstream boot("/proc/stat");
    for (std::string line; std::getline(boot, line);)
      if (line.starts_with("btime "))
        s.start_time = std::atof(line.c_str() + 6) + at(22) / static_cast<double>(ticks);
  }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++s.open_fds;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) s.max_fds = static_cast<double>(limit.rlim_cur);
  return s;
}

}  // namespace

void catch_up(prometheus::Counter& counter, double total) {
  if (total > counter.Value()) counter.Increment(total - counter.Value());
}

struct ProcessMetrics::Impl {
  prometheus::Counter& cpu;
  prometheus::Gauge &resident_memory, &virtual_memory, &open_fds, &max_fds, &start_time;

  explicit Impl(prometheus::Registry& r)
      : cpu(BuildCounter()
                .Name("process_cpu_seconds_total")
                .Help("Total user and system CPU time spent in seconds.")
                .Register(r)
                .Add({})),
        resident_memory(BuildGauge()
                            .Name("process_resident_memory_bytes")
                            .Help("Resident memory size in bytes.")
                            .Register(r)
                            .Add({})),
        virtual_memory(BuildGauge()
                           .Name("process_virtual_memory_bytes")
                           .Help("Virtual memory size in bytes.")
                           .Register(r)
                           .Add({})),
        open_fds(BuildGauge()
                     .Name("process_open_fds")
                     .Help("Number of open file descriptors.")
                     .Register(r)
                     .Add({})),
        max_fds(BuildGauge()
                    .Name("process_max_fds")
                    .Help("Maximum number of open file descriptors.")
                    .Register(r)
                    .Add({})),
        start_time(BuildGauge()
                       .Name("process_start_time_seconds")
                       .Help("Start time of the process since unix epoch in seconds.")
                       .Register(r)
                       .Add({})) {}
};

ProcessMetrics::ProcessMetrics(prometheus::Registry& registry, const std::string& version)
    : impl_(std::make_unique<Impl>(registry)) {
  BuildGauge()
      .Name("planter_build_info")
      .Help("1, labelled with the version of planter that runs.")
      .Register(registry)
      .Add({{"version", version}})
      .Set(1);
}

ProcessMetrics::~ProcessMetrics() = default;

void ProcessMetrics::update() {
  ProcessStats p = process_stats();
  catch_up(impl_->cpu, p.cpu_seconds);
  impl_->resident_memory.Set(p.resident_bytes);
  impl_->virtual_memory.Set(p.virtual_bytes);
  impl_->open_fds.Set(p.open_fds);
  impl_->max_fds.Set(p.max_fds);
  impl_->start_time.Set(p.start_time);
}

}  // namespace planter::daemon
