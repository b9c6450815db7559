#include "sim/protobuf_schema.h"

namespace planter::sim::proto {

namespace {

// ---- meta/v1 ----

const Message kTypeMeta{{{1, "apiVersion", Kind::kString}, {2, "kind", Kind::kString}}};
const Message kOwnerReference{{{1, "kind", Kind::kString},
                               {3, "name", Kind::kString},
                               {4, "uid", Kind::kString},
                               {5, "apiVersion", Kind::kString},
                               {6, "controller", Kind::kBool},
                               {7, "blockOwnerDeletion", Kind::kBool}}};
const Message kObjectMeta{{{1, "name", Kind::kString},
                           {2, "generateName", Kind::kString},
                           {3, "namespace", Kind::kString},
                           {4, "selfLink", Kind::kString},
                           {5, "uid", Kind::kString},
                           {6, "resourceVersion", Kind::kString},
                           {7, "generation", Kind::kInt64},
                           {8, "creationTimestamp", Kind::kTime},
                           {9, "deletionTimestamp", Kind::kTime},
                           {10, "deletionGracePeriodSeconds", Kind::kInt64},
                           {11, "labels", Kind::kStringMap},
                           {12, "annotations", Kind::kStringMap},
                           {13, "ownerReferences", Kind::kMessage, true, &kOwnerReference},
                           {14, "finalizers", Kind::kString, true}}};
const Message kLabelSelectorRequirement{{{1, "key", Kind::kString},
                                         {2, "operator", Kind::kString},
                                         {3, "values", Kind::kString, true}}};
const Message kLabelSelector{
    {{1, "matchLabels", Kind::kStringMap},
     {2, "matchExpressions", Kind::kMessage, true, &kLabelSelectorRequirement}}};
const Message kPreconditions{{{1, "uid", Kind::kString}, {2, "resourceVersion", Kind::kString}}};
const Message kDeleteOptions{{{1, "gracePeriodSeconds", Kind::kInt64, false, nullptr, true},
                              {2, "preconditions", Kind::kMessage, false, &kPreconditions},
                              {3, "orphanDependents", Kind::kBool, false, nullptr, true},
                              {4, "propagationPolicy", Kind::kString},
                              {5, "dryRun", Kind::kString, true}}};

// ---- core/v1 ----

const Message kNamespaceSpec{{{1, "finalizers", Kind::kString, true}}};
const Message kNamespaceStatus{{{1, "phase", Kind::kString}}};
const Message kNamespace{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                          {2, "spec", Kind::kMessage, false, &kNamespaceSpec},
                          {3, "status", Kind::kMessage, false, &kNamespaceStatus}}};
const Message kConfigMap{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                          {2, "data", Kind::kStringMap},
                          {3, "binaryData", Kind::kBytesMap},
                          {4, "immutable", Kind::kBool, false, nullptr, true}}};
const Message kSecret{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                       {2, "data", Kind::kBytesMap},
                       {3, "type", Kind::kString},
                       {4, "stringData", Kind::kStringMap},
                       {5, "immutable", Kind::kBool, false, nullptr, true}}};
const Message kContainerPort{{{1, "name", Kind::kString},
                              {2, "hostPort", Kind::kInt64},
                              {3, "containerPort", Kind::kInt64},
                              {4, "protocol", Kind::kString},
                              {5, "hostIP", Kind::kString}}};
const Message kEnvVar{{{1, "name", Kind::kString}, {2, "value", Kind::kString}}};
const Message kResourceRequirements{
    {{1, "limits", Kind::kQuantityMap}, {2, "requests", Kind::kQuantityMap}}};
const Message kVolumeMount{{{1, "name", Kind::kString},
                            {2, "readOnly", Kind::kBool},
                            {3, "mountPath", Kind::kString},
                            {4, "subPath", Kind::kString}}};
const Message kContainer{{{1, "name", Kind::kString},
                          {2, "image", Kind::kString},
                          {3, "command", Kind::kString, true},
                          {4, "args", Kind::kString, true},
                          {5, "workingDir", Kind::kString},
                          {6, "ports", Kind::kMessage, true, &kContainerPort},
                          {7, "env", Kind::kMessage, true, &kEnvVar},
                          {8, "resources", Kind::kMessage, false, &kResourceRequirements},
                          {9, "volumeMounts", Kind::kMessage, true, &kVolumeMount},
                          {13, "terminationMessagePath", Kind::kString},
                          {14, "imagePullPolicy", Kind::kString},
                          {16, "stdin", Kind::kBool},
                          {17, "stdinOnce", Kind::kBool},
                          {18, "tty", Kind::kBool},
                          {20, "terminationMessagePolicy", Kind::kString},
                          {24, "restartPolicy", Kind::kString}}};
