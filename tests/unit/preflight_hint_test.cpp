// What the preflight tells a user to do about a refusal, in kube-apiserver's cases.
#include <gtest/gtest.h>

#include "plant/preflight.h"

namespace planter::plant {
namespace {

kube::ApiError refused(int code, std::string reason, std::string message) {
  kube::ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

TEST(PreflightHint, AWebhookThatCannotDryRunIsNoFaultOfTheObject) {
  // kube-apiserver's words for a webhook without sideEffects None or NoneOnDryRun.
  std::string hint = preflight_hint(refused(
      400, "BadRequest", "admission webhook \"validate.example.com\" does not support dry run"));
  EXPECT_NE(hint.find("--preflight=false"), std::string::npos) << hint;
  EXPECT_NE(hint.find("sideEffects"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("fix the object"), std::string::npos) << hint;
}

TEST(PreflightHint, EachRefusalHasItsOwnAdvice) {
  EXPECT_NE(preflight_hint(refused(409, "Conflict", "Apply failed with 1 conflict"))
                .find("--force-conflicts"),
            std::string::npos);
  EXPECT_NE(preflight_hint(refused(403, "Forbidden", "cannot create")).find("grant"),
            std::string::npos);
  EXPECT_EQ(preflight_hint(refused(422, "Invalid", "spec.replicas: Invalid value")),
            "fix the object in the seed");
}

}  // namespace
}  // namespace planter::plant
