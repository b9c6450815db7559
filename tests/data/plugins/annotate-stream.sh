#!/bin/sh
# A proof-of-concept style plugin: a plain stream in, the same stream out, annotated with sed.
exec sed 's|^  name: c$|  name: c\n  annotations:\n    planter.nephio.org/dependencies: "v1\|Namespace\|\|a"|'