const Message kLocalObjectReference{{{1, "name", Kind::kString}}};
const Message kToleration{{{1, "key", Kind::kString},
                           {2, "operator", Kind::kString},
                           {3, "value", Kind::kString},
                           {4, "effect", Kind::kString},
                           {5, "tolerationSeconds", Kind::kInt64, false, nullptr, true}}};
const Message kPodSpec{{{2, "containers", Kind::kMessage, true, &kContainer},
                        {3, "restartPolicy", Kind::kString},
                        {4, "terminationGracePeriodSeconds", Kind::kInt64, false, nullptr, true},
                        {5, "activeDeadlineSeconds", Kind::kInt64, false, nullptr, true},
                        {6, "dnsPolicy", Kind::kString},
                        {7, "nodeSelector", Kind::kStringMap},
                        {8, "serviceAccountName", Kind::kString},
                        {9, "serviceAccount", Kind::kString},
                        {10, "nodeName", Kind::kString},
                        {11, "hostNetwork", Kind::kBool},
                        {12, "hostPID", Kind::kBool},
                        {13, "hostIPC", Kind::kBool},
                        {15, "imagePullSecrets", Kind::kMessage, true, &kLocalObjectReference},
                        {16, "hostname", Kind::kString},
                        {17, "subdomain", Kind::kString},
                        {19, "schedulerName", Kind::kString},
                        {20, "initContainers", Kind::kMessage, true, &kContainer},
                        {21, "automountServiceAccountToken", Kind::kBool, false, nullptr, true},
                        {22, "tolerations", Kind::kMessage, true, &kToleration},
                        {24, "priorityClassName", Kind::kString},
                        {25, "priority", Kind::kInt64, false, nullptr, true},
                        {29, "runtimeClassName", Kind::kString},
                        {30, "enableServiceLinks", Kind::kBool, false, nullptr, true},
                        {31, "preemptionPolicy", Kind::kString},
                        {32, "overhead", Kind::kQuantityMap}}};
const Message kPodTemplateSpec{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                                {2, "spec", Kind::kMessage, false, &kPodSpec}}};
const Message kPod{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                    {2, "spec", Kind::kMessage, false, &kPodSpec}}};
const Message kServicePort{{{1, "name", Kind::kString},
                            {2, "protocol", Kind::kString},
                            {3, "port", Kind::kInt64},
                            {4, "targetPort", Kind::kIntOrString},
                            {5, "nodePort", Kind::kInt64},
                            {6, "appProtocol", Kind::kString}}};
const Message kServiceSpec{{{1, "ports", Kind::kMessage, true, &kServicePort},
                            {2, "selector", Kind::kStringMap},
                            {3, "clusterIP", Kind::kString},
                            {4, "type", Kind::kString},
                            {5, "externalIPs", Kind::kString, true},
                            {7, "sessionAffinity", Kind::kString},
                            {8, "loadBalancerIP", Kind::kString},
                            {10, "externalName", Kind::kString},
                            {18, "clusterIPs", Kind::kString, true}}};
const Message kService{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                        {2, "spec", Kind::kMessage, false, &kServiceSpec}}};
const Message kObjectReference{{{1, "kind", Kind::kString},
                                {2, "namespace", Kind::kString},
                                {3, "name", Kind::kString},
                                {4, "uid", Kind::kString},
                                {5, "apiVersion", Kind::kString}}};
const Message kServiceAccount{
    {{1, "metadata", Kind::kMessage, false, &kObjectMeta},
     {2, "secrets", Kind::kMessage, true, &kObjectReference},
     {3, "imagePullSecrets", Kind::kMessage, true, &kLocalObjectReference},
     {4, "automountServiceAccountToken", Kind::kBool, false, nullptr, true}}};

// ---- apps/v1 ----

const Message kRollingUpdateDeployment{
    {{1, "maxUnavailable", Kind::kIntOrString}, {2, "maxSurge", Kind::kIntOrString}}};
const Message kDeploymentStrategy{
    {{1, "type", Kind::kString},
     {2, "rollingUpdate", Kind::kMessage, false, &kRollingUpdateDeployment}}};
const Message kDeploymentSpec{{{1, "replicas", Kind::kInt64, false, nullptr, true},
                               {2, "selector", Kind::kMessage, false, &kLabelSelector},
                               {3, "template", Kind::kMessage, false, &kPodTemplateSpec},
                               {4, "strategy", Kind::kMessage, false, &kDeploymentStrategy},
                               {5, "minReadySeconds", Kind::kInt64},
                               {6, "revisionHistoryLimit", Kind::kInt64, false, nullptr, true},
                               {7, "paused", Kind::kBool},
                               {9, "progressDeadlineSeconds", Kind::kInt64, false, nullptr, true}}};
