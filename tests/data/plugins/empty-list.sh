#!/bin/sh
# Writes an empty KRM ResourceList back (items: null, as a Go plugin with a nil slice would).
cat > /dev/null
printf "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: null\n"
