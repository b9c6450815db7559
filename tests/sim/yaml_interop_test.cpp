// planter's YAML against Debian's PyYAML and ruamel.yaml (tests/sim/yaml_interop.py), and the
// issue's reproduction end to end: kube-prometheus re-dumped by PyYAML plants with every ConfigMap
// as PyYAML reads it, the same on every run, clean under valgrind's memcheck.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>

#include "sanitized.h"
#include "shared_dir.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(PLANTER_SHARED_DIR) / "corpus";
const std::string kScript = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/yaml_interop.py";

// The seed of the script's generator: PLANTER_TEST_SEED replays a run.
uint32_t test_seed() {
  if (const char* s = std::getenv("PLANTER_TEST_SEED")) return static_cast<uint32_t>(std::stoul(s));
  return std::random_device{}();
}

TEST(YamlInterop, EveryCorpusSeedReDumpedReadsAsPyYamlReadsIt) {
  REQUIRE_SHARED(kCorpus);
  uint32_t seed = test_seed();
  std::cout << "PLANTER_TEST_SEED=" << seed << std::endl;
  RecordProperty("PLANTER_TEST_SEED", std::to_string(seed));
  // Under the sanitizers planter runs at -O0 with ASan: three styles, not seven, keep the test
  // within its label's TIMEOUT.
  std::string styles =
      kSanitized ? "PLANTER_INTEROP_STYLES=pyyaml-default,pyyaml-width40,pyyaml-double-quoted "
                 : "";
  CommandResult r =
      run_shell(fmt::format("{}{} {} streams {} {} {}", styles, python_with_kubernetes(),
                            q(kScript), q(PLANTER_BINARY), q(kCorpus), seed));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" objects compared, 0 differences"), std::string::npos) << r.out;
  // Decided apart, and said: ruamel.yaml (YAML 1.2) writes `no` plain, which kubectl reads false.
  EXPECT_NE(r.out.find("DECIDED"), std::string::npos) << r.out;
}

class ReDumpedKubePrometheus : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_SHARED(kCorpus);
    dir_ = fs::temp_directory_path() / fmt::format("planter-redump-{}", ::getpid());
    fs::create_directories(dir_);
    seed_ = dir_ / "kube-prometheus.yaml";
    CommandResult r =
        run_shell(fmt::format("{} {} redump {} {}", python_with_kubernetes(), q(kScript),
                              q(kCorpus / "kube-prometheus/seed.yaml"), q(seed_)));
    ASSERT_EQ(r.code, 0) << r.err;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, seed_;
};

TEST_F(ReDumpedKubePrometheus, PlantsEveryConfigMapAsPyYamlReadsIt) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  CommandResult planted =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed_) + " --timeout 300");
  ASSERT_EQ(planted.code, 0) << planted.out << planted.err;
  CommandResult r = run_shell(fmt::format("{} {} planted {} {}", python_with_kubernetes(),
                                          q(kScript), q(sim.kubeconfig()), q(seed_)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" values compared, 0 differ"), std::string::npos) << r.out;
}

// The unwritten tail of a decoded string was heap memory: memcheck reports uninitialised bytes
// reaching a write. Not under ASan (valgrind cannot run an ASan binary; ASan itself was silent).
TEST_F(ReDumpedKubePrometheus, AnnotateIsCleanUnderValgrindAndTheSameOnEveryRun) {
  if (kSanitized) GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build";
  CommandResult first = planter("annotate " + q(seed_));
  ASSERT_EQ(first.code, 0) << first.err;
  CommandResult again = planter("annotate " + q(seed_));
  EXPECT_TRUE(first.out == again.out) << "two runs wrote different bytes";
  EXPECT_EQ(first.out.find('\0'), std::string::npos);
  CommandResult checked = run_shell(fmt::format(
      "valgrind --tool=memcheck --error-exitcode=99 --track-origins=no --quiet {} annotate {} "
      "> {}",
      q(PLANTER_BINARY), q(seed_), q(dir_ / "valgrind.out")));
  EXPECT_EQ(checked.code, 0) << checked.err;
  EXPECT_TRUE(read_file(dir_ / "valgrind.out") == first.out) << "valgrind's run wrote other bytes";
}

}  // namespace
}  // namespace planter::testing
