"""The gRPC-Web wire format: length-prefixed frames, the trailer frame, base64 text mode, timeouts.

As grpc/grpc's PROTOCOL-WEB.md describes it, over HTTP/1.1 or HTTP/2:

* a request or response body is a sequence of frames, each a flag byte, a 4-byte big-endian
  length and that many bytes; flag ``0x00`` carries a protobuf message;
* a response ends with one frame of flag ``0x80`` (the trailers): the status and trailing
  metadata written as an HTTP/1 header block, ``key:value\\r\\n`` with lowercase keys;
* in text mode (``application/grpc-web-text``) the body is base64: a sender may encode each
  piece separately, padded, so a receiver decodes padded chunks one after another.

>>> frame = message_frame(b"hi")
>>> frame
b'\\x00\\x00\\x00\\x00\\x02hi'
>>> split_frames(frame + trailer_frame([("grpc-status", "0")]))
[(0, b'hi'), (128, b'grpc-status:0\\r\\n')]
>>> decode_text(encode_text(b"ab") + encode_text(b"c"))
b'abc'
>>> timeout_seconds("250m"), timeout_seconds("2S"), timeout_seconds(None)
(0.25, 2.0, None)
>>> percent_encode("the table moved on: 桌"), percent_decode(percent_encode("桌 100%"))
('the table moved on: %E6%A1%8C', '桌 100%')
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from collections.abc import Iterable

MESSAGE_FLAG = 0x00
TRAILER_FLAG = 0x80
COMPRESSED_FLAG = 0x01
_HEADER = struct.Struct(">BI")

_TIMEOUT = re.compile(r"(\d{1,8})([HMSmun])")
_TIMEOUT_UNIT_SECONDS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
_PADDED_CHUNK = re.compile(rb"[^=]*=*")


class FrameError(ValueError):
    """A body that is not a well-formed gRPC-Web frame sequence; the message says how."""


def message_frame(message: bytes) -> bytes:
    """One data frame carrying ``message``."""
    return _HEADER.pack(MESSAGE_FLAG, len(message)) + message


def trailer_frame(trailers: Iterable[tuple[str, str]]) -> bytes:
    """The closing frame: ``trailers`` (status first, by convention) as an HTTP/1 header block."""
    block = "".join(f"{key.lower()}:{value}\r\n" for key, value in trailers).encode("ascii")
    return _HEADER.pack(TRAILER_FLAG, len(block)) + block


def split_frames(body: bytes) -> list[tuple[int, bytes]]:
    """Every ``(flag, payload)`` of ``body``; raises :class:`FrameError` on a cut-short frame."""
    frames, offset = [], 0
    while offset < len(body):
        if len(body) - offset < _HEADER.size:
            raise FrameError("a frame header is cut short")
        flag, length = _HEADER.unpack_from(body, offset)
        offset += _HEADER.size
        if len(body) - offset < length:
            raise FrameError("a frame is shorter than its length prefix says")
        frames.append((flag, body[offset:offset + length]))
        offset += length
    return frames


def parse_trailers(block: bytes) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of a trailer frame's payload, keys lowercased."""
    pairs = []
    for line in block.decode("ascii").split("\r\n"):
        if line:
            key, _, value = line.partition(":")
            pairs.append((key.strip().lower(), value.strip()))
    return pairs


def encode_text(data: bytes) -> bytes:
    """``data`` as one padded base64 chunk of a text-mode body."""
    return base64.b64encode(data)


def decode_text(body: bytes) -> bytes:
    """A text-mode body: base64, possibly several padded chunks one after another."""
    compact = b"".join(body.split())
    try:
        return b"".join(base64.b64decode(chunk, validate=True) for chunk in _PADDED_CHUNK.findall(compact) if chunk)
    except binascii.Error as error:
        raise FrameError(f"the text-mode body is not base64: {error}") from None


def timeout_seconds(header: str | None) -> float | None:
    """The ``grpc-timeout`` header (``<digits><H|M|S|m|u|n>``) in seconds, ``None`` when absent;
    raises :class:`FrameError` when malformed."""
    if header is None:
        return None
    match = _TIMEOUT.fullmatch(header.strip())
    if match is None:
        raise FrameError(f"grpc-timeout {header!r} is not <digits><H|M|S|m|u|n>")
    return int(match.group(1)) * _TIMEOUT_UNIT_SECONDS[match.group(2)]


def percent_encode(message: str) -> str:
    """``grpc-message`` encoding: UTF-8, bytes outside printable ASCII and ``%`` as ``%XX``."""
    return "".join(chr(byte) if 0x20 <= byte <= 0x7E and byte != 0x25 else f"%{byte:02X}"
                   for byte in message.encode("utf-8"))


def percent_decode(message: str) -> str:
    """The inverse of :func:`percent_encode` (a client reading ``grpc-message``)."""
    raw = re.sub(r"%([0-9A-Fa-f]{2})", lambda match: chr(int(match.group(1), 16)), message)
    return raw.encode("latin-1").decode("utf-8", "replace")


def encode_binary_value(value: bytes) -> str:
    """A ``-bin`` metadata value as header text: base64 without padding, as gRPC emits."""
    return base64.b64encode(value).decode("ascii").rstrip("=")


def decode_binary_value(text: str) -> bytes:
    """A ``-bin`` header's value, padded or not."""
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as error:
        raise FrameError(f"a -bin header is not base64: {error}") from None
