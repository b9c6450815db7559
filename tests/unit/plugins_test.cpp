#include <gtest/gtest.h>

#include <filesystem>

#include "plugins/runner.h"
#include "test_support.h"

namespace planter {
namespace {

std::string plugin(const std::string& name) {
  return std::string(PLANTER_TEST_DATA) + "/plugins/" + name;
}

Seed small_seed() {
  Seed s;
  Diagnostics d;
  parse_seed_text(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n",
      "seed.yaml", s, d);
  return s;
}

TEST(Plugins, StreamPluginAnnotatesAndSourcesSurvive) {
  Seed s = small_seed();
  Diagnostics d;
  ASSERT_TRUE(run_plugins({plugin("annotate-stream.sh")}, s, {}, d)) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  const auto* a = s.objects[1].annotation("planter.nephio.org/dependencies");
  ASSERT_TRUE(a);
  EXPECT_EQ(std::string_view(*a), "v1|Namespace||a");
  EXPECT_EQ(s.objects[1].where(), "seed.yaml:5");  // same identity: same file:line
}

TEST(Plugins, ResourceListInGetsResourceListBack) {
  Seed s = small_seed();
  s.resource_list = true;
  Diagnostics d;
  ASSERT_TRUE(run_plugins({plugin("krm-echo.py")}, s, {}, d)) << d.str();
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_TRUE(s.objects[0].annotation("seen-by-krm"));
}

TEST(Plugins, FailuresNameThePluginAndShowItsStderr) {
  struct Case {
    const char* plugin;
    const char* expect;
  };
  for (const Case& c :
       {Case{"fail.sh", "exited with status 3"}, Case{"crash.sh", "killed by signal"},
        Case{"garbage.sh", "its output is not a valid seed"}, Case{"empty.sh", "wrote no objects"},
        Case{"empty-list.sh", "wrote no objects"}}) {
    Seed s = small_seed();
    Diagnostics d;
    EXPECT_FALSE(run_plugins({plugin(c.plugin)}, s, {}, d)) << c.plugin;
    std::string e = d.str();
    EXPECT_NE(e.find(std::string("plugin ") + c.plugin), std::string::npos) << e;
    EXPECT_NE(e.find(c.expect), std::string::npos) << e;
  }
  Seed s = small_seed();
  Diagnostics d;
  run_plugins({plugin("fail.sh")}, s, {}, d);
  EXPECT_NE(d.str().find("| cannot reach the inventory service"), std::string::npos) << d.str();
}

TEST(Plugins, TimeoutKillsThePlugin) {
  Seed s = small_seed();
  Diagnostics d;
  auto start = std::chrono::steady_clock::now();
  PluginLimits limits;
  limits.timeout = std::chrono::milliseconds(300);
  EXPECT_FALSE(run_plugins({plugin("sleep.sh")}, s, limits, d));
  EXPECT_NE(d.str().find("timed out after 300 ms"), std::string::npos) << d.str();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Plugins, OutputLimitKillsThePlugin) {
  Seed s = small_seed();
  Diagnostics d;
  PluginLimits limits;
  limits.max_output_bytes = 1024;
  EXPECT_FALSE(run_plugins({plugin("flood.sh")}, s, limits, d));
  EXPECT_NE(d.str().find("more than 1024 bytes"), std::string::npos) << d.str();
}

TEST(Plugins, MissingExecutableIsReported) {
  Seed s = small_seed();
  Diagnostics d;
  EXPECT_FALSE(run_plugins({plugin("does-not-exist")}, s, {}, d));
  EXPECT_NE(d.str().find("cannot start"), std::string::npos) << d.str();
}

TEST(Plugins, DirectoryIsSortedByName) {
  auto list = plugins_in_dir(std::string(PLANTER_TEST_DATA) + "/plugins");
  ASSERT_TRUE(list.ok());
  ASSERT_GE(list->size(), 2u);
  EXPECT_TRUE(std::is_sorted(list->begin(), list->end()));
}

}  // namespace
}  // namespace planter
