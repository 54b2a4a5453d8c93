// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { NewestView } from "./newest";

test("a late reply never rolls the page back to an older view", () => {
  const order = new NewestView();
  assert.equal(order.take(7n), true); // the Act reply's view would be 7 …
  assert.equal(order.take(9n), true); // … but the stream's view of the hand's end came first
  assert.equal(order.take(7n), false); // then the reply: too old, not shown
  assert.equal(order.take(9n), true); // the same version again is the same table
  assert.equal(order.take(10n), true);
});

test("the first view is always shown", () => {
  assert.equal(new NewestView().take(0n), true);
});
