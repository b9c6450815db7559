// The live progress as a terminal and a CI log show it: lines cut to the terminal's width as it is
// at each draw, no more clusters than its height holds, and on a pipe a quiet wait still said.
#include "plant/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "test_support.h"

namespace planter::plant {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::plan_yaml;

std::string seed_on(int clusters) {
  std::string yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: infra}\n";
  for (int c = 0; c < clusters; ++c)
    yaml += "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge" +
            std::to_string(c) + ", namespace: infra}\n---\napiVersion: v1\nkind: Namespace\n" +
            "metadata: {name: cnf, annotations: {planter.nephio.org/cluster: edge" +
            std::to_string(c) + "}}\n";
  return yaml;
}

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            ("planter-progress-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    out_ = std::fopen(path_.c_str(), "w");
    ASSERT_TRUE(out_);
  }
  void TearDown() override {
    if (out_) std::fclose(out_);
    fs::remove(path_);
  }
  std::string written() const {
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Each line as the terminal shows it (control sequences gone).
  std::vector<std::string> shown_lines() const {
    static const std::regex control("\x1b\\[[0-9;]*[A-Za-z]");
    std::vector<std::string> lines;
    std::istringstream in(written());
    for (std::string line; std::getline(in, line);)
      lines.push_back(std::regex_replace(line, control, ""));
    return lines;
  }
  fs::path path_;
  std::FILE* out_ = nullptr;
};

UnitRecord waiting(const std::string& what) {
  UnitRecord r;
  r.waiting_for = what;
  return r;
}

TEST_F(ProgressTest, OnATerminalEachDrawFitsTheWidthItHasThen) {
  auto out = plan_yaml(seed_on(2));
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::atomic<int> columns{100};
  ProgressOptions po;
  po.terminal = true;
  po.seed_name = "wide";
  po.size = [&] { return std::make_pair(columns.load(), 24); };
  Progress progress(out.plan, out_, po);
  std::string long_wait(200, 'x');
  for (size_t u = 0; u < out.plan.units.size(); ++u) progress.on_change(u, waiting(long_wait));
  // Drawn by the ticker at 100 columns, then the terminal shrinks before the final draw.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (written().empty() && std::chrono::steady_clock::now() < deadline)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(written().empty());
  columns = 30;
  progress.finish();
  std::vector<std::string> lines = shown_lines();
  ASSERT_GE(lines.size(), 8u);  // two frames of a header and three clusters
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_LE(display_width(lines[i]), i + 4 < lines.size() ? 100u : 30u) << lines[i];
  EXPECT_THAT(written(), HasSubstr("\x1b[J"));  // what the wider draw left is cleared
  EXPECT_THAT(lines.back(), HasSubstr("..."));
}

TEST_F(ProgressTest, ClustersBeyondTheTerminalsHeightAreCountedWaitingFirst) {
  auto out = plan_yaml(seed_on(30));
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ProgressOptions po;
  po.terminal = true;
  po.size = [] { return std::make_pair(80, 10); };
  Progress progress(out.plan, out_, po);
  // Everything is declared but edge29's Namespace, which waits.
  for (size_t u = 0; u < out.plan.units.size(); ++u) {
    UnitRecord r;
    bool waits = out.plan.units[u].cluster == "edge29";
    r.state = waits ? UnitState::kPending : UnitState::kDeclared;
    if (waits) r.waiting_for = "cluster edge29 ready";
    progress.on_change(u, r);
  }
  progress.finish();
  std::vector<std::string> lines = shown_lines();
  // The final frame: a header, as many clusters as fit, and what is left said in one line.
  ASSERT_GE(lines.size(), 8u);
  std::vector<std::string> frame(lines.end() - 8, lines.end());
  EXPECT_THAT(frame[0], HasSubstr("60/61 declared"));
  EXPECT_THAT(frame[1], HasSubstr("edge29"));
  EXPECT_THAT(frame[1], HasSubstr("waits for cluster edge29 ready"));
  EXPECT_THAT(frame[7], HasSubstr("more cluster(s), 0 of them waiting"));
}

TEST_F(ProgressTest, OnAPipeAQuietWaitIsSaidAgainAndAgain) {
  auto out = plan_yaml(seed_on(1));
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ProgressOptions po;
  po.still_waiting_every = std::chrono::milliseconds(50);
  Progress progress(out.plan, out_, po);
  for (size_t u = 0; u < out.plan.units.size(); ++u)
    if (out.plan.units[u].cluster == "edge0") progress.on_change(u, waiting("cluster edge0 ready"));
  auto said = [&] {
    std::string text = written();
    size_t n = 0;
    for (size_t at = text.find("still waiting"); at != std::string::npos;
         at = text.find("still waiting", at + 1))
      ++n;
    return n;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (said() < 2 && std::chrono::steady_clock::now() < deadline)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  progress.finish();
  EXPECT_GE(said(), 2u);
  EXPECT_THAT(written(), HasSubstr("edge0  still waiting: 1 of 1 unit(s) pending; Namespace/cnf "
                                   "waits for cluster edge0 ready"));
}

TEST(ProgressWidth, CountsAndCutsCharactersNotBytes) {
  EXPECT_EQ(display_width("caf\xc3\xa9"), 4u);
  EXPECT_EQ(fit_width("caf\xc3\xa9 au lait", 7), "caf\xc3\xa9...");
  EXPECT_EQ(fit_width("short", 7), "short");
  EXPECT_EQ(fit_width("abcdef", 2), "..");
}

}  // namespace
}  // namespace planter::plant
