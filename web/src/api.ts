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

/** The platform's own error code of a refusal (its `paiju-error-code` metadata), if any. */
export function paijuCodeOf(error: unknown): string | undefined {
  return error instanceof ConnectError ? error.metadata.get("paiju-error-code") ?? undefined : undefined;
}

/** Refusals of a login or registration that only say "not now": the server takes a few at a
 * time from one address (a family behind one router, a café) and asks the rest to come back. */
const LOGIN_BUSY = new Set(["too_many_logins", "server_busy"]);

/** `call`, tried again with a growing pause (up to about 20 s in all) while the server turns
 * logins away as busy; `waiting` is told when a retry is under way, so the page can say so. */
export async function whenAdmitted<T>(call: () => Promise<T>, waiting: (retrying: boolean) => void): Promise<T> {
  let pause = 250;
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (e) {
      if (tries >= 10 || !LOGIN_BUSY.has(paijuCodeOf(e) ?? "")) throw e;
    }
    waiting(true);
    await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    pause = Math.min(pause * 2, 4000);
  }
}
