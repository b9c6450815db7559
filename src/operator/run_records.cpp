#include "operator/run_records.h"

#include <algorithm>

namespace planter::op {

void close_open_waits(std::vector<plant::UnitRecord>& records, std::chrono::microseconds last_end) {
  for (plant::UnitRecord& r : records)
    for (plant::WaitSpan& w : r.waits)
      if (w.until < 0) w.until = std::max(last_end.count(), w.since);
}

plant::UnitRecord on_run_clock(plant::UnitRecord r, std::chrono::microseconds offset,
                               const plant::UnitRecord& before) {
  auto shift = [&](std::optional<std::chrono::microseconds>& t) {
    if (t) *t += offset;
  };
  shift(r.ready);
  shift(r.declared);
  shift(r.failed);
  shift(r.sent);
  std::vector<plant::WaitSpan> waits;
  waits.reserve(before.waits.size() + r.waits.size());
  for (const plant::WaitSpan& w : before.waits)
    if (w.since < offset.count()) waits.push_back(w);
  for (plant::WaitSpan w : r.waits) {
    w.since += offset.count();
    if (w.until >= 0) w.until += offset.count();
    waits.push_back(w);
  }
  r.waits = std::move(waits);
  return r;
}

}  // namespace planter::op
