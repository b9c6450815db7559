// `planter plant --ui` (docs/cli.md, "The live view"), as a person at a browser sees it: the
// page read in headless Chromium while a roll-out waits for its approval and after it, and its
// event stream telling each change as it comes (tests/plant/live_view_check.py, which says what
// it checks).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "plant/plant_support.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(LiveViewTest, ThePageShowsEachUnitsStateAndFollowsThePlanting) {
  fs::path dir = fs::temp_directory_path() / fmt::format("planter-live-view-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  CommandResult r =
      run_shell(python_with_kubernetes() + " " + q(kSource / "tests/plant/live_view_check.py") +
                " " + q(PLANTER_BINARY) + " " + q(dir));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The stream told edge2's unit pending first and declared last (between them, as it went:
  // what it waited for changing, being declared).
  EXPECT_THAT(r.out, HasSubstr("edge2's unit in them: pending -> ")) << r.out;
  EXPECT_THAT(r.out, HasSubstr(" -> declared\n")) << r.out;
  EXPECT_THAT(r.out, ::testing::EndsWith("ok\n")) << r.out;
  fs::remove_all(dir);
}

TEST(LiveViewTest, AnAddressItCannotServeIsBadInput) {
  CommandResult r =
      planter("plant --sim --ui nowhere " + q(kSource / "examples/hello-world/seed.yaml"));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("--ui nowhere: address \"nowhere\": expected [HOST]:PORT; give "
                               "[HOST]:PORT, such as 127.0.0.1:8090"));
  EXPECT_THAT(r.err, HasSubstr("nothing was declared"));
}

}  // namespace
}  // namespace planter::testing
