// The download buffer of a request whose answer may be large, and where the process's allocator
// puts it. curl 7.88's HTTP/2 loses an answer now and then when a stream's buffer (16 KiB by
// default) is full while the connection is read for another stream (docs/decisions.md, session
// 38), so a read gets a buffer that holds discovery, a page of a list or a large object whole.
#pragma once

namespace planter::kube {

inline constexpr long kLargeAnswerBuffer = 512 * 1024;

// Serves every block of kLargeAnswerBuffer bytes or more from a mapping of its own, given back to
// the system when it is freed. glibc does so for the first, but once one is freed it raises its
// threshold to that block's size (its dynamic threshold) and carves every later one out of a heap
// arena whose pages stay resident after curl frees it: about 45 MiB of 5,000 clusters' peak
// (docs/decisions.md, "curl's answer buffers from mmap"). Called by each request that sets such a
// buffer, and by the commands that talk to clusters as they start, so that the seed's own large
// blocks (read before any request) are placed the same way. Does nothing when the user set the
// threshold (MALLOC_MMAP_THRESHOLD_, or glibc.malloc.mmap_threshold in GLIBC_TUNABLES), and
// outside glibc. Safe to call from any thread, any number of times.
void map_large_answer_buffers();

}  // namespace planter::kube
