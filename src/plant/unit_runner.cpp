#include "plant/unit_runner.h"

namespace planter::plant {

RunEnd run_units(EventLoop& loop, Fleet& fleet, size_t units,
                 const std::function<void(size_t unit)>& evaluate,
                 const std::function<bool()>& any_open, EventLoop::Clock::time_point start,
                 std::optional<std::chrono::milliseconds> timeout, std::stop_token stop) {
  RunEnd end;
  fleet.start();
  for (size_t u = 0; u < units; ++u) evaluate(u);
  if (any_open()) {
    std::optional<EventLoop::Clock::time_point> deadline;
    if (timeout) deadline = start + *timeout;
    EventLoop::End how = loop.run(deadline, std::move(stop));
    end.timed_out = how == EventLoop::End::kDeadline;
    end.stopped = how == EventLoop::End::kCancelled;
  }
  fleet.stop();
  return end;
}

}  // namespace planter::plant
