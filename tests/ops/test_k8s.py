"""k8s/: every kustomization builds with a real kustomize, every object validates offline
against the Kubernetes schemas, and the objects fit together (selectors, ports, probes, roles,
settings) and fit the code (real gRPC service names, real CLI commands, real settings)."""

from __future__ import annotations

import copy
import importlib
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pool

import paiju.common.config
import paiju.wallet.celery_app
from paiju.cli import build_parser
from paiju.common.config import Settings
from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2, watchdog_pb2  # noqa: F401  (registers services)
from tests.ops.kustomize import (
    K8S,
    KUBERNETES_VERSION,
    containers,
    named,
    render,
    selects,
    validator,
)

KUSTOMIZATIONS = {"base": K8S / "base", "dev": K8S / "overlays" / "dev", "prod": K8S / "overlays" / "prod"}
SERVICE_ROLES = {"paiju-wallet", "paiju-lobby", "paiju-table", "paiju-watchdog", "paiju-worker", "paiju-beat"}
BOTS = "paiju-bots"
"""The house's bots: players of the house, which reach the door and nothing else."""
ROLES = SERVICE_ROLES | {BOTS}
GRPC_ROLES = {"paiju-wallet", "paiju-lobby", "paiju-table", "paiju-watchdog"}
DOOR = "paiju-door"
"""The front door (Envoy's image, not ours): tests/ops/test_door.py checks it."""
DOCKERFILE_UID = 10001

# Prometheus Operator's ServiceMonitor is a custom resource, so kubernetes-validate has no schema
# for it: this is the part of monitoring.coreos.com/v1 these manifests use.
SERVICE_MONITOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "spec": {
            "type": "object",
            "required": ["selector", "endpoints"],
            "additionalProperties": False,
            "properties": {
                "selector": {"type": "object", "properties": {"matchLabels": {"type": "object"}}},
                "namespaceSelector": {"type": "object"},
                "endpoints": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["port"],
                        "additionalProperties": False,
                        "properties": {
                            "port": {"type": "string"},
                            "path": {"type": "string", "pattern": "^/"},
                            "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                            "scrapeTimeout": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                        },
                    },
                },
            },
        },
    },
}


# The part of monitoring.coreos.com/v1 PrometheusRule these manifests use.
PROMETHEUS_RULE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "spec": {
            "type": "object",
            "required": ["groups"],
            "additionalProperties": False,
            "properties": {"groups": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["name", "rules"], "additionalProperties": False,
                "properties": {"name": {"type": "string"}, "rules": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["alert", "expr"], "additionalProperties": False,
                    "properties": {"alert": {"type": "string"}, "expr": {"type": "string"},
                                   "for": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                                   "labels": {"type": "object"}, "annotations": {"type": "object"}},
                }}},
            }}},
        },
    },
}


def test_the_prometheus_rule_is_the_alerts_promtool_tests() -> None:
    import sys

    sys.path.insert(0, str(K8S.parent / "scripts"))
    try:
        import gen_prometheus_rule
    finally:
        sys.path.pop(0)
    assert gen_prometheus_rule.RULE.read_text() == gen_prometheus_rule.rule_text(), (
        "k8s/base/prometheus-rule.yaml is stale: run .venv/bin/python scripts/gen_prometheus_rule.py")


