#!/bin/sh
# Reads the seed and writes nothing back: a plugin that lost the seed.
cat > /dev/null
