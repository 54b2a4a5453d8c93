"""The answer to a call of a method this server does not serve: UNIMPLEMENTED with the stable
word ``unimplemented`` in its ``ErrorInfo`` and trailer, as every other refusal carries.

Without it grpc itself answers such a call, with a bare status: a client that reads the word of
every refusal (``docs/errors.md``) found none, and could not tell a method missing here (an older
server, a service this process does not run) from a proxy's refusal. The handler is the server's
last: it answers only what no service, health check or reflection took. It reads no request, so
a stream is answered as soon as it opens.
"""

from __future__ import annotations

from typing import Any

import grpc

from paiju.rpc.errors import abort, refusal_trailers

UNIMPLEMENTED = "unimplemented"


def _message(method: str) -> str:
    return f"this server has no method {method}: check the service's name and this server's version"


class UnknownMethods(grpc.GenericRpcHandler):
    """For grpc's thread-pool server: the method handler of every method it reaches."""

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = handler_call_details.method

        def refuse(_requests: Any, context: grpc.ServicerContext) -> None:
            abort(context, grpc.StatusCode.UNIMPLEMENTED, _message(method), error_code=UNIMPLEMENTED)

        return grpc.stream_stream_rpc_method_handler(refuse)


class UnknownMethodsOnTheLoop(grpc.GenericRpcHandler):
    """For the event loop's server (``grpc.aio``): the same answer, from the loop."""

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        message = _message(handler_call_details.method)

        async def refuse(_requests: Any, context: grpc.aio.ServicerContext) -> None:
            context.set_trailing_metadata(refusal_trailers(grpc.StatusCode.UNIMPLEMENTED, message, UNIMPLEMENTED))
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, message)

        return grpc.stream_stream_rpc_method_handler(refuse)
