#!/usr/bin/env bash
# dist/kubernetes/tslack-daemonset.yaml, as far as a machine without a
# cluster can check it: it parses, and runs what the package's units run
# (attach, then follow and tslackd), privileged, in the host's pid
# namespace, with the host's paths that each command needs mounted at the
# same place. Prints PASS/FAIL lines for the summary.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's python3, with python3-yaml (make deps), whatever else is in PATH.
/usr/bin/python3 - "$top/dist/kubernetes/tslack-daemonset.yaml" <<'PY'
import sys
import yaml

def check(name, ok, why):
    print(f"PASS fleet/{name}" if ok else f"FAIL fleet/{name}: {why}")

try:
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
except yaml.YAMLError as e:
    print(f"FAIL fleet/parses: {e}")
    sys.exit(1)
check("parses", True, "")
ds = next((d for d in docs if d.get("kind") == "DaemonSet"), None)
check("daemonset", ds is not None, "no DaemonSet")
if ds is None:
    sys.exit(1)
pod = ds["spec"]["template"]["spec"]
check("host_pid", pod.get("hostPID") is True, "hostPID is not true")
cmds = {c["name"]: " ".join(c["command"]) for c in pod.get("initContainers", []) + pod["containers"]}
check("attach_first", "tslackctl attach" in cmds.get("attach", "")
      and pod["initContainers"][0]["name"] == "attach", f"init containers: {cmds}")
check("follow", "exec tslackctl follow" in cmds.get("follow", ""), f"follow: {cmds.get('follow')}")
check("tslackd", cmds.get("tslackd") == "tslackd", f"tslackd: {cmds.get('tslackd')}")
vols = {v["name"]: v for v in pod["volumes"]}
need = ["/sys/fs/bpf", "/sys/fs/cgroup", "/run/dbus", "/run/tslack", "/run/tslackd"]
for c in pod.get("initContainers", []) + pod["containers"]:
    mounts = {m["mountPath"]: vols[m["name"]] for m in c["volumeMounts"]}
    same = [p for p in need if mounts.get(p, {}).get("hostPath", {}).get("path") == p]
    check(f"mounts_{c['name']}", same == need, f"host paths mounted as they are: {same}")
    check(f"privileged_{c['name']}", c["securityContext"].get("privileged") is True, "not privileged")
    r = c.get("resources", {})
    check(f"guaranteed_{c['name']}", r.get("requests") and r.get("requests") == r.get("limits"),
          f"requests {r.get('requests')} limits {r.get('limits')}")
PY
