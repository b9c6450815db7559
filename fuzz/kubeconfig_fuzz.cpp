// libFuzzer target: a kubeconfig from any bytes, then every context resolved as planter would
// before connecting. Errors are values; nothing crashes. Files it names are read (the fuzzer runs
// in a throwaway folder); exec plugins are only located, never run.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto k =
      planter::kube::Kubeconfig::parse(std::string_view(reinterpret_cast<const char*>(data), size),
                                       "fuzz-kubeconfig", "/nonexistent");
  if (!k) return 0;
  (void)k->rest_config();
  for (const std::string& context : k->contexts()) (void)k->rest_config(context);
  return 0;
}
