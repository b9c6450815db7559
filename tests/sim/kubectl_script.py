"""What the kubectl-driven test scripts share (scheduling.py, dra.py): kubectl against the sim
named on the command line (KUBECTL KUBECONFIG), objects as JSON, and a check that prints
"ok NAME" or stops the script with "FAIL NAME: detail"."""
import json
import subprocess
import sys

KUBECTL, KUBECONFIG = sys.argv[1], sys.argv[2]


def kubectl(*args, stdin=None, check=True):
    r = subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIG, *args], input=stdin, text=True,
                       capture_output=True, timeout=60)
    if check and r.returncode != 0:
        raise SystemExit(f"FAIL kubectl {' '.join(args)}: {r.stderr}")
    return r


def get(*args):
    return json.loads(kubectl("get", *args, "-o", "json").stdout)


def check(name, cond, detail=""):
    if not cond:
        raise SystemExit(f"FAIL {name}: {detail}")
    print("ok", name, flush=True)
