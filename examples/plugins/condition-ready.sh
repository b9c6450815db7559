#!/bin/sh
# A planter plugin in shell: objects of the kinds below are ready when their Ready condition is
# True, so whatever depends on them waits for that instead of for their mere existence.
#
# cert-manager's Certificates, Flux's Kustomizations and HelmReleases, and Crossplane's claims
# all report readiness that way; planter's built-in rules know only Kubernetes' own kinds.
#
# It reads a plain multi-document stream (the proof of concept's format) and writes it back with
# `planter.nephio.org/ready-when: condition=Ready` added to each object of these kinds that has no
# ready-when yet. It edits text with awk: planter hands plugins block-style YAML (whatever style
# the seed's files use), and anything else, when run by hand, is an error naming the object.
set -eu

KINDS=${CONDITION_READY_KINDS:-"Certificate Issuer ClusterIssuer Kustomization HelmRelease"}

exec awk -v kinds="$KINDS" '
BEGIN {
  n = split(kinds, list, " ")
  for (i = 1; i <= n; i++) wanted[list[i]] = 1
  key = "planter.nephio.org/ready-when"
}

# One document is buffered in doc[1..lines], then written out, annotated or not.
function flush(    i, kind, name, meta, annotations, child, indent, done) {
  if (lines == 0) return
  for (i = 1; i <= lines; i++) {
    if (doc[i] ~ /^kind:/) { kind = doc[i]; sub(/^kind:[ \t]*/, "", kind); sub(/[ \t]*(#.*)?$/, "", kind); gsub(/["\047]/, "", kind) }
    if (doc[i] ~ /^metadata:/) meta = i
    if (index(doc[i], key ":")) done = 1
  }
  if (kind == "ResourceList") fail("a ResourceList came in; this plugin reads plain streams only")
  if (!(kind in wanted) || done) { emit(1, lines); lines = 0; return }
  if (!meta || doc[meta] !~ /^metadata:[ \t]*(#.*)?$/)
    fail(kind " at line " first " of the seed: metadata is not in block style")
  # The indentation of metadata'"'"'s children, and its annotations, if any.
  for (i = meta + 1; i <= lines && doc[i] ~ /^([ \t].*)?$/; i++) {
    if (doc[i] ~ /^[ \t]*(#.*)?$/) continue
    if (!indent) { indent = doc[i]; sub(/[^ ].*$/, "", indent) }
    if (doc[i] ~ ("^" indent "annotations:[ \t]*(#.*)?$")) annotations = i
    else if (doc[i] ~ ("^" indent "annotations:"))
      fail(kind " at line " first " of the seed: metadata.annotations is not in block style")
  }
  if (!indent) indent = "  "
  if (annotations) {
    child = doc[annotations + 1]; sub(/[^ ].*$/, "", child)
    if (length(child) <= length(indent)) child = indent indent
    emit(1, annotations)
    print child key ": condition=Ready"
    emit(annotations + 1, lines)
  } else {
    emit(1, meta)
    print indent "annotations:"
    print indent indent key ": condition=Ready"
    emit(meta + 1, lines)
  }
  lines = 0
}

function emit(from, to,    i) { for (i = from; i <= to; i++) print doc[i] }

function fail(message) {
  print "condition-ready: " message > "/dev/stderr"
  failed = 1
  exit 1
}

/^---/ { flush(); print; first = NR + 1; next }
{ if (lines == 0) first = NR; doc[++lines] = $0 }
END { if (!failed) flush() }
'
