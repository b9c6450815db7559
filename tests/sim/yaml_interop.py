"""planter's YAML judged by Debian's PyYAML (python3-yaml) and ruamel.yaml (python3-ruamel.yaml).

  yaml_interop.py streams PLANTER CORPUS_DIR SEED
      Every corpus seed re-dumped in several styles, and generated tricky strings: planter's
      reading (`planter annotate`, planter's own annotations taken out) equals PyYAML's; what
      planter writes reads back equal with PyYAML, ruamel.yaml and planter; the same bytes on every
      run. YAML 1.1/1.2 differences are decided apart: planter reads as kubectl does (go-yaml v2,
      docs/yaml.md), checked against the table KUBECTL_READS below. SEED seeds the generator.
  yaml_interop.py redump SEED_YAML OUT
      SEED_YAML as PyYAML re-dumps it (safe_dump_all), the issue's reproduction.
  yaml_interop.py planted KUBECONFIG SEED_YAML
      Every ConfigMap of SEED_YAML, as the cluster holds it (kubectl get -o json, through the
      Python client), byte-equal to PyYAML's reading of SEED_YAML.

Exit 0 when everything agrees; otherwise each difference is printed and the exit code is 1.
"""
import datetime
import json
import os
import random
import subprocess
import sys
import tempfile

import yaml
from ruamel.yaml import YAML


def pyyaml_loader():
    """PyYAML's safe loader as kubectl reads: `=` is a string (YAML 1.1's value key is not a
    type to kubectl), timestamps stay strings (go-yaml v2 keeps them as text for interface{}),
    and base-60 numbers (`1:20`) are strings (go-yaml v2 never read them)."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):
        pass

    dropped = {"tag:yaml.org,2002:value", "tag:yaml.org,2002:timestamp"}
    resolvers = {}
    for first, pairs in base.yaml_implicit_resolvers.items():
        kept = []
        for tag, regexp in pairs:
            if tag in dropped:
                continue
            if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
                regexp = no_base60(tag, regexp)
            kept.append((tag, regexp))
        resolvers[first] = kept
    Loader.yaml_implicit_resolvers = resolvers
    return Loader


def no_base60(tag, regexp):
    import re

    pattern = regexp.pattern.replace("|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+", "")
    pattern = pattern.replace("|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*", "")
    return re.compile(pattern, regexp.flags)


LOADER = pyyaml_loader()
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def read_pyyaml(text):
    return [d for d in yaml.load_all(text, Loader=LOADER) if d is not None]


def read_ruamel(text):
    y = YAML(typ="safe", pure=True)
    return [d for d in y.load_all(text) if d is not None]


def dump_pyyaml(docs, **style):
    return yaml.dump_all(docs, Dumper=DUMPER, **style)


def dump_ruamel_roundtrip(text):
    y = YAML()  # round trip: keeps the source's styles
    y.width = 4096
    out = []
    for d in y.load_all(text):
        if d is None:
            continue
        from io import StringIO

        s = StringIO()
        y.dump(d, s)
        out.append(s.getvalue())
    return "---\n".join(out)


STYLES = {
    "pyyaml-default": lambda docs, text: dump_pyyaml(docs),
    "pyyaml-width40": lambda docs, text: dump_pyyaml(docs, width=40),
    "pyyaml-width4096": lambda docs, text: dump_pyyaml(docs, width=4096),
    "pyyaml-double-quoted": lambda docs, text: dump_pyyaml(docs, default_style='"'),
    "pyyaml-single-quoted": lambda docs, text: dump_pyyaml(docs, default_style="'"),
    "pyyaml-unicode": lambda docs, text: dump_pyyaml(docs, allow_unicode=True, width=60),
    "ruamel-roundtrip": lambda docs, text: dump_ruamel_roundtrip(text),
}


def strip_planter(doc, original):
    """planter annotate's additions taken out: its annotations, and the namespace it filled in."""
    doc = json.loads(json.dumps(doc))
    meta = doc.get("metadata")
    if isinstance(meta, dict):
        notes = meta.get("annotations")
        if isinstance(notes, dict):
            for k in [k for k in notes if k.startswith("planter.nephio.org/")]:
                del notes[k]
            had = isinstance(original.get("metadata"), dict) and "annotations" in original["metadata"]
            if not notes and not had:
                del meta["annotations"]
        orig_meta = original.get("metadata") if isinstance(original, dict) else None
        if isinstance(orig_meta, dict) and "namespace" not in orig_meta:
            meta.pop("namespace", None)
    return doc


def identity(doc):
    if not isinstance(doc, dict):
        return ("", "", "", json.dumps(doc, sort_keys=True))
    meta = doc.get("metadata") or {}
    return (str(doc.get("apiVersion")), str(doc.get("kind")), str(meta.get("namespace", "")),
            str(meta.get("name", "")))


