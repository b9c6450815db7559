"""planter's YAML judged by Debian's PyYAML (python3-yaml) and ruamel.yaml (python3-ruamel.yaml).

  yaml_interop.py streams PLANTER CORPUS_DIR SEED
      Every corpus seed re-dumped in several styles, and generated tricky strings: planter's
      reading (`planter annotate --rewrite`, planter's own annotations taken out) equals PyYAML's; what
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
import re
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
# libyaml's emitter (CSafeDumper) writes an int in a quoted style as `! "1"`, which the spec and
# kubectl read as the string "1" (PyYAML reads 1): the quoted styles use PyYAML's own emitter,
# which writes `!!int "1"`, as yaml.safe_dump_all does. The plain styles take the faster one.
FAST_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def read_pyyaml(text):
    return [d for d in yaml.load_all(text, Loader=LOADER) if d is not None]


def read_ruamel(text, pure=False):
    """ruamel.yaml's reading (YAML 1.2). Its C parser (python3-ruamel.yaml.clib, libyaml) is fast
    but refuses some plain scalars ruamel's own round trip writes (a ':' inside a flow-context
    scalar): its own output is read with its pure-Python parser."""
    y = YAML(typ="safe", pure=pure)
    # ruamel resolves a plain `=` as YAML 1.1's value key too, and cannot build it: a string.
    y.constructor.add_constructor("tag:yaml.org,2002:value",
                                  lambda c, node: c.construct_scalar(node))
    return [d for d in y.load_all(text) if d is not None]


def dump_pyyaml(docs, **style):
    dumper = yaml.SafeDumper if "default_style" in style else FAST_DUMPER
    return yaml.dump_all(docs, Dumper=dumper, **style)


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
    """planter annotate's additions taken out: the annotations of its own it added (those the
    author wrote stay), and the namespace it filled in."""
    doc = json.loads(json.dumps(doc))
    meta = doc.get("metadata")
    orig_meta = original.get("metadata") if isinstance(original, dict) else None
    orig_meta = orig_meta if isinstance(orig_meta, dict) else {}
    if isinstance(meta, dict):
        notes = meta.get("annotations")
        authored = orig_meta.get("annotations") or {}
        if isinstance(notes, dict):
            for k in [k for k in notes if k.startswith("planter.nephio.org/") and k not in authored]:
                del notes[k]
            if not notes and "annotations" not in orig_meta:
                del meta["annotations"]
        if "namespace" not in orig_meta:
            meta.pop("namespace", None)
    return doc


def identity(doc, with_namespace=True):
    if not isinstance(doc, dict):
        return ("", "", "", json.dumps(doc, sort_keys=True))
    meta = doc.get("metadata") or {}
    return (str(doc.get("apiVersion")), str(doc.get("kind")),
            str(meta.get("namespace", "")) if with_namespace else "", str(meta.get("name", "")))


def original_of(doc, by_id, by_name):
    return by_id.get(identity(doc)) or by_name.get(identity(doc, False)) or {}


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


def first_difference(a, b, path="$", decided=None):
    """The first place planter's `a` and the reference `b` differ. With `decided` (a reference
    read as YAML 1.2), a string the reference holds that kubectl reads as another value when
    plain, and planter read as kubectl does, is a decided difference, listed there."""
    if decided is not None and isinstance(b, str) and a != b and writes_plain(b, decided) and \
            normal(kubectl_plain(b)) == a and not isinstance(a, str):
        decided.append(f"{path}: {short(b)} is {short(a)} to kubectl")
        return None
    if type(a) is not type(b):
        return f"{path}: {short(a)} != {short(b)}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'planter' if k in a else 'the reference'}"
            d = first_difference(a[k], b[k], f"{path}.{k}", decided)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]", decided)
            if d:
                return d
        return None
    return None if a == b else f"{path}: {short(a)} != {short(b)}"


def short(v):
    s = json.dumps(v, ensure_ascii=True)
    return s if len(s) < 160 else s[:150] + "...(" + str(len(s)) + " chars)"


GO_YAML_TRUE = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
GO_YAML_FALSE = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


def go_parse_int(text):
    """Go's strconv.ParseInt(text, 0, 64) (then ParseUint), or None."""
    sign, body = "", text
    if body[:1] in "+-":
        sign, body = body[0], body[1:]
    base = 10
    if body[:2] in ("0x", "0X"):
        base, body = 16, body[2:]
    elif body[:2] in ("0o", "0O"):
        base, body = 8, body[2:]
    elif body[:2] in ("0b", "0B"):
        base, body = 2, body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, body = 8, body[1:]
    if not body or not all(c in "0123456789abcdefABCDEF"[:base + (6 if base == 16 else 0)]
                           for c in body):
        return None
    value = int(body, base) * (-1 if sign == "-" else 1)
    if -(1 << 63) <= value < (1 << 63):
        return value
    return value if sign == "" and value < (1 << 64) else None


