// The Kubernetes CEL libraries DRA's selectors use (k8s.io/apiserver/pkg/cel/library: quantity,
// semver, strings), a device as DRA's environment binds it, and the limits that keep a hostile
// expression bounded: each expected value is from the libraries' documentation on kubernetes.io
// ("CEL in Kubernetes", "Kubernetes CEL libraries") and DRA's concept page.
#include <gtest/gtest.h>

#include <string>

#include "cel/program.h"

namespace planter::cel {
namespace {

std::string run(std::string_view expr, const Bindings& vars = {}) {
  ParseOptions options;
  for (const auto& [name, value] : vars) options.variables.push_back(name);
  auto program = Program::compile(expr, options);
  if (!program) return "parse-error:" + program.error().message;
  return program->evaluate(vars).value.debug();
}

TEST(CelKubernetesLibraries, QuantitiesCompareByAmount) {
  EXPECT_EQ(run("quantity('1Gi').isGreaterThan(quantity('500Mi'))"), "bool:true");
  EXPECT_EQ(run("quantity('100m').isLessThan(quantity('1'))"), "bool:true");
  EXPECT_EQ(run("quantity('1k').compareTo(quantity('1000'))"), "int:0");
  EXPECT_EQ(run("quantity('2').asInteger()"), "int:2");
  EXPECT_EQ(run("quantity('1.5').isInteger()"), "bool:false");
  EXPECT_EQ(run("quantity('50Mi').asApproximateFloat()"), "double:52428800");
  EXPECT_EQ(run("quantity('1Gi') == quantity('1024Mi')"), "bool:true");
  EXPECT_EQ(run("quantity('1').add(quantity('500m')).isGreaterThan(quantity('1.4'))"), "bool:true");
  EXPECT_EQ(run("quantity('-1').sign()"), "int:-1");
  EXPECT_EQ(run("isQuantity('1Gi')"), "bool:true");
  EXPECT_EQ(run("isQuantity('one gig')"), "bool:false");
  EXPECT_TRUE(run("quantity('one gig')").starts_with("error:quantities must match"));
  EXPECT_TRUE(run("quantity('1.5').asInteger()").starts_with("error:cannot convert"));
}

TEST(CelKubernetesLibraries, VersionsCompareAsSemverSays) {
  EXPECT_EQ(run("semver('1.2.3').isGreaterThan(semver('1.2.2'))"), "bool:true");
  EXPECT_EQ(run("semver('1.10.0').isGreaterThan(semver('1.9.9'))"), "bool:true");
  EXPECT_EQ(run("semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))"), "bool:true");
  EXPECT_EQ(run("semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))"), "bool:true");
  EXPECT_EQ(run("semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))"), "bool:true");
  EXPECT_EQ(run("semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))"), "bool:true");
  EXPECT_EQ(run("semver('1.0.0+build.5') == semver('1.0.0')"), "bool:true");
  EXPECT_EQ(run("semver('2.3.4').major() == 2 && semver('2.3.4').minor() == 3"), "bool:true");
  EXPECT_EQ(run("semver('1.2.3').compareTo(semver('1.2.3'))"), "int:0");
  EXPECT_EQ(run("isSemver('1.2')"), "bool:false");
  EXPECT_EQ(run("isSemver('01.2.3')"), "bool:false");
  EXPECT_TRUE(run("semver('v1.2.3')").starts_with("error:could not parse"));
  EXPECT_TRUE(
      run("semver('1.2.3').isGreaterThan(quantity('1'))").starts_with("error:no such overload"));
}

TEST(CelKubernetesLibraries, Strings) {
  EXPECT_EQ(run("'NVIDIA A100'.lowerAscii()"), "string:\"nvidia a100\"");
  EXPECT_EQ(run("'mig-1g'.upperAscii()"), "string:\"MIG-1G\"");
  EXPECT_EQ(run("'  x '.trim()"), "string:\"x\"");
  EXPECT_EQ(run("'a,b,c'.split(',')"), "list:[string:\"a\", string:\"b\", string:\"c\"]");
  EXPECT_EQ(run("['a', 'b'].join('-')"), "string:\"a-b\"");
  EXPECT_EQ(run("'a.b.c'.replace('.', '/')"), "string:\"a/b/c\"");
  EXPECT_EQ(run("'h\xC3\xA9llo'.indexOf('llo')"), "int:2");
}

// A device as DRA binds it: `device.driver`, `device.attributes[domain].name`,
// `device.capacity[domain].name` (the DRA concept page's examples).
Bindings gpu(std::string model, int64_t memory_gib, std::string driver_version) {
  Map nvidia = {{Value::string("model"), Value::string(std::move(model))},
                {Value::string("driverVersion"),
                 Value::semver(Semver{std::stoll(driver_version), 0, 0, ""})}};
  Map capacity = {
      {Value::string("memory"), Value::quantity({static_cast<double>(memory_gib) * (1ll << 30),
                                                 std::to_string(memory_gib) + "Gi"})}};
  Map device = {
      {Value::string("driver"), Value::string("gpu.nvidia.com")},
      {Value::string("attributes"),
       Value::map({{Value::string("gpu.nvidia.com"), Value::map(nvidia)}})},
      {Value::string("capacity"),
       Value::map({{Value::string("gpu.nvidia.com"), Value::map(capacity)}})},
  };
  return {{"device", Value::map(std::move(device))}};
}

TEST(CelDevices, SelectorsReadADevicesDriverAttributesAndCapacity) {
  Bindings a100 = gpu("A100", 80, "550");
  EXPECT_EQ(run("device.driver == 'gpu.nvidia.com'", a100), "bool:true");
  EXPECT_EQ(run("device.attributes['gpu.nvidia.com'].model == 'A100'", a100), "bool:true");
  EXPECT_EQ(run("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", a100),
            "bool:true");
  EXPECT_EQ(
      run("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('500.0.0'))",
          a100),
      "bool:true");
  // A missing attribute is an error, which makes the device not match (the plugin's rule).
  EXPECT_TRUE(run("device.attributes['dra.example.com'].model == 'x'", a100)
                  .starts_with("error:no such key"));
  EXPECT_EQ(run("has(device.attributes.foo)", a100), "bool:false");
  EXPECT_TRUE(run("devices.driver == 'x'", a100).starts_with("parse-error:"));
  // The error names the line and column of the unknown name, as cel-go does.
  EXPECT_EQ(run("device.driver == 'x' &&\n  dvice.driver == 'y'", a100),
            "parse-error:ERROR: <input>:2:3: undeclared reference to 'dvice' (in container '')");
}

TEST(CelLimits, HostileExpressionsAreRefusedOrBoundedNeverACrash) {
  // Nesting deeper than the parser takes.
  std::string deep(5000, '(');
  deep += "1" + std::string(5000, ')');
  EXPECT_TRUE(run(deep).find("nests deeper") != std::string::npos);
  std::string deep_list(5000, '[');
  deep_list += std::string(5000, ']');
  EXPECT_TRUE(run(deep_list).starts_with("parse-error:"));
  // A long chain is a deep tree: refused, not evaluated recursively.
  std::string chain = "1";
  for (int i = 0; i < 2000; ++i) chain += " + 1";
  EXPECT_TRUE(run(chain).find("deeper than") != std::string::npos);
  // A chain of || is one node: fine however long.
  std::string ors = "false";
  for (int i = 0; i < 2000; ++i) ors += " || false";
  EXPECT_EQ(run(ors + " || true"), "bool:true");
  // Longer than any expression Kubernetes takes.
  EXPECT_TRUE(run(std::string(200 * 1024, ' ') + "1").find("longer than") != std::string::npos);
  // Quadratic and exponential work ends at the cost limit.
  std::string big_list = "[";
  for (int i = 0; i < 1000; ++i) big_list += (i ? ", " : "") + std::to_string(i);
  big_list += "]";
  EXPECT_EQ(run(big_list + ".all(x, " + big_list + ".all(y, x + y >= 0))"),
            "error:operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(run(big_list + ".map(x, " + big_list + ".map(y, " + big_list + ".size()))"),
            "error:operation cancelled: actual cost limit exceeded");
  // Lists concatenated in a loop: bounded by what values built in one evaluation may hold.
  EXPECT_EQ(run(big_list + ".map(x, " + big_list + " + " + big_list + " + " + big_list + ")"),
            "error:operation cancelled: actual cost limit exceeded");
  // A regular expression that does not compile is an error, not a crash.
  EXPECT_TRUE(run("'a'.matches('(')").starts_with("error:invalid regular expression"));
}

}  // namespace
}  // namespace planter::cel
