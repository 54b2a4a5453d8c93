"""gRPC-Web calls to the public services, answered by relaying them to the native gRPC port.

A browser cannot speak gRPC (it has no access to HTTP/2 trailers), so it sends gRPC-Web: one
POST per call, the request as a frame, the answer as frames ending with a trailer frame (see
:mod:`paiju.gateway.frames`). Each call is relayed, as bytes, to the gRPC server of the same
process over loopback with ``grpc.aio``: the servicers, the auth and metrics interceptors and the
errors are the native ones, so the status, its message and the trailing metadata a browser
reads (``paiju-*``, and ``grpc-status-details-bin`` with the refusal's ``ErrorInfo``, base64 as
gRPC-Web carries binary values) are exactly what a native client reads. Every method is relayed as a server stream
(on the wire a unary answer is a stream of one message), so the relay needs no method table.

Only :data:`ROUTED_SERVICES` are relayed; a call to any other service, the internal ones
included, is answered UNIMPLEMENTED without reaching the server. When the server cannot be
reached at all, the browser is told so without the server's address, which grpc's own message
would name.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Sequence

import grpc
from aiohttp import web

from paiju.gateway.frames import (
    COMPRESSED_FLAG,
    MESSAGE_FLAG,
    FrameError,
    decode_binary_value,
    decode_text,
    encode_binary_value,
    encode_text,
    message_frame,
    percent_encode,
    split_frames,
    timeout_seconds,
    trailer_frame,
)
from paiju.rpc.errors import refusal_trailers

ROUTED_SERVICES: frozenset[str] = frozenset({"paiju.v1.WalletService", "paiju.v1.LobbyService", "paiju.v1.TableService"})
"""The services a frontend may call through a front door (this one, or Envoy in Kubernetes)."""

BINARY_TYPE = "application/grpc-web+proto"
TEXT_TYPE = "application/grpc-web-text+proto"
_REQUEST_TYPES = {
    "application/grpc-web": BINARY_TYPE, BINARY_TYPE: BINARY_TYPE,
    "application/grpc-web-text": TEXT_TYPE, TEXT_TYPE: TEXT_TYPE,
}

# Request headers that belong to HTTP or to the browser, not to the call's metadata.
_NOT_METADATA = frozenset({
    "accept", "accept-encoding", "accept-language", "cache-control", "connection", "content-length",
    "content-type", "cookie", "dnt", "host", "keep-alive", "origin", "pragma", "priority", "referer",
    "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "via", "x-grpc-web", "x-user-agent",
    "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host",
})
_NOT_METADATA_PREFIXES = ("grpc-", "sec-", "access-control-", "proxy-", ":")
# Response metadata grpc itself sets, which must not be copied into HTTP headers or trailers.
_RESERVED_RESPONSE_KEYS = frozenset({"content-type", "grpc-status", "grpc-message", "grpc-encoding",
                                     "grpc-accept-encoding", "te", "user-agent"})

Metadata = Sequence[tuple[str, str | bytes]]
UNREACHABLE = "the game server cannot be reached just now; try again shortly"

# A browser that vanishes without closing its connection (a phone out of coverage) must end its
# streams about as soon as a native client's would under the gRPC server's keepalive (~30 s):
# its streams end its presence at the table.
KEEPALIVE_IDLE_SECONDS = 20
KEEPALIVE_INTERVAL_SECONDS = 5
KEEPALIVE_PROBES = 2


class GrpcWebRelay:
    """The aiohttp handler of gRPC-Web calls, relaying them over ``channel`` (a ``grpc.aio``
    channel to ``target``, the native port, created on the loop that serves the HTTP requests)."""

    def __init__(self, channel: grpc.aio.Channel, target: str) -> None:
        self._channel = channel
        self._target = target

    async def handle(self, request: web.Request) -> web.StreamResponse:
        response_type = _REQUEST_TYPES.get(request.content_type)
        if response_type is None:
            raise web.HTTPUnsupportedMediaType(
                text="send application/grpc-web+proto or application/grpc-web-text+proto")
        service = request.match_info["service"]
        if service not in ROUTED_SERVICES:
            return await _status_only(request, response_type, grpc.StatusCode.UNIMPLEMENTED,
                                      f"{service} is not served to frontends")
        try:
            payload = _request_message(await request.read(), response_type)
            timeout = timeout_seconds(request.headers.get("grpc-timeout"))
            metadata = _call_metadata(request.headers.items(), request.remote)
        except FrameError as error:
            return await _status_only(request, response_type, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        call = self._channel.unary_stream(request.path)(payload, metadata=metadata, timeout=timeout)
        try:
            return await _relay(request, response_type, call, self._target)
        finally:
            call.cancel()  # the browser went away, or the relay failed: the server stops the call too


async def _relay(request: web.Request, response_type: str, call: grpc.aio.UnaryStreamCall,
                 target: str) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": response_type})
    connection = request.transport.get_extra_info("socket") if request.transport else None
    if connection is not None:
        probe_vanished_peers(connection)
    for key, value in await call.initial_metadata() or ():
        if key not in _RESERVED_RESPONSE_KEYS:
            response.headers.add(key, _header_value(value))
    await response.prepare(request)
    text = response_type == TEXT_TYPE
    try:
        async for message in call:
            frame = message_frame(message)
            await response.write(encode_text(frame) if text else frame)
        code, details, trailing = await call.code(), await call.details(), await call.trailing_metadata()
    except grpc.aio.AioRpcError as error:
        code, details, trailing = error.code(), error.details(), error.trailing_metadata()
    if f":{target.rsplit(':', 1)[-1]}" in (details or ""):  # grpc's message names the address
        details, trailing = UNREACHABLE, refusal_trailers(code, UNREACHABLE, "backend_unavailable")
    trailers = _trailers(code, details or "", trailing or ())
    await response.write(encode_text(trailers) if text else trailers)
    await response.write_eof()
    return response


async def _status_only(request: web.Request, response_type: str, code: grpc.StatusCode,
                       details: str) -> web.StreamResponse:
    """A call ended before reaching the server: no message, only the trailer frame."""
    response = web.StreamResponse(headers={"Content-Type": response_type})
    await response.prepare(request)
    trailers = _trailers(code, details, refusal_trailers(code, details))
    await response.write(encode_text(trailers) if response_type == TEXT_TYPE else trailers)
    await response.write_eof()
    return response


def probe_vanished_peers(connection: socket.socket) -> None:
    """Have the kernel probe an idle connection and drop it when the peer stopped answering."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE_SECONDS), ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL_SECONDS),
                          ("TCP_KEEPCNT", KEEPALIVE_PROBES)):
        if hasattr(socket, option):  # Linux names; elsewhere the system's defaults stay
            connection.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def _request_message(body: bytes, response_type: str) -> bytes:
    frames = split_frames(decode_text(body) if response_type == TEXT_TYPE else body)
    if len(frames) != 1 or frames[0][0] & ~COMPRESSED_FLAG != MESSAGE_FLAG:
        raise FrameError("a call's body must hold exactly one message frame")
    flag, message = frames[0]
    if flag & COMPRESSED_FLAG:
        raise FrameError("compressed messages are not accepted; send them uncompressed")
    return message


