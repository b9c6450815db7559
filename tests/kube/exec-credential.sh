#!/bin/sh
# A kubeconfig exec credential plugin for the client's tests. It answers with an ExecCredential
# of $EXEC_API_VERSION carrying $PLUGIN_TOKEN, and leaves a trail in $PLUGIN_STATE: how many
# times it ran (runs) and the KUBERNETES_EXEC_INFO of each run (info-N.json).
# With $PLUGIN_STATE/stale-first present, its first answer is a token the server rejects.
set -eu
runs=$(cat "$PLUGIN_STATE/runs" 2>/dev/null || echo 0)
runs=$((runs + 1))
echo "$runs" > "$PLUGIN_STATE/runs"
printf '%s' "${KUBERNETES_EXEC_INFO:-}" > "$PLUGIN_STATE/info-$runs.json"
token="$PLUGIN_TOKEN"
if [ -e "$PLUGIN_STATE/stale-first" ] && [ "$runs" -eq 1 ]; then token="stale-token"; fi
expiry=""
if [ -n "${PLUGIN_EXPIRY:-}" ]; then expiry=",\"expirationTimestamp\":\"$PLUGIN_EXPIRY\""; fi
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"%s}}\n' \
  "$EXEC_API_VERSION" "$token" "$expiry"
