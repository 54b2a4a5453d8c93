// A refusal's stable word and retry delay as the server sends them to every gRPC client: the
// google.rpc.ErrorInfo (and RetryInfo) inside its grpc-status-details-bin trailer.
//
// Read from the ErrorInfo rather than from the `paiju-error-code` header alone because the
// details are what any client reads, so the web client checks that they arrive through the door
// (paiju's own, or Envoy) and stays right if the header is ever dropped; and it costs little:
// connect already decodes the google.rpc.Status into the error's details, and only the two
// messages read here are generated (from web/protos, a part of googleapis' error_details.proto).
// A server or door that sends no details still sends the header, which is read next.
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb";

/** `ErrorInfo.domain` of Paiju's refusals. */
export const PAIJU_DOMAIN = "paiju.dev";

/** The platform's own error code of a refusal: its ErrorInfo's reason, else its
 * `paiju-error-code` metadata; undefined when it has neither. */
export function paijuCodeOf(error: unknown): string | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const info = error.findDetails(ErrorInfoSchema).find((found) => found.domain === PAIJU_DOMAIN);
  return info?.reason || error.metadata.get("paiju-error-code") || undefined;
}

/** How long the server asks to wait before trying again (its RetryInfo), in milliseconds. */
export function retryDelayMsOf(error: unknown): number | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const delay = error.findDetails(RetryInfoSchema)[0]?.retryDelay;
  return delay === undefined ? undefined : Number(delay.seconds) * 1000 + delay.nanos / 1e6;
}
