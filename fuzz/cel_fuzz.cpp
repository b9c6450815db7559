// libFuzzer target: any text as a CEL expression (a DRA selector, a CRD validation rule), parsed
// and, when it parses, evaluated against a device as DRA binds one. Bad input ends in a parse
// error or an error value, never in a crash, a hang (the cost limit ends every evaluation) or
// memory out of proportion to the input (docs/cel.md, docs/limits.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cel/program.h"

namespace {

planter::cel::Bindings device() {
  using planter::cel::Map;
  using planter::cel::Value;
  Map attributes = {{Value::string("model"), Value::string("A100")},
                    {Value::string("index"), Value::integer(3)},
                    {Value::string("driverVersion"), Value::semver({550, 54, 15, ""})}};
  Map capacity = {{Value::string("memory"), Value::quantity({80.0 * (1ll << 30), "80Gi"})}};
  Map d = {{Value::string("driver"), Value::string("gpu.nvidia.com")},
           {Value::string("attributes"),
            Value::map({{Value::string("gpu.nvidia.com"), Value::map(attributes)}})},
           {Value::string("capacity"),
            Value::map({{Value::string("gpu.nvidia.com"), Value::map(capacity)}})}};
  return {{"device", Value::map(d)}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const planter::cel::Bindings vars = device();
  static const planter::cel::ParseOptions options{{"device"}};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = planter::cel::Program::compile(text, options);
  if (program) (void)program->evaluate(vars);
  return 0;
}
