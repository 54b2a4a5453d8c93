"""The SDK's transport: TLS to a door that speaks only TLS (the production door), plain to
loopback, and a deadline on every call so that a server that stops answering is an error.

The server here is a stand-in Wallet that answers Register (or never does): what is tested is
the client's connection, not the wallet's rules.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from paiju.proto.v1 import wallet_pb2, wallet_pb2_grpc
from tests.conftest import missing_tool


class _Wallet(wallet_pb2_grpc.WalletServiceServicer):
    def __init__(self, hang: threading.Event | None = None) -> None:
        self.hang = hang

    def Register(self, request, context):
        if self.hang is not None:
            self.hang.wait(10)
        return wallet_pb2.RegisterResponse(token="t", account_id="1", username=request.username)


def _serve(servicer: _Wallet, credentials: grpc.ServerCredentials | None = None) -> tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    wallet_pb2_grpc.add_WalletServiceServicer_to_server(servicer, server)
    port = (server.add_secure_port("127.0.0.1:0", credentials) if credentials
            else server.add_insecure_port("127.0.0.1:0"))
    server.start()
    return server, port


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key."""
    if shutil.which("openssl") is None:
        missing_tool("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
                   check=True, capture_output=True)
    return (folder / "cert.pem").read_bytes(), (folder / "key.pem").read_bytes()


@pytest.fixture
def tls_server(certificate: tuple[bytes, bytes]) -> Iterator[int]:
    cert, key = certificate
    server, port = _serve(_Wallet(), grpc.ssl_server_credentials([(key, cert)]))
    yield port
    server.stop(None)


def test_a_client_connects_over_tls_trusting_the_given_certificate(tls_server: int, certificate) -> None:
    client = PaijuClient.connect(f"localhost:{tls_server}", "ann", "a long password", register=True,
                                 tls=True, root_certificates=certificate[0])
    assert client.username == "ann"
    client.close()


def test_over_tls_a_certificate_the_client_does_not_trust_is_refused(tls_server: int) -> None:
    with pytest.raises(PaijuError) as refused:
        PaijuClient.connect(f"localhost:{tls_server}", "ann", "a long password", register=True, tls=True,
                            timeout=5)
    assert refused.value.status == grpc.StatusCode.UNAVAILABLE


def test_a_loopback_address_is_plain_by_default_and_any_other_is_tls(tls_server: int) -> None:
    server, port = _serve(_Wallet())
    try:
        assert PaijuClient.connect(f"127.0.0.1:{port}", "bo", "a long password", register=True).username == "bo"
    finally:
        server.stop(None)
    assert PaijuClient("play.example.com:443")._credentials is not None
    assert PaijuClient(f"127.0.0.1:{tls_server}")._credentials is None


def test_bug_a_call_to_a_server_that_never_answers_waited_for_ever() -> None:
    hang = threading.Event()
    server, port = _serve(_Wallet(hang))
    try:
        with pytest.raises(PaijuError) as late:
            PaijuClient.connect(f"127.0.0.1:{port}", "cy", "a long password", register=True, timeout=0.5)
        assert late.value.status == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        hang.set()
        server.stop(None)


def test_the_default_deadline_is_finite() -> None:
    assert PaijuClient("127.0.0.1:1").timeout is not None


SERVER_ONLY = ("orjson", "redis", "sqlalchemy", "psycopg", "celery", "aiohttp", "prometheus_client",
               "fakeredis", "confusable_homoglyphs", "grpc_health", "grpc_reflection")


def test_the_sdk_installs_without_the_servers_dependencies() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    names = {spec.split(">")[0].split("=")[0].split("[")[0] for spec in project["dependencies"]}
    # grpcio-status: the googleapis protos a refusal's ErrorInfo is read with.
    assert names == {"grpcio", "grpcio-status", "protobuf"}, "pip install paiju is the client: the server is the `server` extra"


def _run_without_the_server(body: str) -> subprocess.CompletedProcess[str]:
    """``body`` in a fresh interpreter where every server-only package fails to import, as in an
    environment that installed the client alone."""
    script = f"""
import importlib.abc, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {SERVER_ONLY!r}:
            raise ModuleNotFoundError(f"{{name}} is the server's", name=name)
        return None
sys.meta_path.insert(0, Refuse())
{body}
"""
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)


def test_bug_importing_the_sdk_pulled_in_the_server_and_its_json_library() -> None:
    done = _run_without_the_server(
        "from paiju.client.sdk import PaijuClient\n"
        "from paiju.client.session import PlaySession\n"
        "client = PaijuClient('127.0.0.1:1')\n"
        "assert client.timeout and client._credentials is None\n"
        "print('imported')")
    assert done.returncode == 0 and "imported" in done.stdout, done.stderr[-2000:]


def test_the_cli_of_a_client_install_says_how_to_get_the_server() -> None:
    done = _run_without_the_server("from paiju.cli import main\nsys.exit(main(['migrate']))")
    assert done.returncode == 2 and "pip install 'paiju[server]'" in done.stderr, done.stderr[-2000:]
