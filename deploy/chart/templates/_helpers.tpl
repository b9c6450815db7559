{{/* The labels of every object: deploy/'s, and Helm's. */}}
{{- define "planter.labels" -}}
app.kubernetes.io/name: planter
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* What selects the operator's pods (as deploy/deployment.yaml). */}}
{{- define "planter.selector" -}}
app.kubernetes.io/name: planter
app.kubernetes.io/component: operator
{{- end }}
