#!/usr/bin/env python3
# A KRM function: reads a ResourceList as JSON-compatible YAML is not available without PyYAML, so
# it works on the text: it checks the wrapper and adds an annotation to every item's metadata.
import sys
text = sys.stdin.read()
if "kind: ResourceList" not in text:
    sys.stderr.write("expected a ResourceList\n")
    sys.exit(1)
sys.stdout.write(text.replace("  metadata:\n", "  metadata:\n    annotations:\n      seen-by-krm: \"yes\"\n"))