@pytest.fixture(scope="module", params=sorted(KUSTOMIZATIONS))
def build(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, render(KUSTOMIZATIONS[request.param])


def paiju_config(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The services' settings (the ConfigMap generated as ``paiju-config``, hash-suffixed)."""
    (config,) = [c for name, c in named(objects, "ConfigMap").items() if name.startswith("paiju-config")]
    return config


def known_env_names() -> set[str]:
    documented = f"{paiju.common.config.__doc__}\n{paiju.wallet.celery_app.__doc__}"
    return set(re.findall(r"``([A-Z][A-Z0-9_]+)``", documented))


def test_every_object_validates_against_the_kubernetes_schemas(build: tuple[str, list[dict[str, Any]]]) -> None:
    kubernetes_validate = validator()
    jsonschema = pytest.importorskip("jsonschema")
    _, objects = build
    assert objects
    for obj in objects:
        if obj["kind"] == "ServiceMonitor":
            jsonschema.validate(obj, SERVICE_MONITOR_SCHEMA)
        elif obj["kind"] == "PrometheusRule":
            jsonschema.validate(obj, PROMETHEUS_RULE_SCHEMA)
        else:
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_the_validator_refuses_a_broken_deployment() -> None:
    kubernetes_validate = validator()
    deployment = copy.deepcopy(named(render(KUSTOMIZATIONS["base"]), "Deployment")["paiju-table"])
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["port"] = "grpc"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    deployment = copy.deepcopy(named(render(KUSTOMIZATIONS["base"]), "Deployment")["paiju-table"])
    deployment["spec"]["template"]["spec"]["replicaz"] = 3
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_every_role_has_a_deployment_and_the_expected_objects(build: tuple[str, list[dict[str, Any]]]) -> None:
    name, objects = build
    deployments = set(named(objects, "Deployment"))
    extra = {"paiju-redis", "paiju-postgres"} if name == "dev" else set()
    assert deployments == ROLES | {DOOR} | extra
    assert set(named(objects, "HorizontalPodAutoscaler")) == {"paiju-table", DOOR}
    assert "replicas" not in named(objects, "Deployment")[DOOR]["spec"], "the door's replicas are its autoscaler's"
    assert named(objects, "ConfigMap") and named(objects, "ServiceMonitor") and named(objects, "NetworkPolicy")
    budgets = named(objects, "PodDisruptionBudget").values()
    for role in GRPC_ROLES | {"paiju-worker", DOOR}:
        labels = named(objects, "Deployment")[role]["spec"]["template"]["metadata"]["labels"]
        assert any(selects(b["spec"]["selector"], labels) for b in budgets), f"no PDB for {role}"


def test_every_container_runs_a_real_role_of_the_image(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    parser = build_parser()
    for deployment, container in containers(objects):
        if deployment["metadata"]["name"] not in ROLES:
            continue
        command, args = container.get("command"), container.get("args", [])
        if command is None:  # the image's ENTRYPOINT: `paiju`
            parser.parse_args(args)  # exits (SystemExit) on a command the CLI does not have
        else:
            assert command[:2] == ["celery", "-A"], shlex.join(command)
            app_module = importlib.import_module(command[2])
            assert app_module.app.main is not None
            assert command[3] in {"worker", "beat"}
            assert "-B" not in args and "--beat" not in args, "beat runs in its own Deployment"


def test_grpc_services_are_probed_on_their_port_with_a_real_service_name(
    build: tuple[str, list[dict[str, Any]]],
) -> None:
    _, objects = build
    pool = descriptor_pool.Default()
    for deployment, container in containers(objects):
        if deployment["metadata"]["name"] not in GRPC_ROLES:
            continue
        (grpc_port,) = [p["containerPort"] for p in container["ports"] if p["name"] == "grpc"]
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == grpc_port, probe
        service = container["readinessProbe"]["grpc"]["service"]
        assert pool.FindServiceByName(service).full_name == service
        env_port = {
            "paiju-wallet": "PAIJU_WALLET_PORT", "paiju-lobby": "PAIJU_LOBBY_PORT",
            "paiju-table": "PAIJU_TABLE_PORT", "paiju-watchdog": "PAIJU_WATCHDOG_PORT",
        }[deployment["metadata"]["name"]]
        assert int(paiju_config(objects)["data"][env_port]) == grpc_port


def test_pods_run_as_the_images_non_root_user_on_a_read_only_root(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    for deployment, container in containers(objects):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        if deployment["metadata"]["name"] in ROLES:
            assert pod["securityContext"]["runAsUser"] == DOCKERFILE_UID
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]


def test_services_select_pods_and_name_ports_those_pods_have(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    pods = [
        (d["spec"]["template"]["metadata"]["labels"], {p["name"] for c in d["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])})
        for d in named(objects, "Deployment").values()
    ]
    for name, service in named(objects, "Service").items():
        chosen = [ports for labels, ports in pods if selects(service["spec"]["selector"], labels)]
        assert len(chosen) == 1, f"Service {name} selects {len(chosen)} Deployments"
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in chosen[0], f"{name}: no container port {port['targetPort']}"
    (monitor,) = named(objects, "ServiceMonitor").values()
    scraped = [s for s in named(objects, "Service").values() if selects(monitor["spec"]["selector"], s["metadata"]["labels"])]
    assert {s["metadata"]["name"] for s in scraped} >= {"paiju-wallet", "paiju-lobby", "paiju-table", "paiju-watchdog", "paiju-worker-metrics"}
    for service in scraped:
        assert {e["port"] for e in monitor["spec"]["endpoints"]} <= {p["name"] for p in service["spec"]["ports"]}


def test_the_hpa_scales_the_table_deployment_which_leaves_replicas_to_it(
    build: tuple[str, list[dict[str, Any]]],
) -> None:
    _, objects = build
    hpa = named(objects, "HorizontalPodAutoscaler")["paiju-table"]
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "paiju-table"}
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert "replicas" not in named(objects, "Deployment")["paiju-table"]["spec"]
    assert named(objects, "Deployment")["paiju-beat"]["spec"]["replicas"] == 1


def test_the_config_is_settings_the_services_accept_and_targets_reach_services(
    build: tuple[str, list[dict[str, Any]]],
) -> None:
    _, objects = build
    config = paiju_config(objects)
    assert set(config["data"]) <= known_env_names(), sorted(set(config["data"]) - known_env_names())
    settings = Settings.from_env({**config["data"], "PAIJU_SECRET": "a secret of enough length"})
    assert settings.bind_host == "0.0.0.0"
    services = named(objects, "Service")
    for target in (settings.wallet_target, settings.lobby_target, settings.table_target, settings.watchdog_target):
        host, _, port = target.rpartition(":")
        assert host in services, f"{target}: no Service {host}"
        assert int(port) in {p["port"] for p in services[host]["spec"]["ports"]}
    for _, container in containers(objects):
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                assert source["configMapRef"]["name"] == config["metadata"]["name"]


def test_dev_runs_its_own_redis_and_postgres_and_its_secret_points_at_them() -> None:
    import base64

    objects = render(KUSTOMIZATIONS["dev"])
    secret = named(objects, "Secret")["paiju-secrets"]
    values = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    settings = Settings.from_env(values)
    assert not settings.secret_is_ephemeral
    services = named(objects, "Service")
    redis_host = re.match(r"redis://([^:/]+):(\d+)", values["REDIS_URL"])
    database_host = re.match(r"postgresql://[^@]+@([^:/]+):(\d+)/", values["DATABASE_URL"])
    assert redis_host and database_host
    for match in (redis_host, database_host):
        host, port = match.groups()
        assert int(port) in {p["port"] for p in services[host]["spec"]["ports"]}
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {"paiju-dev"}


def test_prod_keeps_no_secret_and_no_datastore_in_git() -> None:
    objects = render(KUSTOMIZATIONS["prod"])
    assert "Secret" not in {o["kind"] for o in objects}
    assert not {"paiju-redis", "paiju-postgres"} & set(named(objects, "Deployment"))
    for deployment, container in containers(objects):
        assert "latest" not in container["image"]
        if deployment["metadata"]["name"] == DOOR:
            continue  # Envoy's image, which needs no Paiju secret
        secrets = {source["secretRef"]["name"] for source in container.get("envFrom", []) if "secretRef" in source}
        secrets |= {item["valueFrom"]["secretKeyRef"]["name"] for item in container.get("env", [])
                    if "secretKeyRef" in item.get("valueFrom", {})}
        assert secrets == {"paiju-secrets"}, deployment["metadata"]["name"]
        digest = container["image"].partition("@")[2]
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), f"{container['image']}: not pinned by digest"
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {"paiju"}


def test_the_base_secret_placeholder_cannot_start_a_service() -> None:
    import base64

    secret = named(render(KUSTOMIZATIONS["base"]), "Secret")["paiju-secrets"]
    values = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    with pytest.raises(paiju.common.config.ConfigError, match="PAIJU_SECRET"):
        Settings.from_env(values)


def test_network_policies_name_ports_the_selected_pods_have(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    deployments = named(objects, "Deployment").values()
    for name, policy in named(objects, "NetworkPolicy").items():
        pods = [d for d in deployments if selects(policy["spec"]["podSelector"], d["spec"]["template"]["metadata"]["labels"])]
        assert pods, f"NetworkPolicy {name} selects no pod"
        for rule in policy["spec"].get("ingress", []):
            for port in rule.get("ports", []):
                if isinstance(port["port"], str):
                    assert named_port_owners(pods, port["port"]), \
                        f"NetworkPolicy {name}: no selected pod has a port {port['port']}"
        for rule in policy["spec"].get("egress", []):
            # A named egress port is the destination pods' port.
            targets = [d for d in deployments
                       if any(selects(peer["podSelector"], d["spec"]["template"]["metadata"]["labels"])
                              for peer in rule.get("to", []) if "podSelector" in peer)]
            for port in rule.get("ports", []):
                if isinstance(port["port"], str):
                    assert named_port_owners(targets, port["port"]), \
                        f"NetworkPolicy {name}: no pod it may reach has a port {port['port']}"


def named_port_owners(deployments: list[dict[str, Any]], port: str) -> list[dict[str, Any]]:
    return [d for d in deployments
            if port in {p["name"] for c in d["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}]


def test_every_paiju_pod_may_reach_only_dns_its_datastores_and_paiju(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    policies = [p for p in named(objects, "NetworkPolicy").values() if "Egress" in p["spec"]["policyTypes"]]
    for name, deployment in named(objects, "Deployment").items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        if labels.get("app.kubernetes.io/component") in ("redis", "postgres", "door", "bots"):
            continue  # the dev overlay's datastores and the door (test_door.py) run no Paiju code; the bots: below
        governing = [p for p in policies if selects(p["spec"]["podSelector"], labels)]
        assert governing, f"{name}: nothing limits where its pods may connect"
        allowed = {(port["port"], port.get("protocol", "TCP"))
                   for p in governing for rule in p["spec"]["egress"] for port in rule.get("ports", [])}
        assert {(53, "UDP"), (6379, "TCP"), (5432, "TCP"), ("grpc", "TCP")} <= allowed, (name, allowed)
        assert all(rule.get("ports") for p in governing for rule in p["spec"]["egress"]), \
            f"{name}: an egress rule without ports lets it connect anywhere"


def test_the_house_bots_reach_only_dns_and_the_doors_plain_port(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    bots = named(objects, "Deployment")[BOTS]
    labels = bots["spec"]["template"]["metadata"]["labels"]
    policies = [p for p in named(objects, "NetworkPolicy").values() if selects(p["spec"]["podSelector"], labels)
                and "Egress" in p["spec"]["policyTypes"]]
    allowed = {(port["port"], port.get("protocol", "TCP"))
               for p in policies for rule in p["spec"]["egress"] for port in rule.get("ports", [])}
    assert allowed == {(53, "UDP"), (53, "TCP"), ("web", "TCP")}
    (container,) = bots["spec"]["template"]["spec"]["containers"]
    args = build_parser().parse_args(container["args"])
    assert args.command == "bots" and args.plaintext
    host, port = args.address.rsplit(":", 1)
    (service,) = [s for s in named(objects, "Service").values() if s["metadata"]["name"] == host]
    door_labels = named(objects, "Deployment")[DOOR]["spec"]["template"]["metadata"]["labels"]
    assert selects(service["spec"]["selector"], door_labels)
    (door_port,) = [p for p in service["spec"]["ports"] if p["port"] == int(port)]
    assert door_port["targetPort"] == "web"
    ingress = [p for p in named(objects, "NetworkPolicy").values() if selects(p["spec"]["podSelector"], door_labels)
               and any(selects(peer.get("podSelector", {}).get("matchLabels", {"-": "-"}), labels)
                       for rule in p["spec"].get("ingress", []) for peer in rule.get("from", []))]
    assert ingress, "no policy lets the bots in at the door"
    assert bots["spec"]["replicas"] == 1 and bots["spec"]["strategy"]["type"] == "Recreate", "two would share accounts"


def test_every_kustomization_is_tested() -> None:
    found = {p.parent for p in Path(K8S).rglob("kustomization.yaml")}
    assert found == set(KUSTOMIZATIONS.values())


def test_one_job_migrates_the_schema_and_every_role_waits_for_it(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    (job,) = named(objects, "Job").values()
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert build_parser().parse_args(container["args"]).command == "migrate"
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    sources = {ref for key in ("configMapRef", "secretRef") for source in container["envFrom"]
               for ref in [source.get(key, {}).get("name")] if ref}
    settings = Settings.from_env(paiju_config(objects)["data"])
    assert settings.migrate == "wait" and settings.schema_wait_seconds > 0
    for deployment, role in containers(objects):
        if deployment["metadata"]["name"] in SERVICE_ROLES:
            names = {ref for key in ("configMapRef", "secretRef") for source in role.get("envFrom", [])
                     for ref in [source.get(key, {}).get("name")] if ref}
            assert names == sources, f"{deployment['metadata']['name']} reads other settings than the Job"


def test_the_watchdog_runs_two_replicas_and_a_drain_keeps_one(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    assert named(objects, "Deployment")["paiju-watchdog"]["spec"]["replicas"] >= 2
    assert named(objects, "PodDisruptionBudget")["paiju-watchdog"]["spec"]["minAvailable"] >= 1


def test_the_worker_and_beat_are_probed(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    (worker,) = [c for d, c in containers(objects) if d["metadata"]["name"] == "paiju-worker"]
    assert worker["readinessProbe"]["httpGet"]["port"] == "metrics"
    assert "inspect ping" in " ".join(worker["livenessProbe"]["exec"]["command"])
    (beat,) = [c for d, c in containers(objects) if d["metadata"]["name"] == "paiju-beat"]
    schedule = beat["args"][beat["args"].index("--schedule") + 1]
    assert schedule in beat["livenessProbe"]["exec"]["command"][-1]


def test_replicas_spread_over_nodes_and_zones(build: tuple[str, list[dict[str, Any]]]) -> None:
    _, objects = build
    for name in GRPC_ROLES | {"paiju-worker", DOOR}:
        pod = named(objects, "Deployment")[name]["spec"]["template"]
        keys = {c["topologyKey"] for c in pod["spec"]["topologySpreadConstraints"]
                if selects(c["labelSelector"]["matchLabels"], pod["metadata"]["labels"])}
        assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, name


def test_no_volume_is_mounted_inside_another_read_only_volume(build: tuple[str, list[dict[str, Any]]]) -> None:
    """The prod door once mounted its certificate at /etc/envoy/tls, inside the configuration's
    volume at /etc/envoy: the runtime cannot make a mount point in a read-only volume, and the
    door never started (found by the deployment run)."""
    _, objects = build
    for deployment, container in containers(objects):
        paths = [mount["mountPath"].rstrip("/") for mount in container.get("volumeMounts", [])]
        nested = [(outer, inner) for outer in paths for inner in paths if inner.startswith(outer + "/")]
        assert not nested, (deployment["metadata"]["name"], nested)
