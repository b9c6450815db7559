// The anchor gate (src/plant/gates/anchor.cpp), one table: a member of a co-scheduled stack follows
// the anchor once the anchor's pod is bound to a node that is there, not cordoned, and where the
// whole group still fits.
#include "plant/gates/anchor.h"

#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: step
  namespace: default
  labels: {group: ci}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: step
        image: busybox
        resources: {requests: {cpu: "2", memory: 256Mi}}
        volumeMounts: [{name: work, mountPath: /work}]
      volumes: [{name: work, persistentVolumeClaim: {claimName: shared}}]
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {group: ci}}
  coschedule: {mode: anchor}
)";

// The anchor gate reads the stack-fits gate's decisions: both, answering as the anchor's.
class AnchorWithFits : public Gate {
 public:
  explicit AnchorWithFits(GateContext& c) : fits_(c), anchor_(c, fits_) {}
  void require(size_t u, const Requirement& r, std::vector<std::string>& keys) override {
    anchor_.require(u, r, keys);
  }
  std::optional<Wait> check(size_t u, const Requirement& r) override { return anchor_.check(u, r); }

 private:
  StackFitsGate fits_;
  AnchorGate anchor_;
};

std::unique_ptr<Gate> make_anchor_gate(GateContext& c) {
  return std::make_unique<AnchorWithFits>(c);
}

std::string node(const std::string& name, const std::string& cpu, bool cordoned = false) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name +
         "}\nspec: {unschedulable: " + (cordoned ? "true" : "false") +
         "}\nstatus:\n  allocatable: {cpu: '" + cpu + "', memory: 32Gi, pods: '110'}\n";
}

std::string anchor_pod(const std::string& on, const std::string& scheduled = "") {
  std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ci-anchor-0\n  namespace: default\n"
      "  labels: {planter.nephio.org/anchor: ci}\nspec:\n  containers: [{name: a, image: pause}]\n";
  if (!on.empty()) pod += "  nodeName: " + on + "\n";
  if (!scheduled.empty())
    pod += "status:\n  conditions: [{type: PodScheduled, status: 'False', message: '" + scheduled +
           "'}]\n";
  return pod;
}

struct Row {
  const char* name;
  std::string fleet;
  const char* says;
};

TEST(AnchorGate, AMemberFollowsOnlyAnAnchorBoundWhereTheGroupFits) {
  const Row rows[] = {
      {"no anchor pod", node("node-1", "8"), "waits: no anchor pod yet"},
      {"not bound", node("node-1", "8") + "---\n" + anchor_pod("", "0/1 nodes are available"),
       "waits: anchor pod ci-anchor-0 is not bound yet: 0/1 nodes are available"},
      {"its node is gone", node("node-1", "8") + "---\n" + anchor_pod("gone"),
       "waits: the anchor's node gone is gone"},
      {"its node is cordoned", node("node-1", "8", true) + "---\n" + anchor_pod("node-1"),
       "waits: the anchor's node node-1 is cordoned"},
      {"the group no longer fits there", node("node-1", "1") + "---\n" + anchor_pod("node-1"),
       "waits: the group no longer fits on the anchor's node node-1: "},
      {"bound where it fits", node("node-1", "8") + "---\n" + anchor_pod("node-1"), "holds"},
  };
  for (const Row& row : rows) {
    GateBench bench(kSeed, make_anchor_gate);
    bench.fleet.hold(row.fleet);
    std::string says = bench.check("Job/default/step", ReadinessPredicate::Type::kAnchorScheduled);
    EXPECT_TRUE(says.starts_with(row.says)) << row.name << ": " << says;
  }
}

}  // namespace
}  // namespace planter::plant::testing