def _call_metadata(headers: Iterable[tuple[str, str]], remote: str | None = None) -> list[tuple[str, str | bytes]]:
    """A request's headers as the call's metadata, with ``x-forwarded-for`` ending in the address
    the request came from: the server's per-address limits count the browser, not this door."""
    metadata: list[tuple[str, str | bytes]] = []
    forwarded: list[str] = []
    for name, value in headers:
        key = name.lower()
        if key == "x-forwarded-for":
            forwarded.append(value)
            continue
        if key in _NOT_METADATA or key.startswith(_NOT_METADATA_PREFIXES):
            continue
        metadata.append((key, decode_binary_value(value) if key.endswith("-bin") else value))
    if remote:
        forwarded.append(remote)
    if forwarded:
        metadata.append(("x-forwarded-for", ", ".join(forwarded)))
    return metadata


def _trailers(code: grpc.StatusCode, details: str, trailing: Metadata) -> bytes:
    status: list[tuple[str, str]] = [("grpc-status", str(code.value[0]))]
    if details:
        status.append(("grpc-message", percent_encode(details)))
    status.extend((key, _header_value(value)) for key, value in trailing if key not in _RESERVED_RESPONSE_KEYS)
    return trailer_frame(status)


def _header_value(value: str | bytes) -> str:
    return encode_binary_value(value) if isinstance(value, bytes) else value

