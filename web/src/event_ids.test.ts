// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { EventIds, isAfter } from "./event_ids";

test("stream ids compare by time, then by sequence, as numbers", () => {
  assert.equal(isAfter("1700000000001-0", "1700000000000-9"), true);
  assert.equal(isAfter("1700000000000-10", "1700000000000-9"), true);
  assert.equal(isAfter("1700000000000-9", "1700000000000-9"), false);
});

test("an own move's events from the reply and the stream's are each taken once", () => {
  const ids = new EventIds();
  const e = (id: string) => ({ id });
  assert.deepEqual(ids.fresh([e("5-0"), e("5-1")]), [e("5-0"), e("5-1")]); // Act's reply
  assert.deepEqual(ids.fresh([e("5-1"), e("6-0")]), [e("6-0")]); // a stream that sent it anyway
  assert.equal(ids.after, "6-0");
});

test("a reply that comes after a later commit's events still counts, and the cursor stays newest", () => {
  const ids = new EventIds();
  ids.fresh([{ id: "9-0" }]); // another player's move, on the stream first
  assert.deepEqual(ids.fresh([{ id: "8-0" }, { id: "8-1" }]).length, 2); // then the reply to mine
  assert.equal(ids.after, "9-0");
  ids.reached("10-0");
  assert.equal(ids.after, "10-0");
});
