// The sim's reading of a request target, as Go's net/http and kube-apiserver read one: the path
// percent-decoded, query pairs decoded with `+` as a space, what does not decode kept as sent.
#include <gtest/gtest.h>

#include "sim/request_target.h"

namespace planter::sim {
namespace {

TEST(RequestTargetTest, DecodesThePathAndTheQueryApart) {
  Request req;
  std::string path = split_request_target(
      "/api/v1/namespaces/a%2Db/pods?labelSelector=app%3Dweb%2Ctier+in+%28a%29&limit=500", req);
  EXPECT_EQ(path, "/api/v1/namespaces/a-b/pods");
  EXPECT_EQ(req.query.at("labelSelector"), "app=web,tier in (a)");
  EXPECT_EQ(req.query.at("limit"), "500");
}

TEST(RequestTargetTest, APlusIsASpaceOnlyInTheQuery) {
  Request req;
  EXPECT_EQ(split_request_target("/api/v1/namespaces/a+b?fieldManager=a+b", req),
            "/api/v1/namespaces/a+b");
  EXPECT_EQ(req.query.at("fieldManager"), "a b");
}

// kube-apiserver takes the first of a repeated option; Go's url.ParseQuery drops a pair whose
// escape is malformed.
TEST(RequestTargetTest, TheFirstOfARepeatedKeyWinsAndMalformedPairsAreDropped) {
  Request req;
  EXPECT_EQ(split_request_target("/x%zz%4?watch&=1&&limit=1&limit=2&b=%&c%g=1&d=%41", req),
            "/x%zz%4");
  EXPECT_EQ(req.query.at("watch"), "");
  EXPECT_EQ(req.query.at("limit"), "1");
  EXPECT_EQ(req.query.at("d"), "A");
  EXPECT_EQ(req.query.count("b"), 0u);
  EXPECT_EQ(req.query.count(""), 0u);
  EXPECT_EQ(req.query.size(), 3u);
}

}  // namespace
}  // namespace planter::sim
