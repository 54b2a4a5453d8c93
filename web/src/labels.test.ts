// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { SUIT_NAMES, trumpLabel } from "./labels";

test("a 炒地皮 hand known to be no-trump says so, not 'not yet'", () => {
  assert.equal(trumpLabel({ trump: null, trump_known: true }), SUIT_NAMES.NT);
  assert.equal(trumpLabel({ trump: null, trump_known: false }), "未定 not yet");
});

test("混战's no-trump and a trump suit", () => {
  assert.equal(trumpLabel({ no_trump: true }), SUIT_NAMES.NT);
  assert.equal(trumpLabel({ trump: "D", trump_known: true }), SUIT_NAMES.D);
});
