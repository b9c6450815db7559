// The gallery under test (examples/, issue 52): every example is a folder whose README.md shows,
// in a ```sh block, the command that plants it on the sim from the repository's root; this runs
// that very line, as a user pastes it (planter, kubectl and helm on PATH), and it must plant
// everything it declares. An example without such a line fails.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kExamples = fs::path(PLANTER_SOURCE_DIR) / "examples";

// The first line of a ```sh block of README.md that runs `planter plant`.
std::string plant_line(const fs::path& readme) {
  std::istringstream in(read_file(readme));
  bool in_sh = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("```")) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (in_sh && line.find("planter plant ") != std::string::npos) return line;
  }
  return "";
}

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(kExamples))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ExamplesTest, TheGalleryHoldsAtLeastTenExamplesEachWithItsCommand) {
  std::vector<std::string> all = examples();
  EXPECT_GE(all.size(), 10u);
  for (const std::string& name : all) {
    fs::path readme = kExamples / name / "README.md";
    ASSERT_TRUE(fs::exists(readme)) << name << " has no README.md";
    EXPECT_NE(plant_line(readme), "") << name << "'s README.md shows no `planter plant` line";
  }
}

class ExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleTest, PlantsAsItsReadmeSays) {
  std::string line = plant_line(kExamples / GetParam() / "README.md");
  ASSERT_NE(line, "");
  fs::path home = fs::temp_directory_path() / fmt::format("planter-example-{}", GetParam());
  fs::create_directories(home);
  std::string path = fs::path(PLANTER_BINARY).parent_path().string() + ":" +
                     fs::path(kubectl_binary()).parent_path().string() + ":" +
                     fs::path(helm_binary()).parent_path().string();
  // As a user's bash runs it: a pipe fails when any of its commands does.
  fs::path script = home / "run.sh";
  std::ofstream(script) << fmt::format(
      "set -o pipefail\ncd {}\nexport PATH={}:\"$PATH\" HELM_CONFIG_HOME={} HELM_CACHE_HOME={} "
      "HELM_DATA_HOME={}\n{}\n",
      q(PLANTER_SOURCE_DIR), q(path), q(home / "config"), q(home / "cache"), q(home / "data"),
      line);
  CommandResult r = run_shell("bash " + q(script));
  EXPECT_EQ(r.code, 0) << line << "\n" << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted ")) << r.out;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(": failed: "))) << r.out;
  fs::remove_all(home);
}

// Every command of the README's ```sh blocks, as pasted, with its placeholders made the
// repository's examples (tests/readme_commands.py says which).
TEST(ReadmeTest, EveryCommandOfTheReadmeRuns) {
  CommandResult r = run_shell(fmt::format(
      "python3 {} {} {} {}", q(fs::path(PLANTER_SOURCE_DIR) / "tests/readme_commands.py"),
      q(fs::path(PLANTER_BINARY).parent_path()), q(fs::path(kubectl_binary()).parent_path()),
      q(fs::path(helm_binary()).parent_path())));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(" commands of the README ran")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Gallery, ExampleTest, ::testing::ValuesIn(examples()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace planter::testing
