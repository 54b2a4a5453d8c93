// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { paijuCodeOf, retryDelayMsOf } from "./error_info";

// The grpc-status-details-bin of a rate-limited call, as paiju.common.error_details writes it
// (RESOURCE_EXHAUSTED, ErrorInfo rate_limited with calls_per_second 50, RetryInfo 0.02 s).
const RATE_LIMITED_DETAILS =
  "CAgSJm1vcmUgdGhhbiA1MCBjYWxscyBhIHNlY29uZDogc2xvdyBkb3duGl0KKHR5cGUuZ29vZ2xlYXBpcy5jb20vZ29vZ2xlLnJwYy5FcnJvckluZm8SMQoM" +
  "cmF0ZV9saW1pdGVkEglwYWlqdS5kZXYaFgoQY2FsbHNfcGVyX3NlY29uZBICNTAaMwoodHlwZS5nb29nbGVhcGlzLmNvbS9nb29nbGUucnBjLlJldHJ5SW5m" +
  "bxIHCgUQgNrECQ==";

test("a refusal's code and retry delay are read from the status details the server sent", () => {
  const trailer = new Headers({ "grpc-status": "8", "grpc-status-details-bin": RATE_LIMITED_DETAILS });
  const error = findTrailerError(trailer);
  assert.ok(error instanceof ConnectError);
  assert.equal(error.code, Code.ResourceExhausted);
  assert.equal(paijuCodeOf(error), "rate_limited");
  assert.equal(retryDelayMsOf(error), 20);
});

test("the ErrorInfo's reason comes before the paiju-error-code header", () => {
  const error = new ConnectError("no", Code.FailedPrecondition, { "paiju-error-code": "from_the_header" });
  error.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, create(ErrorInfoSchema, { reason: "not_your_turn", domain: "paiju.dev" })) }];
  assert.equal(paijuCodeOf(error), "not_your_turn");
});

test("without details (an older server) the header is read; another domain's ErrorInfo is not Paiju's word", () => {
  const older = new ConnectError("no", Code.FailedPrecondition, { "paiju-error-code": "seat_taken" });
  assert.equal(paijuCodeOf(older), "seat_taken");
  const foreign = new ConnectError("no", Code.Unavailable);
  foreign.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, create(ErrorInfoSchema, { reason: "OVERLOADED", domain: "envoy" })) }];
  assert.equal(paijuCodeOf(foreign), undefined);
  assert.equal(retryDelayMsOf(older), undefined);
  assert.equal(paijuCodeOf(new Error("not a call")), undefined);
});