def kubectl_plain(text):
    """What a plain scalar is to kubectl (go-yaml v2, as its documentation and resolve table say):
    the oracle for the YAML 1.1/1.2 differences planter decides as kubectl does."""
    if text in GO_YAML_TRUE:
        return True
    if text in GO_YAML_FALSE:
        return False
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text[:1].isdigit() or text[:1] in "+-":
        plain = text.replace("_", "")
        value = go_parse_int(plain)
        if value is not None:
            return value
        if GO_FLOAT.match(plain):
            return float(plain)
    elif text[:1] == "." and GO_FLOAT.match(text):
        return float(text)
    return text


PYYAML_RESOLVER = yaml.resolver.Resolver()


def writes_plain(text, decided):
    """Whether the reference's writer wrote `text` plain: ruamel.yaml (YAML 1.2) does for every
    string its resolver reads back as one (`decided.yaml12`); PyYAML for those YAML 1.1 reads as
    strings (`y`, `n`, `0o17`, `1e3`), which go-yaml reads otherwise."""
    if getattr(decided, "yaml12", False):
        return True
    return PYYAML_RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == \
        "tag:yaml.org,2002:str"


class Decided(list):
    """The YAML 1.1/1.2 differences met, each read as kubectl reads it."""

    def __init__(self, yaml12=False):
        super().__init__()
        self.yaml12 = yaml12


class Check:
    def __init__(self):
        self.failures = []
        self.decided = []  # YAML 1.1/1.2 differences read as kubectl reads them
        self.compared = 0

    def docs_equal(self, what, planter_docs, reference_docs, absent=frozenset(),
                   yaml12_reference=False):
        """Each reference object (Lists expanded) against planter's object of the same kind and
        name; `absent`: objects planter sets aside whatever the style (planter's decision)."""
        index = {}
        for d in planter_docs:
            index.setdefault(identity(d, False), []).append(d)
        missing = []
        for ref in expand_lists(reference_docs):
            key = identity(ref, False)
            candidates = index.get(key, [])
            if not candidates:
                if key not in absent:
                    missing.append(key)
                continue
            ns = identity(ref)[2]
            same = [c for c in candidates if identity(c)[2] == ns]
            got = same[0] if same else candidates[0] if len(candidates) == 1 else None
            if got is None:
                missing.append(identity(ref))
                continue
            got = strip_planter(got, ref)
            ref_meta = ref.get("metadata") if isinstance(ref, dict) else None
            if isinstance(ref_meta, dict) and "namespace" not in (got.get("metadata") or {}):
                ref = json.loads(json.dumps(ref))
                ref["metadata"].pop("namespace", None)
            self.compared += 1
            decided = Decided(yaml12_reference)
            diff = first_difference(normal(got), normal(ref), decided=decided)
            self.decided.extend(f"{what}: {d}" for d in decided)
            if diff:
                self.failures.append(f"{what}: {'/'.join(key)} {diff}")
        if missing:
            self.failures.append(f"{what}: not in planter's reading: {missing[:3]}")


def expand_lists(docs):
    for d in docs:
        if isinstance(d, dict) and str(d.get("kind", "")).endswith("List") and \
                isinstance(d.get("items"), list):
            yield from d["items"]
        else:
            yield d


def annotate(planter, path):
    r = subprocess.run([planter, "annotate", "--rewrite", path], capture_output=True, text=True)
    return r


