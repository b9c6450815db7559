// The traits table of the requirement kinds (src/plan/predicate_traits.h): every kind has a row,
// a `when` a plan can be read back from, and the ready-when forms an annotation may write parse
// back to themselves.
#include "plan/predicate_traits.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace planter {
namespace {

using Type = ReadinessPredicate::Type;

// Every type, by walking the enum up to the last one declared.
std::vector<Type> every_type() {
  std::vector<Type> out;
  for (int i = 0; i <= static_cast<int>(Type::kNodeCapability); ++i)
    out.push_back(static_cast<Type>(i));
  return out;
}

TEST(PredicateTraits, EveryKindHasANameAndTheNamesOfDifferentKindsDiffer) {
  std::set<std::string> whens;
  for (Type t : every_type()) {
    const PredicateTraits& traits = traits_of(t);
    EXPECT_FALSE(traits.name.empty()) << "type " << static_cast<int>(t) << " has no row";
    ReadinessPredicate p{t, "a", "b"};
    EXPECT_TRUE(whens.insert(p.str()).second) << p.str() << " is said of two kinds";
  }
}

TEST(PredicateTraits, WhatAnAnnotationMayWriteIsReadBackAsItself) {
  for (Type t : every_type()) {
    ReadinessPredicate p{t, "{.status.phase}", "Ok"};
    if (t == Type::kCondition) {
      p.arg = "Ready";
      p.value = "";
    }
    if (t == Type::kExists || t == Type::kHealthy) p.arg = p.value = "";
    if (t == Type::kFieldSet) p.value = "";
    auto parsed = ReadinessPredicate::parse(p.str());
    EXPECT_EQ(parsed.ok() && parsed.value() == p, traits_of(t).from_annotation)
        << p.str() << (parsed ? "" : ": " + parsed.error().message);
  }
}

TEST(PredicateTraits, OnlyObjectRequirementsCountAsOutsideTheSeed) {
  EXPECT_TRUE(traits_of(Type::kExists).about_object);
  EXPECT_TRUE(traits_of(Type::kClusterReady).about_object);
  EXPECT_FALSE(traits_of(Type::kStackFits).about_object);
  EXPECT_FALSE(traits_of(Type::kNodeCapability).about_object);
  EXPECT_FALSE(traits_of(Type::kClusterChoice).about_object);
}

}  // namespace
}  // namespace planter
