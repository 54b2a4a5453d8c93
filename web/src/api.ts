// The three public services over gRPC-Web at the page's own origin, with the session token.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Lobby } from "./gen/paiju/v1/lobby_pb";
import { Table } from "./gen/paiju/v1/table_pb";
import { Wallet } from "./gen/paiju/v1/wallet_pb";
import { session } from "./session";

const withToken: Interceptor = (next) => async (request) => {
  const token = session.current()?.token;
  if (token) request.header.set("authorization", `Bearer ${token}`);
  return next(request);
};

const transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  interceptors: [withToken],
});

export const wallet = createClient(Wallet, transport);
export const lobby = createClient(Lobby, transport);
export const table = createClient(Table, transport);

export { Code, ConnectError };

/** The server's reason for a refusal: its status message, without the code prefix. */
export function reasonOf(error: unknown): string {
  if (error instanceof ConnectError) return error.rawMessage || Code[error.code];
  if (error instanceof Error) return error.message;
  return String(error);
}

export function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}