const Message kDeployment{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                           {2, "spec", Kind::kMessage, false, &kDeploymentSpec}}};

// ---- batch/v1 ----

const Message kJobSpec{{{1, "parallelism", Kind::kInt64, false, nullptr, true},
                        {2, "completions", Kind::kInt64, false, nullptr, true},
                        {3, "activeDeadlineSeconds", Kind::kInt64, false, nullptr, true},
                        {4, "selector", Kind::kMessage, false, &kLabelSelector},
                        {5, "manualSelector", Kind::kBool, false, nullptr, true},
                        {6, "template", Kind::kMessage, false, &kPodTemplateSpec},
                        {7, "backoffLimit", Kind::kInt64, false, nullptr, true},
                        {8, "ttlSecondsAfterFinished", Kind::kInt64, false, nullptr, true},
                        {9, "completionMode", Kind::kString},
                        {10, "suspend", Kind::kBool, false, nullptr, true}}};
const Message kJob{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                    {2, "spec", Kind::kMessage, false, &kJobSpec}}};
const Message kJobTemplateSpec{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                                {2, "spec", Kind::kMessage, false, &kJobSpec}}};
const Message kCronJobSpec{{{1, "schedule", Kind::kString},
                            {2, "startingDeadlineSeconds", Kind::kInt64, false, nullptr, true},
                            {3, "concurrencyPolicy", Kind::kString},
                            {4, "suspend", Kind::kBool, false, nullptr, true},
                            {5, "jobTemplate", Kind::kMessage, false, &kJobTemplateSpec},
                            {6, "successfulJobsHistoryLimit", Kind::kInt64, false, nullptr, true},
                            {7, "failedJobsHistoryLimit", Kind::kInt64, false, nullptr, true},
                            {8, "timeZone", Kind::kString}}};
const Message kCronJob{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                        {2, "spec", Kind::kMessage, false, &kCronJobSpec}}};

// ---- rbac.authorization.k8s.io/v1 ----

const Message kPolicyRule{{{1, "verbs", Kind::kString, true},
                           {2, "apiGroups", Kind::kString, true},
                           {3, "resources", Kind::kString, true},
                           {4, "resourceNames", Kind::kString, true},
                           {5, "nonResourceURLs", Kind::kString, true}}};
const Message kAggregationRule{
    {{1, "clusterRoleSelectors", Kind::kMessage, true, &kLabelSelector}}};
const Message kRole{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                     {2, "rules", Kind::kMessage, true, &kPolicyRule}}};
const Message kClusterRole{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                            {2, "rules", Kind::kMessage, true, &kPolicyRule},
                            {3, "aggregationRule", Kind::kMessage, false, &kAggregationRule}}};
const Message kSubject{{{1, "kind", Kind::kString},
                        {2, "apiGroup", Kind::kString},
                        {3, "name", Kind::kString},
                        {4, "namespace", Kind::kString}}};
const Message kRoleRef{
    {{1, "apiGroup", Kind::kString}, {2, "kind", Kind::kString}, {3, "name", Kind::kString}}};
const Message kRoleBinding{{{1, "metadata", Kind::kMessage, false, &kObjectMeta},
                            {2, "subjects", Kind::kMessage, true, &kSubject},
                            {3, "roleRef", Kind::kMessage, false, &kRoleRef}}};

struct TopLevel {
  std::string_view api_version, kind;
  const Message* message;
};

const TopLevel kTopLevel[] = {
    {"v1", "Namespace", &kNamespace},
    {"v1", "ConfigMap", &kConfigMap},
    {"v1", "Secret", &kSecret},
    {"v1", "Pod", &kPod},
    {"v1", "Service", &kService},
    {"v1", "ServiceAccount", &kServiceAccount},
    {"apps/v1", "Deployment", &kDeployment},
    {"batch/v1", "Job", &kJob},
    {"batch/v1", "CronJob", &kCronJob},
    {"rbac.authorization.k8s.io/v1", "Role", &kRole},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &kClusterRole},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &kRoleBinding},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &kRoleBinding},
};

}  // namespace

const Message kUnknown{{{1, "typeMeta", Kind::kMessage, false, &kTypeMeta},
                        {2, "raw", Kind::kRaw},
                        {3, "contentEncoding", Kind::kString},
                        {4, "contentType", Kind::kString}}};

const Message* message_for(std::string_view api_version, std::string_view kind) {
  if (kind == "DeleteOptions") return &kDeleteOptions;
  for (const auto& t : kTopLevel)
    if (t.api_version == api_version && t.kind == kind) return t.message;
  return nullptr;
}

}  // namespace planter::sim::proto
