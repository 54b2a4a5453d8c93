// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { LOG_LINES, QUIET, logLine, type Namers } from "./log_lines";

const names: Namers = { hand: (hs) => ["ann", "bob", "cho", "dee"][hs], table: (ts) => ["T0", "T1", "T2", "T3"][ts] };

test("a rob (抄底) is shown with its cards, even as the trump changes without a declaration", () => {
  const line = logLine({ type: "robbed", payload: { seat: 0, stage: "rob", index: 2, cards: "2H 2H", trump: "H" } }, names);
  assert.match(line!, /^ann 抄底 robbed with /);
  assert.match(line!, /♥/);
  assert.equal(logLine({ type: "robbed", payload: { seat: 1, stage: "rob", index: 3 } }, names), "bob 暗抄 robbed face down");
});

test("a 炸金花 turn that timed out does not read as a choice to fold", () => {
  assert.equal(logLine({ type: "folded", payload: { seat: 2, reason: "timeout" } }, names), "cho 超时弃牌 timed out, so folded");
  assert.equal(logLine({ type: "folded", payload: { seat: 2, reason: "fold" } }, names), "cho 弃牌 folded");
  assert.equal(logLine({ type: "folded", payload: { seat: 2, reason: "left" } }, names), "cho 离桌弃牌 left, so folded");
});

test("table events name table seats, game events hand seats", () => {
  assert.equal(logLine({ type: "ready", payload: { seat: 3 } }, names), "T3 举手 pressed start");
  assert.equal(logLine({ type: "escaped", payload: { seat: 3 } }, names), "dee 逃跑 escaped");
  assert.equal(logLine({ type: "stood", payload: { seat: 1, reason: "not_ready" } }, names), "T1 未举手离座 stood up: did not press start in time");
});

test("a table an operator ended says so: the hand called off, then each seat stood up", () => {
  assert.match(logLine({ type: "hand_voided", payload: { hand_id: "t-1-ab", reason: "table_ended" } }, names)!, /^本局作废 /);
  assert.equal(logLine({ type: "stood", payload: { seat: 2, reason: "table_ended" } }, names), "T2 牌桌已关闭离座 stood up: the table was closed by an operator");
});

test("trump settled by the kitty or by the declarations says which suit, or no trump", () => {
  assert.match(logLine({ type: "kitty_turned", payload: { kitty: "", trump: "S" } }, names)!, /♠/);
  assert.match(logLine({ type: "declaring_closed", payload: { declarer: 0, trump: null } }, names)!, /无主/);
});

test("no event is both logged and quiet, and an unknown one is quiet", () => {
  assert.deepEqual(Object.keys(LOG_LINES).filter((type) => type in QUIET), []);
  assert.equal(logLine({ type: "something_new", payload: {} }, names), null);
});
