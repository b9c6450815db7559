// Tests that read ../shared (the corpus, the discovery documents of a real kube-apiserver).
//
// Outside CI a missing ../shared skips them, for a bare clone on a laptop. In CI (the environment
// variable CI is set: .ci/run exports CI=1) it is a failure: a test that checks nothing
// must not pass.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#define REQUIRE_SHARED(path)                                                                   \
  do {                                                                                         \
    if (!std::filesystem::exists(path)) {                                                      \
      if (std::getenv("CI") != nullptr) FAIL() << (path) << " is missing: CI needs ../shared"; \
      GTEST_SKIP() << (path) << " is not here (a bare clone without ../shared)";               \
    }                                                                                          \
  } while (false)
