"""The cluster's Compose file and KubeRay manifests (deploy/cluster/), parsed: what each refers to is defined in
them, and what docs/cluster.md says of them holds (autoscaling, a network that is not internal). Not a schema
validation: see docs/cluster.md, "Deploying"."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "cluster"


def test_every_volume_claim_the_kuberay_pods_mount_is_defined_and_the_autoscaler_is_on():
    docs = list(yaml.safe_load_all((DEPLOY / "raycluster.yaml").read_text()))
    cluster = next(d for d in docs if d["kind"] == "RayCluster")
    assert cluster["spec"]["enableInTreeAutoscaling"] is True   # docs/cluster.md: pods added while matches wait
    pods = [cluster["spec"]["headGroupSpec"]["template"], *(g["template"] for g in cluster["spec"]["workerGroupSpecs"])]
    claimed = {v["persistentVolumeClaim"]["claimName"] for p in pods for v in p["spec"].get("volumes", [])
               if "persistentVolumeClaim" in v}
    defined = {d["metadata"]["name"] for d in docs if d["kind"] == "PersistentVolumeClaim"}
    assert claimed == {"pepper-bots", "pepper-arena"} and claimed <= defined, (claimed, defined)


def test_the_compose_network_is_not_internal_which_would_keep_out_workers_on_other_hosts():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert not any((n or {}).get("internal") for n in compose["networks"].values()), compose["networks"]


def test_every_kuberay_container_and_the_jobs_submitter_get_the_token_and_the_dashboard_is_served():
    docs = list(yaml.safe_load_all((DEPLOY / "raycluster.yaml").read_text()))
    cluster = next(d for d in docs if d["kind"] == "RayCluster")
    job = next(d for d in docs if d["kind"] == "RayJob")
    pods = [cluster["spec"]["headGroupSpec"]["template"], *(g["template"] for g in cluster["spec"]["workerGroupSpecs"]),
            job["spec"]["submitterPodTemplate"]]
    for pod in pods:
        for c in pod["spec"]["containers"]:
            env = {e["name"]: e for e in c["env"]}
            assert env["RAY_AUTH_MODE"]["value"] == "token", c["name"]
            assert env["RAY_AUTH_TOKEN"]["valueFrom"]["secretKeyRef"] == {"name": "pepper-ray-token", "key": "token"}
    # The submitter talks to the head's dashboard (its job server), which must listen beyond the head's loopback.
    assert cluster["spec"]["headGroupSpec"]["rayStartParams"]["dashboard-host"] == "0.0.0.0"
