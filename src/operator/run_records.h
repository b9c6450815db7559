// A Seed's run is planted in slices (slice_pool.h), each an engine of its own whose records count
// time from the slice's start. The run keeps its units' records on the run's clock: a slice's
// record is shifted by where the slice began and keeps the waits of the slices before it, so the
// run reads as one on the dashboard's timeline, with the pauses between slices as gaps.
#pragma once

#include <chrono>
#include <vector>

#include "plant/engine.h"

namespace planter::op {

// At a slice's start, on the records the slices before it left: each wait still open is closed
// at `last_end` (where the last slice ended on the run's clock).
void close_open_waits(std::vector<plant::UnitRecord>& records, std::chrono::microseconds last_end);

// `r`, a slice's record, on the run's clock: its times shifted by `offset` (where the slice began
// on it), after the waits of `before` (the run's record of the same unit) that began before the
// slice did: the earlier slices' (this slice's own begin at `offset` or later).
plant::UnitRecord on_run_clock(plant::UnitRecord r, std::chrono::microseconds offset,
                               const plant::UnitRecord& before);

}  // namespace planter::op
