// libFuzzer target: a watch stream split at every point the input says. The first byte picks
// where the stream is cut, so events split across network reads are covered too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/watch_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = 1 + data[0] % 64;
  std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  planter::kube::WatchDecoder decoder;
  size_t events = 0;
  for (size_t at = 0; at < stream.size(); at += chunk)
    if (!decoder.feed(stream.substr(at, chunk), [&](planter::kube::WatchEvent) { ++events; }))
      break;
  return 0;
}
