// The object-state gate (src/plant/gates/object_state.cpp), one table: a requirement on an
// object's state, the object as its cluster holds it, and what the gate says.
#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: cnf}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: cnf}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: db}]}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: healthy-db
  namespace: cnf
  annotations: {planter.nephio.org/dependencies: Deployment/cnf/db}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: phase-ok
  namespace: cnf
  annotations: {planter.nephio.org/dependencies: Job/cnf/migrate}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: cnf
  annotations: {planter.nephio.org/ready-when: "jsonpath={.status.succeeded}=1"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: m}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: needs-ready
  namespace: cnf
  annotations: {planter.nephio.org/dependencies: Certificate.cert-manager.io/cnf/tls}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: tls
  namespace: cnf
  annotations: {planter.nephio.org/ready-when: condition=Ready}
spec: {secretName: tls}
)";

struct Row {
  const char* name;
  const char* fleet;  // what SELF holds
  const char* unit;
  const char* on;
  const char* says;  // "holds", or the start of "waits: <why>"
};

const Row kRows[] = {
    {"namespace missing", "", "Deployment/cnf/db", "Namespace/cnf", "waits: not found"},
    {"namespace terminating",
     "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf}\nstatus: {phase: Terminating}\n",
     "Deployment/cnf/db", "Namespace/cnf", "waits: phase is Terminating"},
    {"namespace without a phase yet", "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf}\n",
     "Deployment/cnf/db", "Namespace/cnf", "waits: no phase yet"},
    {"namespace active",
     "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf}\nstatus: {phase: Active}\n",
     "Deployment/cnf/db", "Namespace/cnf", "holds"},
    {"jsonpath not set yet",
     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: cnf}\n",
     "ConfigMap/cnf/phase-ok", "Job/cnf/migrate", "waits: {.status.succeeded} is not set"},
    {"jsonpath another value",
     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: cnf}\n"
     "status: {succeeded: 0}\n",
     "ConfigMap/cnf/phase-ok", "Job/cnf/migrate", "waits: {.status.succeeded} is \"0\", not \"1\""},
    {"jsonpath holds",
     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: cnf}\n"
     "status: {succeeded: 1}\n",
     "ConfigMap/cnf/phase-ok", "Job/cnf/migrate", "holds"},
    {"condition False",
     "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: tls, namespace: cnf}\n"
     "status: {conditions: [{type: Ready, status: 'False', reason: Issuing}]}\n",
     "ConfigMap/cnf/needs-ready", "Certificate/cnf/tls", "waits: Ready is False (Issuing)"},
    {"no condition yet",
     "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: tls, namespace: cnf}\n",
     "ConfigMap/cnf/needs-ready", "Certificate/cnf/tls", "waits: no Ready condition yet"},
    {"condition True",
     "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: tls, namespace: cnf}\n"
     "status: {conditions: [{type: Ready, status: 'True'}]}\n",
     "ConfigMap/cnf/needs-ready", "Certificate/cnf/tls", "holds"},
};

TEST(ObjectStateGate, SaysOfEachStateWhatTheClusterShows) {
  for (const Row& row : kRows) {
    GateBench bench(kSeed, make_object_state_gate);
    if (*row.fleet) bench.fleet.hold(row.fleet);
    std::string says = bench.check(row.unit, row.on);
    EXPECT_EQ(says, row.says) << row.name << ": " << says;
  }
}

TEST(ObjectStateGate, WatchesTheKindItReads) {
  GateBench bench(kSeed, make_object_state_gate);
  bench.check("Deployment/cnf/db", "Namespace/cnf");
  EXPECT_TRUE(bench.fleet.watched.contains("SELF v1 Namespace"));
}

}  // namespace
}  // namespace planter::plant::testing
