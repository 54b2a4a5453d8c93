"""The web port's files (content types, caching) and ``paiju serve`` announcing it."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from paiju.common.config import Settings
from paiju.gateway.door import WebDoor, start_web_door
from paiju.gateway.static import STATIC_ROOT
from paiju.serve import open_web_door


@pytest.fixture
def site(tmp_path: Path) -> Iterator[WebDoor]:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>client</title>")
    (tmp_path / "assets" / "app-4f9c2b1a.js").write_text("export const app = 1;")
    (tmp_path / "assets" / "cards-0b7e5d2c.css").write_text("body { margin: 0 }")
    (tmp_path / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path.parent / "secret.txt").write_text("outside the site")
    door = start_web_door("127.0.0.1:1", "127.0.0.1", 0, static_root=tmp_path)
    yield door
    door.stop()


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


@pytest.mark.parametrize(("path", "content_type", "cache"), [
    ("/", "text/html; charset=utf-8", "no-cache"),
    ("/index.html", "text/html; charset=utf-8", "no-cache"),
    ("/assets/app-4f9c2b1a.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"),
    ("/assets/cards-0b7e5d2c.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable"),
    ("/favicon.svg", "image/svg+xml", "no-cache"),
])
def test_each_file_comes_with_its_content_type_and_caching(site, path: str, content_type: str, cache: str) -> None:
    response, body = get(site.port, path)
    assert response.status == 200
    assert response.headers["Content-Type"] == content_type
    assert response.headers["Cache-Control"] == cache
    assert body


def test_an_unchanged_page_is_revalidated_without_being_sent_again(site) -> None:
    first, _ = get(site.port, "/")
    again, body = get(site.port, "/", {"If-None-Match": first.headers["ETag"]})
    assert again.status == 304
    assert body == b""


def test_a_path_of_the_clients_own_routes_answers_the_page(site) -> None:
    response, body = get(site.port, "/table/zhajinhua-free-01")
    assert response.status == 200
    assert b"<title>client</title>" in body


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/../../secret.txt",
                                  "/assets/missing-12345678.js"])
def test_nothing_outside_the_site_nor_a_missing_file_is_served(site, path: str) -> None:
    response, body = get(site.port, path)
    assert response.status == 404
    assert b"outside the site" not in body


def test_the_package_ships_a_page_at_the_root() -> None:
    assert (STATIC_ROOT / "index.html").is_file()


def test_serve_says_where_to_open_the_client_and_that_address_answers(platform_door) -> None:
    settings = Settings.from_env({"PAIJU_WEB_PORT": "0"})
    lines: list[str] = []
    door = open_web_door(settings, platform_door.grpc_address, False, lines.append)
    assert door is not None
    try:
        assert lines == [f"open http://127.0.0.1:{door.port} and play"]
        response, body = get(door.port, "/")
        assert response.status == 200 and b"Paiju" in body
    finally:
        door.stop()


def test_a_busy_web_port_is_said_and_the_server_goes_on_without_it(platform_door) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        settings = Settings.from_env({"PAIJU_WEB_PORT": str(taken.getsockname()[1])})
        lines: list[str] = []
        assert open_web_door(settings, "127.0.0.1:1", False, lines.append) is None
    assert len(lines) == 1 and lines[0].startswith("web: cannot listen on") and "PAIJU_WEB_PORT" in lines[0]
