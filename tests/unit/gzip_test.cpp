// gunzip reads what gzip wrote, members one after another, and refuses what is not gzip, what is
// cut short and what unpacks past its bound (a bomb of a few KiB does not take the memory).
#include "model/gzip.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace planter {
namespace {

using ::testing::HasSubstr;

TEST(Gzip, ReadsBackWhatItWroteAndMembersInTurn) {
  std::string text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n";
  auto back = gunzip(gzip(text), 1 << 20);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, text);
  auto two = gunzip(gzip("a\n") + gzip("b\n"), 1 << 20);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(*two, "a\nb\n");
}

TEST(Gzip, RefusesWhatIsNotGzipOrIsCutShort) {
  auto plain = gunzip("apiVersion: v1\n", 1 << 20);
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(plain.error().message, HasSubstr("not gzip"));
  std::string whole = gzip(std::string(10000, 'x'));
  auto cut = gunzip(std::string_view(whole).substr(0, whole.size() / 2), 1 << 20);
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.error().message, HasSubstr("cut short"));
}

TEST(Gzip, ABombStopsAtItsBound) {
  std::string bomb = gzip(std::string(64u << 20, '\0'));  // 64 MiB of zeros in about 64 KiB
  ASSERT_LT(bomb.size(), 128u << 10);
  auto r = gunzip(bomb, 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("more than 1048576 bytes"));
}

}  // namespace
}  // namespace planter
