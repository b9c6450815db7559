// The process heap on glibc's main arena with transparent huge pages, for the processes that
// allocate much and live on it: the sim (its one loop thread keeps every object and version) and
// `planter plan` (the seed's objects, the plan, its JSON). In a thread's own arena glibc grows
// the heap a page at a time (an mprotect and a page fault for each 4 KiB), and on 4 KiB pages a
// sixth of a 100,000-object plan's samples were page faults (docs/decisions.md, "The sim's heap
// on huge pages" and "`plan` on huge pages").
#pragma once

namespace planter {

// Starts this process again, with the same arguments and environment, once GLIBC_TUNABLES has
// glibc.malloc.arena_max=1 and glibc.malloc.hugetlb=1 added to what it says. Returns (and the
// process goes on as it is) when the user set either tunable, when PLANTER_HUGE_PAGE_HEAP=off,
// when the arguments cannot be read back, or when the exec fails. In the second start it puts
// GLIBC_TUNABLES back as the user had it (glibc has read it by then), so that what this process
// starts (plugins, credential helpers) gets the user's environment. Call it first, before any
// thread starts.
void run_on_huge_page_heap();

}  // namespace planter
