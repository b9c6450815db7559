// The sim's process heap: glibc's main arena on transparent huge pages. The sim's one loop
// thread allocates every object and version it keeps; in a thread's own arena glibc grows the
// heap a page at a time (an mprotect and a page fault for each 4 KiB), which was a quarter of
// the loop in scheduler_perf's SchedulingBasic (docs/decisions.md, "The sim's heap on huge pages").
#pragma once

namespace planter::sim {

// Starts this process again, with the same arguments and environment, once GLIBC_TUNABLES has
// glibc.malloc.arena_max=1 and glibc.malloc.hugetlb=1 added to what it says. Returns (and the
// process goes on as it is) when the user set either tunable, when this is the second start,
// when the arguments cannot be read back, or when the exec fails. `planter sim` and the benches
// that fork a sim call it first, before any thread starts.
void run_on_huge_page_heap();

}  // namespace planter::sim
