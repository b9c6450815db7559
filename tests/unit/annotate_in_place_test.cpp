// planter annotate keeps the seed's text (plan/annotate_in_place.h): comments, order and layout
// stay; only annotations are added or changed, one line each.
#include "plan/annotate_in_place.h"

#include <gtest/gtest.h>

namespace planter {
namespace {

TEST(AnnotateInPlace, AddsAnAnnotationsBlockAtTheEndOfMetadataKeepingComments) {
  auto out = annotate_document(
      "# the database\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db  # its name\n"
      "  namespace: shop\n\n# what it holds\ndata: {a: b}\n",
      {{"planter.nephio.org/cluster", "edge1"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out,
            "# the database\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db  # its name\n"
            "  namespace: shop\n  annotations:\n    planter.nephio.org/cluster: edge1\n\n"
            "# what it holds\ndata: {a: b}\n");
}

TEST(AnnotateInPlace, AddsToAndChangesTheAnnotationsThereOneLineEach) {
  auto out = annotate_document(
      "kind: ConfigMap\nmetadata:\n    name: db\n    annotations:\n"
      "        team: web   # who\n        planter.nephio.org/dependencies: Secret/a\n"
      "    labels: {app: db}\n",
      {{"planter.nephio.org/dependencies", "Secret/a,Secret/b"}, {"x", "on"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out,
            "kind: ConfigMap\nmetadata:\n    name: db\n    annotations:\n"
            "        team: web   # who\n        planter.nephio.org/dependencies: "
            "Secret/a,Secret/b\n        x: \"on\"\n    labels: {app: db}\n");
  // The same value already there: nothing changes.
  EXPECT_EQ(annotate_document("metadata:\n  annotations:\n    a: \"b\"\n", {{"a", "b"}}),
            "metadata:\n  annotations:\n    a: \"b\"\n");
}

TEST(AnnotateInPlace, LeavesWhatItCannotEditInPlaceToBeWrittenAfresh) {
  EXPECT_FALSE(annotate_document("metadata: {name: a}\n", {{"a", "b"}}));
  EXPECT_FALSE(annotate_document("metadata:\n  name: a\n  annotations: {x: y}\n", {{"a", "b"}}));
  EXPECT_FALSE(annotate_document("metadata:\n  annotations:\n    a: |\n      two\n      lines\n",
                                 {{"a", "b"}}));
  EXPECT_FALSE(annotate_document("kind: ConfigMap\n", {{"a", "b"}}));
  // Nothing to set: the document as it was, whatever its style.
  EXPECT_EQ(annotate_document("metadata: {name: a}\n", {}), "metadata: {name: a}\n");
}

}  // namespace
}  // namespace planter
