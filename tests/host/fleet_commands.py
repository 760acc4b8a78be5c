#!/usr/bin/python3
"""What dist/kubernetes/tslack-daemonset.yaml runs, for the systemd guest.

Writes into OUT one file a container, named after it, holding its command
as shell words (for `eval set --`), and rules/, the ConfigMap's files that
the DaemonSet mounts at /etc/tslack/slack.d. tests/systemd/test_zw_fleet.sh
runs them as the containers would. Needs python3-yaml (make deps).
Usage: fleet_commands.py MANIFEST OUT
"""
import os
import shlex
import sys

import yaml

manifest, out = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(manifest)) if d]
ds = next(d for d in docs if d.get("kind") == "DaemonSet")
pod = ds["spec"]["template"]["spec"]
os.makedirs(os.path.join(out, "rules"), exist_ok=True)
for c in pod.get("initContainers", []) + pod["containers"]:
    with open(os.path.join(out, c["name"]), "w") as f:
        f.write(shlex.join(c["command"]) + "\n")
vols = {v["name"]: v for v in pod["volumes"]}
for c in pod["containers"]:
    for m in c["volumeMounts"]:
        cm = vols[m["name"]].get("configMap")
        if not cm or m["mountPath"] != "/etc/tslack/slack.d":
            continue
        data = next(d for d in docs if d.get("kind") == "ConfigMap"
                    and d["metadata"]["name"] == cm["name"])["data"]
        for name, text in data.items():
            with open(os.path.join(out, "rules", name), "w") as f:
                f.write(text)
