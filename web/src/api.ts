// The three public services over gRPC-Web at the page's own origin, with the session token.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { LobbyService } from "./gen/paiju/v1/lobby_pb";
import { TableService } from "./gen/paiju/v1/table_pb";
import { WalletService } from "./gen/paiju/v1/wallet_pb";
import { paijuCodeOf, retryDelayMsOf } from "./error_info";
import { bilingual } from "./refusals";
import { session } from "./session";

const withToken: Interceptor = (next) => async (request) => {
  const token = session.current()?.token;
  if (token) request.header.set("authorization", `Bearer ${token}`);
  return next(request);
};

/** Calls that do the same however often they are made: asked again after an outage. (Act and
 * Sit are not among them: their answer may have been lost after they took effect.) */
export const REPEATABLE = new Set([
  "ListTiers", "ListRooms", "GetView", "CheckAction", "GetBalance", "Level", "History",
  "Leaderboard", "Ready", "Hands", "ReplayHand",
]);

/** A refusal that only says "not now": a backend out of reach, or a call that ran out of time. */
export function isOutage(error: unknown): boolean {
  return error instanceof ConnectError && (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded);
}

/** A repeatable unary call that met an outage is made again, up to 4 times over about 5 s, so a
 * backend restarting or a moment of load is a short wait rather than an error on the page. */
const retryOutages: Interceptor = (next) => async (request) => {
  if (request.stream || !REPEATABLE.has(request.method.name)) return next(request);
  let pause = 300;
  for (let tries = 1; ; tries++) {
    try {
      return await next(request);
    } catch (e) {
      if (tries >= 5 || !isOutage(e) || request.signal.aborted) throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    pause *= 2;
  }
};

const transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  interceptors: [withToken, retryOutages],
});

export const wallet = createClient(WalletService, transport);
export const lobby = createClient(LobbyService, transport);
export const table = createClient(TableService, transport);

export { Code, ConnectError };

/** The server's reason for a refusal, in Chinese and English where its code is known: the status
 * message without the code prefix, after the Chinese sentence for its code (`paijuCodeOf`). */
export function reasonOf(error: unknown): string {
  if (error instanceof ConnectError) return bilingual(paijuCodeOf(error), error.rawMessage || Code[error.code]);
  if (error instanceof Error) return error.message;
  return String(error);
}

export function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}

export { paijuCodeOf };

/** Refusals of a login or registration that only say "not now": the server takes a few at a
 * time from one address (a family behind one router, a café) and asks the rest to come back. */
const LOGIN_BUSY = new Set(["too_many_logins", "server_busy"]);

/** `call`, tried again with a growing pause (up to about 20 s in all; never shorter than the
 * wait the server asks for) while the server turns logins away as busy; `waiting` is told when a
 * retry is under way, so the page can say so. */
export async function whenAdmitted<T>(call: () => Promise<T>, waiting: (retrying: boolean) => void): Promise<T> {
  let pause = 250;
  for (let tries = 1; ; tries++) {
    let asked = 0;
    try {
      return await call();
    } catch (e) {
      if (tries >= 10 || !LOGIN_BUSY.has(paijuCodeOf(e) ?? "")) throw e;
      asked = retryDelayMsOf(e) ?? 0;
    }
    waiting(true);
    await new Promise((resolve) => setTimeout(resolve, Math.max(asked, pause * (0.5 + Math.random()))));
    pause = Math.min(pause * 2, 4000);
  }
}
