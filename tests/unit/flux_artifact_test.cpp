// A Flux artifact is read as kustomize-controller reads one, and a hostile one is refused: entries
// that leave it, links, a digest that does not match, more than the seed's bound.
#include "operator/flux_artifact.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace planter::op {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FluxArtifactTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("planter-artifact-test-{}-{}", getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "repo");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void file(const std::string& path, const std::string& text) {
    fs::create_directories((dir_ / "repo" / path).parent_path());
    std::ofstream(dir_ / "repo" / path) << text;
  }
  // `tar czf` of the repo folder, with `flags` (GNU tar's), as the bytes a server would send.
  std::string tarball(const std::string& flags = "", const std::string& what = ".") {
    std::string cmd = fmt::format("cd '{}' && tar czf '{}' {} {}", (dir_ / "repo").string(),
                                  (dir_ / "a.tgz").string(), flags, what);
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(dir_ / "a.tgz", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(FluxArtifactTest, YamlUnderThePathIsReadInPathOrder) {
  file("deploy/b.yaml", "kind: B\n");
  file("deploy/a/z.yml", "kind: Z\n");
  file("deploy/notes.md", "# no\n");
  file("other/c.yaml", "kind: C\n");
  auto files = read_artifact(tarball(), "./deploy", 1 << 20);
  ASSERT_TRUE(files.ok()) << files.error().message;
  std::vector<std::string> names;
  for (const ArtifactFile& f : *files) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("deploy/a/z.yml", "deploy/b.yaml"));
  EXPECT_EQ((*files)[1].text, "kind: B\n");
  auto missing = read_artifact(tarball(), "nowhere", 1 << 20);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("has no folder nowhere"));
  auto out = read_artifact(tarball(), "../etc", 1 << 20);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.error().message, HasSubstr("leaves the artifact"));
}

TEST_F(FluxArtifactTest, EntriesThatLeaveItAndLinksAreRefusedOrLeftOut) {
  file("seed.yaml", "kind: A\n");
  auto escaping = read_artifact(tarball("-P --transform='s,^\\./,../,'"), "", 1 << 20);
  ASSERT_FALSE(escaping.ok());
  EXPECT_THAT(escaping.error().message, HasSubstr("leaves it"));
  fs::create_symlink("/etc/passwd", dir_ / "repo/passwd.yaml");
  auto linked = read_artifact(tarball(), "", 1 << 20);
  ASSERT_TRUE(linked.ok()) << linked.error().message;
  ASSERT_EQ(linked->size(), 1u);  // the link is not followed
  EXPECT_EQ((*linked)[0].name, "seed.yaml");
}

TEST_F(FluxArtifactTest, ItUnpacksNoMoreThanTheBound) {
  file("big.yaml", std::string(4u << 20, '#'));
  auto r = read_artifact(tarball(), "", 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("more than 1048576 bytes"));
  auto garbage = read_artifact("not a tarball", "", 1 << 20);
  ASSERT_FALSE(garbage.ok());
}

TEST(FluxArtifact, TheDigestIsChecked) {
  // sha256("abc"), the FIPS 180-2 example.
  std::string abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  EXPECT_TRUE(digest_matches("abc", abc).value());
  EXPECT_FALSE(digest_matches("abd", abc).value());
  EXPECT_FALSE(digest_matches("abc", "md5:900150983cd24fb0d6963f7d28e17f72").ok());
  auto none = artifact_of(boost::json::parse(R"({"status":{"conditions":[{"type":"Ready",
      "status":"False","message":"failed to checkout: authentication required"}]}})")
                              .as_object(),
                          "GitRepository apps/site");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "GitRepository apps/site has no artifact yet (Ready: failed to checkout: "
            "authentication required): source-controller fetches it first");
}

}  // namespace
}  // namespace planter::op
