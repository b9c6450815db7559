#include "operator/run_records.h"

#include <algorithm>

namespace planter::op {

void carry_waits(std::vector<plant::UnitRecord>& records, std::chrono::microseconds last_end,
                 std::vector<uint32_t>& carried) {
  carried.assign(records.size(), 0);
  for (size_t u = 0; u < records.size(); ++u) {
    for (plant::WaitSpan& w : records[u].waits)
      if (w.until < 0) w.until = std::max(last_end.count(), w.since);
    carried[u] = static_cast<uint32_t>(records[u].waits.size());
  }
}

plant::UnitRecord on_run_clock(plant::UnitRecord r, std::chrono::microseconds offset,
                               const plant::UnitRecord& before, uint32_t carried) {
  auto shift = [&](std::optional<std::chrono::microseconds>& t) {
    if (t) *t += offset;
  };
  shift(r.ready);
  shift(r.declared);
  shift(r.failed);
  shift(r.sent);
  carried = std::min<uint32_t>(carried, static_cast<uint32_t>(before.waits.size()));
  std::vector<plant::WaitSpan> waits(before.waits.begin(), before.waits.begin() + carried);
  waits.reserve(carried + r.waits.size());
  for (plant::WaitSpan w : r.waits) {
    w.since += offset.count();
    if (w.until >= 0) w.until += offset.count();
    waits.push_back(w);
  }
  r.waits = std::move(waits);
  return r;
}

}  // namespace planter::op
