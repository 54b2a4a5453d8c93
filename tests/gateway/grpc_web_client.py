"""A gRPC-Web client over plain HTTP/1.1 for the tests, written from the protocol description
(grpc/grpc PROTOCOL-WEB.md) and independent of the door's code: it frames and reads the bytes
itself, so a test sees exactly what a browser's transport would."""

from __future__ import annotations

import base64
import http.client
import struct
import urllib.parse
from dataclasses import dataclass, field

BINARY = "application/grpc-web+proto"
TEXT = "application/grpc-web-text+proto"
TRAILER_FLAG = 0x80


def frame(message: bytes, flag: int = 0) -> bytes:
    return struct.pack(">BI", flag, len(message)) + message


def read_frames(body: bytes) -> list[tuple[int, bytes]]:
    frames, offset = [], 0
    while offset < len(body):
        flag, length = struct.unpack_from(">BI", body, offset)
        frames.append((flag, body[offset + 5:offset + 5 + length]))
        assert len(frames[-1][1]) == length, "a frame shorter than its length prefix"
        offset += 5 + length
    return frames


def decode_base64_chunks(body: bytes) -> bytes:
    """A text-mode body: base64, where a sender may have padded each chunk it wrote."""
    decoded, start = b"", 0
    for end in range(4, len(body) + 1, 4):
        if body[end - 1:end] == b"=" and (end == len(body) or body[end:end + 1] != b"="):
            decoded += base64.b64decode(body[start:end])
            start = end
    return decoded + base64.b64decode(body[start:])


def parse_trailer_block(block: bytes) -> list[tuple[str, str]]:
    pairs = []
    for line in block.decode("ascii").split("\r\n"):
        if line:
            key, _, value = line.partition(":")
            pairs.append((key.strip(), value.strip()))
    return pairs


@dataclass
class Answer:
    """One finished call as the browser sees it."""

    http_status: int
    headers: http.client.HTTPMessage
    frames: list[tuple[int, bytes]]
    raw_body: bytes = b""
    trailers: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        closing = [payload for flag, payload in self.frames if flag == TRAILER_FLAG]
        assert len(closing) <= 1, "more than one trailer frame"
        if closing:
            assert self.frames[-1][0] == TRAILER_FLAG, "the trailer frame is not the last frame"
            self.trailers = parse_trailer_block(closing[0])

    @property
    def messages(self) -> list[bytes]:
        return [payload for flag, payload in self.frames if flag == 0]

    def trailer(self, key: str) -> str | None:
        return next((value for name, value in self.trailers if name == key), None)

    @property
    def code(self) -> int:
        status = self.trailer("grpc-status")
        assert status is not None, f"no grpc-status in {self.trailers}"
        return int(status)

    @property
    def details(self) -> str:
        return urllib.parse.unquote(self.trailer("grpc-message") or "")


def _request(port: int, path: str, body: bytes, content_type: str,
             headers: dict[str, str] | None) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, body=body, headers={
        "Content-Type": content_type, "X-Grpc-Web": "1", "Accept": content_type, **(headers or {})})
    return connection


def call(port: int, path: str, message: bytes, *, text: bool = False,
         headers: dict[str, str] | None = None) -> Answer:
    """Send one call and read its whole answer."""
    content_type = TEXT if text else BINARY
    body = frame(message)
    connection = _request(port, path, base64.b64encode(body) if text else body, content_type, headers)
    try:
        response = connection.getresponse()
        raw = response.read()
        decoded = decode_base64_chunks(raw) if text else raw
        frames = read_frames(decoded) if response.status == 200 else []
        return Answer(response.status, response.headers, frames, raw)
    finally:
        connection.close()


class OpenStream:
    """A server-streaming call read frame by frame while it is still open (binary mode)."""

    def __init__(self, port: int, path: str, message: bytes, headers: dict[str, str] | None = None) -> None:
        self.connection = _request(port, path, frame(message), BINARY, headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status

    def next_frame(self) -> tuple[int, bytes]:
        header = self.response.read(5)
        assert len(header) == 5, "the stream ended before a frame"
        flag, length = struct.unpack(">BI", header)
        return flag, self.response.read(length)

    def close(self) -> None:
        """Go away mid-stream, as a closed browser tab does."""
        self.connection.sock.close()  # type: ignore[union-attr]
        self.connection.close()
