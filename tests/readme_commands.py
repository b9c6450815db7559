"""Runs every command of the README's ```sh blocks, as a user would paste them, against a
simulated fleet (issue 52: "every README command is run by a test"). The README's placeholders
become the repository's examples (chart/ the helm-hooks example's chart; seed.yaml and seed/ tests/data/readme, a seed for the sim's
edge1..edge3), `--context mgmt` the sim's management context, /tmp/ a folder
of this run's, and kind-edge2 the sim's edge2; a command that serves until stopped (a sim, the
operator, a watch) runs for a few seconds and must still be running then. Each must exit 0 (a
pipe's every command: pipefail).

Usage: readme_commands.py PLANTER_DIR KUBECTL_DIR HELM_DIR
Prints each command with how it ended, and exits 1 naming the first that failed.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
planter_dir, kubectl_dir, helm_dir = sys.argv[1:4]

# What a placeholder of the README stands for here, each replaced once, in one pass.
PLACES = [
    ("/tmp/sim.kubeconfig", "{work}/fleet.kubeconfig"),
    ("/tmp/", "{work}/"),
    ("curl -s https://example.com/seed.yaml", "cat examples/hello-world/seed.yaml"),
    ("--context mgmt", "--context management"),
    ("=kind-edge2", "=edge2"),
    ("helm template demo chart/", "helm template demo examples/helm-hooks/chart"),
    ("-k overlays/prod", "-k examples/kustomize-overlay/overlays/prod"),
    ("my-kpt-package/", "examples/kpt-package/"),
    ("--plugin ./10-network.py", "--plugin examples/plugins/database-first.py"),
    (" seed/", " tests/data/readme/"),
    (" seed.yaml", " tests/data/readme/seed.yaml"),
    ("> plan.svg", "> {work}/plan.svg"),
]
PLACE = re.compile("|".join(re.escape(p) for p, _ in PLACES))
# Commands that serve until stopped: how long they run here.
SERVING = [re.compile(p) for p in (r"^planter sim\b", r"^planter operator\b", r" -w\b")]
# Commands this test does not run, and why.
NOT_RUN = {
    "make run": "the build itself: CI runs it",
    "make test": "runs this test",
}


def commands():
    """The README's ```sh lines, without their comments."""
    out, in_sh = [], False
    for line in open(os.path.join(ROOT, "README.md")):
        line = line.rstrip("\n")
        if line.startswith("```"):
            in_sh = not in_sh and line == "```sh"
            continue
        if not in_sh or not line.strip() or line.lstrip().startswith("#"):
            continue
        # A comment after two or more spaces ends the command (a `#` inside a quote is kept).
        out.append(re.split(r"\s{2,}#\s", line)[0].strip())
    return out


def main():
    work = tempfile.mkdtemp(prefix="planter-readme-")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([planter_dir, kubectl_dir, helm_dir, env["PATH"]])
    for h in ("HELM_CONFIG_HOME", "HELM_CACHE_HOME", "HELM_DATA_HOME"):
        env[h] = os.path.join(work, h.lower())
    kubeconfig = os.path.join(work, "fleet.kubeconfig")
    env["KUBECONFIG"] = kubeconfig
    # The fleet the commands run against: edge1..edge3, their contexts in its kubeconfig.
    sim = subprocess.Popen(
        ["planter", "sim", "--port", "0", "--clusters", "3", "--kubeconfig-out", kubeconfig],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(kubeconfig):
            if time.monotonic() > deadline or sim.poll() is not None:
                print("FAIL the sim did not start")
                return 1
            time.sleep(0.2)  # sleep-ok(poll): the sim's kubeconfig appears once it serves
        ran = 0
        for original in commands():
            if original in NOT_RUN:
                print(f"not run: {original}: {NOT_RUN[original]}")
                continue
            command = original
            # A sim the README starts writes a kubeconfig of its own, not the fleet's.
            if command.startswith("planter sim"):
                command = command.replace("/tmp/sim.kubeconfig", "/tmp/readme-sim.kubeconfig")
            here = dict(PLACES)
            command = PLACE.sub(lambda m: here[m.group(0)].format(work=work), command)
            serving = any(p.search(command) for p in SERVING)
            # A second sim, and the operator, listen on ports of their own.
            if command.startswith("planter sim"):
                command += " --port 0"
            if command.startswith("planter operator"):
                command += " --metrics-addr 127.0.0.1:0 --health-addr 127.0.0.1:0"
            print(f"$ {command}", flush=True)
            proc = subprocess.Popen(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    start_new_session=True)
            try:
                out, _ = proc.communicate(timeout=5 if serving else 300)
                code = proc.returncode
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)
                out, _ = proc.communicate()
                code = "still serving" if serving else "timed out"
            ran += 1
            ok = code == ("still serving" if serving else 0)
            print(f"  -> {code}", flush=True)
            if not ok:
                print(f"FAIL {original}\n{out[-3000:]}")
                return 1
        print(f"ok: {ran} commands of the README ran")
        return 0
    finally:
        sim.terminate()
        try:
            sim.wait(timeout=20)
        except subprocess.TimeoutExpired:
            sim.kill()
        shutil.rmtree(work, ignore_errors=True)


sys.exit(main())
