"""Server reflection as tools ask for it today (``grpc.reflection.v1``) and as older ones do
(``grpc.reflection.v1alpha``), from one servicer.

grpcio-reflection serves only ``v1alpha``. The two versions differ only in their package: their
messages are the same on the wire, so the ``v1`` method is the ``v1alpha`` servicer answering
under the ``v1`` name.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME = reflection.SERVICE_NAME


def enable_reflection(service_names: Sequence[str], server: grpc.Server) -> None:
    """Serve reflection of ``service_names`` (and of reflection itself) in both versions."""
    listed = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    reflection.enable_server_reflection(listed, server)
    servicer = reflection.ReflectionServicer(listed)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        ),
    }),))