def normal(v):
    """JSON's view of a value: ints and whole floats alike (1000 and 1E3 are one number)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): normal(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [normal(x) for x in v]
    return v


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {short(a)} != {short(b)}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'planter' if k in a else 'the reference'}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {short(a)} != {short(b)}"


def short(v):
    s = json.dumps(v, ensure_ascii=True)
    return s if len(s) < 160 else s[:150] + "...(" + str(len(s)) + " chars)"


class Check:
    def __init__(self):
        self.failures = []
        self.compared = 0

    def docs_equal(self, what, planter_docs, reference_docs):
        got = {identity(d): normal(d) for d in planter_docs}
        want = {identity(d): normal(d) for d in reference_docs}
        if set(got) != set(want):
            missing = sorted(set(want) - set(got))[:3]
            extra = sorted(set(got) - set(want))[:3]
            self.failures.append(f"{what}: objects differ (missing {missing}, extra {extra})")
            return
        for key in want:
            self.compared += 1
            d = first_difference(got[key], want[key])
            if d:
                self.failures.append(f"{what}: {'/'.join(key)} {d}")


def annotate(planter, path):
    r = subprocess.run([planter, "annotate", path], capture_output=True, text=True)
    return r


def check_stream(check, planter, name, text, reference, tmp):
    """planter reads `text` as `reference` (PyYAML's reading); its output reads back equal with
    PyYAML, ruamel.yaml and planter; the same bytes twice."""
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    first = annotate(planter, path)
    if first.returncode != 0:
        check.failures.append(f"{name}: planter annotate exit {first.returncode}: "
                              f"{first.stderr.strip()[:400]}")
        return
    if "\0" in first.stdout:
        check.failures.append(f"{name}: a NUL in what planter wrote")
    again = annotate(planter, path)
    if again.stdout != first.stdout:
        check.failures.append(f"{name}: planter annotate wrote different bytes on a second run")
    by_id = {identity(d): d for d in reference}
    try:
        read_back = read_pyyaml(first.stdout)
    except yaml.YAMLError as e:
        check.failures.append(f"{name}: PyYAML cannot read what planter wrote: {e}")
        return
    stripped = [strip_planter(d, by_id.get(identity(d), {})) for d in read_back]
    check.docs_equal(f"{name} (planter's reading, read back by PyYAML)", stripped, reference)
    try:
        ruamel_back = read_ruamel(first.stdout)
        check.docs_equal(f"{name} (planter's output, ruamel.yaml vs PyYAML)", ruamel_back,
                         read_back)
    except Exception as e:  # ruamel's errors share no base class
        check.failures.append(f"{name}: ruamel.yaml cannot read what planter wrote: {e}")
    out_path = os.path.join(tmp, name + ".planted.yaml")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(first.stdout)
    own = annotate(planter, out_path)
    if own.returncode != 0:
        check.failures.append(f"{name}: planter cannot read what it wrote: {own.stderr[:400]}")
    elif own.stdout != first.stdout:
        check.failures.append(f"{name}: planter's reading of its own output is not what it wrote")


# Pieces of strings that stress quoting and folding: escapes at fold points (the issue's
# `job=\"kubelet\"` after `\\`), trailing and leading spaces, YAML indicators, words that are
# other types to YAML 1.1 or 1.2, Unicode a YAML 1.1 reader breaks lines at, long runs.
FRAGMENTS = [
    "\\", "\\\\", '"', "'", "job=\\\"kubelet\\\"", "{{ $labels.job }}", " ", "  ", "\t", "\n",
    "\n\n", "\r", "#", " #", ": ", "- ", "---", "...", "yes", "on", "No", "010203", "0o17",
    "1:20", "1_000", "0x1F", "2024-01-02", "=", "<<", "~", "null", "é", "日本", "🙂", "\u2028",
    "\u0085", "\u00a0", "\ufeff", "\x07", "\x00", "a" * 90, "word ", "$", "%", "@", "`", "!",
    "&anchor", "*alias", "|", ">", "[", "]", "{", "}", ",", "?", "-1", "+1", ".5", "1e3",
]


def tricky_strings(rng, count):
    out = list(FRAGMENTS)
    for _ in range(count):
        n = rng.randint(1, 12)
        out.append("".join(rng.choice(FRAGMENTS) + " " * rng.randint(0, 2) for _ in range(n)))
    # Long lines whose fold (PyYAML folds double-quoted scalars near `width`) falls on every
    # position of an escape.
    for shift in range(0, 90):
        out.append("x" * shift + "\\\\\\\"kubelet\\\", " * 8)
    return out


def config_map_of(strings, name):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"},
            "data": {f"k{i:04d}": s for i, s in enumerate(strings)}}


# YAML 1.1 and 1.2 read these differently; planter reads them as kubectl does (go-yaml v2 through
# sigs.k8s.io/yaml): the value a plain scalar has for `kubectl apply`.
KUBECTL_READS = [
    ("yes", True), ("Yes", True), ("on", True), ("y", True), ("ON", True),
    ("no", False), ("off", False), ("n", False), ("N", False),
    ("010203", 4227), ("0777", 511), ("0o17", 15), ("0x1F", 31), ("0b101", 5), ("1_000", 1000),
    ("-0x1F", -31), ("08", 8.0), ("1:20", "1:20"), ("2024-01-02", "2024-01-02"), ("=", "="),
    ("1e3", 1000.0), (".5", 0.5), ("+1", 1), ("~", None), ("", None), ("True", True),
]


def check_kubectl_table(check, planter, tmp):
    lines = ["apiVersion: example.org/v1", "kind: Widget", "metadata: {name: w, namespace: default}",
             "spec:"]
    for i, (text, _) in enumerate(KUBECTL_READS):
        lines.append(f"  v{i:02d}: {text}")
    path = os.path.join(tmp, "yaml11.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    r = annotate(planter, path)
    if r.returncode != 0:
        check.failures.append(f"YAML 1.1 table: annotate exit {r.returncode}: {r.stderr[:400]}")
        return
    spec = read_pyyaml(r.stdout)[0]["spec"]
    for i, (text, want) in enumerate(KUBECTL_READS):
        got = spec.get(f"v{i:02d}")
        if normal(got) != normal(want) or type(got) is str and type(want) is not str:
            check.failures.append(f"YAML 1.1 table: `{text}` reads as {short(got)}, kubectl reads "
                                  f"{short(want)}")
        check.compared += 1


def streams(planter, corpus, seed):
    print(f"random seed {seed} (replay: yaml_interop.py streams ... {seed})")
    rng = random.Random(seed)
    check = Check()
    with tempfile.TemporaryDirectory() as tmp:
        seeds = sorted(os.path.join(corpus, d, "seed.yaml") for d in os.listdir(corpus)
                       if os.path.exists(os.path.join(corpus, d, "seed.yaml")))
        if not seeds:
            print(f"no corpus seeds under {corpus}")
            return 1
        for path in seeds:
            text = open(path, encoding="utf-8").read()
            docs = read_pyyaml(text)
            label = os.path.basename(os.path.dirname(path))
            for style, dump in STYLES.items():
                check_stream(check, planter, f"{label}.{style}", dump(docs, text), docs, tmp)
        strings = tricky_strings(rng, 400)
        cms = [config_map_of(strings[i:i + 50], f"tricky-{i // 50}")
               for i in range(0, len(strings), 50)]
        for style, dump in STYLES.items():
            if style == "ruamel-roundtrip":
                continue
            check_stream(check, planter, f"tricky.{style}", dump(cms, ""), cms, tmp)
        check_kubectl_table(check, planter, tmp)
    for f in check.failures[:60]:
        print("DIFFERENCE", f)
    print(f"{check.compared} objects compared, {len(check.failures)} differences")
    return 1 if check.failures else 0


def redump(src, out):
    docs = read_pyyaml(open(src, encoding="utf-8").read())
    with open(out, "w", encoding="utf-8") as f:
        f.write(dump_pyyaml(docs))
    return 0


def planted(kubeconfig, seed_path):
    from kubernetes import client, config

    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    docs = read_pyyaml(open(seed_path, encoding="utf-8").read())
    failures = 0
    compared = 0

    def config_maps(d):
        if d.get("kind") == "ConfigMapList":
            for item in d.get("items", []):
                yield item
        elif d.get("kind") == "ConfigMap" and d.get("apiVersion") == "v1":
            yield d

    for d in docs:
        for cm in config_maps(d):
            meta = cm["metadata"]
            ns = meta.get("namespace", "default")
            live = core.api_client.call_api(
                f"/api/v1/namespaces/{ns}/configmaps/{meta['name']}", "GET",
                response_type="object", _return_http_data_only=True)
            for key, value in (cm.get("data") or {}).items():
                compared += 1
                got = (live.get("data") or {}).get(key)
                if got != value:
                    failures += 1
                    if failures <= 20:
                        print(f"DIFFERENCE ConfigMap {ns}/{meta['name']} key {key}: "
                              f"{short(got)} != {short(value)}")
    print(f"{compared} ConfigMap values compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "streams":
        seed = int(argv[4]) if len(argv) > 4 else random.SystemRandom().randrange(1 << 32)
        return streams(argv[2], argv[3], seed)
    if len(argv) == 4 and argv[1] == "redump":
        return redump(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "planted":
        return planted(argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
