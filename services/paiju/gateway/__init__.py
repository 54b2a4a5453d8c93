"""Front doors for frontends: the all-in-one HTTP port (the web client's files and gRPC-Web,
relayed to the native gRPC port) and the list of services any door may route."""
