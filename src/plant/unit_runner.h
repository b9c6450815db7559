// The drive the engine and uproot share: start the fleet, look at every unit once, then run the
// event loop until every unit is settled (the caller stops the loop when none is open), the
// timeout passes or a stop is asked; then stop the fleet's watches.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stop_token>

#include "plant/event_loop.h"
#include "plant/fleet.h"

namespace planter::plant {

struct RunEnd {
  bool timed_out = false;
  bool stopped = false;
};

RunEnd run_units(EventLoop& loop, Fleet& fleet, size_t units,
                 const std::function<void(size_t unit)>& evaluate,
                 const std::function<bool()>& any_open, EventLoop::Clock::time_point start,
                 std::optional<std::chrono::milliseconds> timeout, std::stop_token stop);

}  // namespace planter::plant