def check_stream(check, planter, name, text, reference, tmp, absent=frozenset(),
                 yaml12_reference=False):
    """planter reads `text` as `reference` (PyYAML's reading, or ruamel's for its own output);
    its output reads back equal with PyYAML, ruamel.yaml and planter; the same bytes twice."""
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
    try:
        read_back = read_pyyaml(first.stdout)
    except yaml.YAMLError as e:
        check.failures.append(f"{name}: PyYAML cannot read what planter wrote: {e}")
        return
    check.docs_equal(f"{name} (planter's reading, read back by PyYAML)", read_back, reference,
                     absent, yaml12_reference)
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
    "\n\n", "\r", "#", " #", ": ", "- ", "---", "...", "yes", "on", "No", "010203",
    "1:20", "1_000", "0x1F", "2024-01-02", "=", "<<", "~", "null", "é", "日本", "🙂", "\u2028", "\u2029",
    "\u0085", "\u00a0", "\ufeff", "\x07", "\x00", "a" * 90, "word ", "$", "%", "@", "`", "!",
    "&anchor", "*alias", "|", ">", "[", "]", "{", "}", ",", "?", "-1", "+1", ".5",
]
# Not among them: `0o17` and `1e3`, which PyYAML (YAML 1.1) writes plain as strings and kubectl reads
# as numbers; KUBECTL_READS decides them.


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
    # The non-specific tag: a string by the spec and for go-yaml; PyYAML and ruamel resolve it as
    # if plain (1). libyaml's emitter writes it for an int in a quoted style.
    ('! "1"', "1"), ('!!int "1"', 1), ("!!str 1", "1"),
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
    # PLANTER_INTEROP_STYLES=a,b: only those styles (the sanitized build's planter is slower).
    chosen = os.environ.get("PLANTER_INTEROP_STYLES")
    styles = {k: v for k, v in STYLES.items() if not chosen or k in chosen.split(",")}
    rng = random.Random(seed)
    check = Check()
    with tempfile.TemporaryDirectory() as tmp:
        seeds = sorted(os.path.join(corpus, d, "seed.yaml") for d in os.listdir(corpus)
                       if os.path.exists(os.path.join(corpus, d, "seed.yaml")))
        if not seeds:
            print(f"no corpus seeds under {corpus}")
            return 1
        for path in seeds:
            original = annotate(planter, path)
            if original.returncode != 0:
                # A seed planter refuses as it stands (sriov's `$NAMESPACE` template): nothing to
                # compare its re-dumps with.
                print(f"not compared: {path} (planter refuses it as it stands)")
                continue
            text = open(path, encoding="utf-8").read()
            docs = read_pyyaml(text)
            # What planter sets aside or leaves out whatever the style (a kapp Config, a List's
            # own envelope): its decisions, not its reading.
            kept = {identity(d, False) for d in read_pyyaml(original.stdout)}
            absent = frozenset(identity(d, False) for d in expand_lists(docs)) - kept
            label = os.path.basename(os.path.dirname(path))
            for style, dump in styles.items():
                redumped = dump(docs, text)
                ruamel = style.startswith("ruamel")
                check_stream(check, planter, f"{label}.{style}", redumped,
                             read_ruamel(redumped, pure=True) if ruamel else docs, tmp, absent, ruamel)
        strings = tricky_strings(rng, 400)
        cms = [config_map_of(strings[i:i + 50], f"tricky-{i // 50}")
               for i in range(0, len(strings), 50)]
        for style, dump in styles.items():
            if style == "ruamel-roundtrip":
                continue
            check_stream(check, planter, f"tricky.{style}", dump(cms, ""), cms, tmp)
        check_kubectl_table(check, planter, tmp)
    for f in check.failures[:60]:
        print("DIFFERENCE", f)
    for d in sorted(set(check.decided)):
        print("DECIDED (a plain scalar the writer meant as a string, read as kubectl reads it):", d)
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
            # The server's JSON as it is, not the client's model of it.
            raw = core.read_namespaced_config_map(meta["name"], ns, _preload_content=False)
            live = json.loads(raw.data)
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
