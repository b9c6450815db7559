// A Seed's run on the operator's clock (src/operator/run_records.h): a unit that waits through
// two slices keeps the first slice's wait, closed where that slice ended, and the second's,
// shifted to where it began; its declaring is told at the run's time, not the slice's.
#include "operator/run_records.h"

#include <gtest/gtest.h>

namespace planter::op {
namespace {

using std::chrono::microseconds;

TEST(RunRecords, AWaitThroughTwoSlicesIsToldOnTheRunsClock) {
  // The first slice (0 to 1 s): unit 0 declared at 0.2 s, unit 1 waits for requirement 0.
  std::vector<plant::UnitRecord> records(2);
  records[0].state = plant::UnitState::kDeclared;
  records[0].declared = microseconds(200'000);
  records[1].waits.push_back({100'000, -1, 0});
  close_open_waits(records, microseconds(1'000'000));
  EXPECT_TRUE(records[0].waits.empty()) << "unit 0 carries no wait into the second slice";
  ASSERT_EQ(records[1].waits.size(), 1u) << "unit 1 carries one";
  EXPECT_EQ(records[1].waits[0].until, 1'000'000) << "closed where the first slice ended";

  // The second slice begins at 3 s: unit 1 waits 0.5 s more, then is declared at 0.6 s.
  plant::UnitRecord slice;
  slice.state = plant::UnitState::kDeclared;
  slice.waits.push_back({0, 500'000, 0});
  slice.ready = microseconds(500'000);
  slice.sent = microseconds(510'000);
  slice.declared = microseconds(600'000);
  plant::UnitRecord run = on_run_clock(slice, microseconds(3'000'000), records[1]);
  ASSERT_EQ(run.waits.size(), 2u);
  EXPECT_EQ(run.waits[0].since, 100'000);
  EXPECT_EQ(run.waits[0].until, 1'000'000);
  EXPECT_EQ(run.waits[1].since, 3'000'000);
  EXPECT_EQ(run.waits[1].until, 3'500'000);
  EXPECT_EQ(run.ready, microseconds(3'500'000));
  EXPECT_EQ(run.sent, microseconds(3'510'000));
  EXPECT_EQ(run.declared, microseconds(3'600'000));

  // A second change in the same slice replaces the slice's part, never what was carried.
  plant::UnitRecord again = on_run_clock(slice, microseconds(3'000'000), run);
  ASSERT_EQ(again.waits.size(), 2u);
  EXPECT_EQ(again.waits[0].since, 100'000);
  EXPECT_EQ(again.waits[1].since, 3'000'000);
}

}  // namespace
}  // namespace planter::op
