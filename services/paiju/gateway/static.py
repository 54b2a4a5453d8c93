"""The web client's files, served from the package folder ``paiju/web/static/``.

Caching: files under ``assets/`` carry a content hash in their names (the bundler's habit), so
a browser may keep them for a year without asking again; every other file (``index.html`` above
all, which names the current assets) is revalidated on each load (``no-cache`` with its ETag and
Last-Modified), so a new build shows up on the next reload. A path with no file extension that
names no file answers ``index.html``, for a client that routes in the browser.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path, PurePosixPath

from aiohttp import web

STATIC_ROOT = Path(str(resources.files("paiju.web") / "static"))
"""Where the web client's built files are (the package data of :mod:`paiju.web`)."""
IMMUTABLE_FOLDER = "assets"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".wasm": "application/wasm",
    ".txt": "text/plain; charset=utf-8",
}
"""Set here rather than guessed: the guess reads the machine's mime.types, which a slim
container image does not have, and a module script served as anything but JavaScript is refused."""


class StaticFiles:
    """The GET handler of the client's files under ``root``."""

    def __init__(self, root: Path = STATIC_ROOT) -> None:
        self._root = root.resolve()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        relative = PurePosixPath(request.match_info.get("path", "") or "index.html")
        target = self._file(relative)
        if target is None and not relative.suffix:
            relative, target = PurePosixPath("index.html"), self._file(PurePosixPath("index.html"))
        if target is None:
            raise web.HTTPNotFound(text="no such file")
        cache = ("public, max-age=31536000, immutable" if relative.parts[0] == IMMUTABLE_FOLDER
                 else "no-cache")
        headers = {"Cache-Control": cache, "X-Content-Type-Options": "nosniff"}
        content_type = CONTENT_TYPES.get(target.suffix.lower())
        if content_type is not None:
            headers["Content-Type"] = content_type
        return web.FileResponse(target, headers=headers)

    def _file(self, relative: PurePosixPath) -> Path | None:
        """The file ``relative`` names inside the root, or ``None`` (missing, or outside it)."""
        if relative.is_absolute() or ".." in relative.parts:
            return None
        target = (self._root / relative).resolve()
        return target if target.is_relative_to(self._root) and target.is_file() else None
