// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { refreshInMs, type Session } from "./session";

const HOUR = 3600_000;
const day = (issuedAtMs?: number): Session => ({
  token: "t", accountId: "1", username: "ann", expiresAtMs: 1_000 * HOUR + 24 * HOUR, issuedAtMs,
});

test("a session is extended once half its lifetime has gone, not before", () => {
  const s = day(1_000 * HOUR);
  assert.equal(refreshInMs(s, 1_000 * HOUR), 12 * HOUR);
  assert.equal(refreshInMs(s, 1_011 * HOUR), 1 * HOUR);
  assert.equal(refreshInMs(s, 1_012 * HOUR), 0);
  assert.equal(refreshInMs(s, 1_020 * HOUR), 0); // a page opened late in the session: at once
});

test("a session saved before its issue time was kept is extended at once", () => {
  assert.equal(refreshInMs(day(undefined), 1_000 * HOUR), 0);
});

test("a lifetime longer than a browser timer can wait never becomes a timer that fires at once", () => {
  const year = { ...day(0), expiresAtMs: 365 * 24 * HOUR };
  assert.equal(refreshInMs(year, 0), 2 ** 31 - 1);
});
