#!/bin/sh
cat >/dev/null
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: [oops\n'
