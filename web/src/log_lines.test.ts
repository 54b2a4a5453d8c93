// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { seenEventOf, type SeenEvent } from "./events";
import { TypedEventSchema, type TypedEvent } from "./gen/paiju/v1/events_pb";
import { LOG_LINES, QUIET, logLine, type Namers } from "./log_lines";

const names: Namers = { hand: (hs) => ["ann", "bob", "cho", "dee"][hs], table: (ts) => ["T0", "T1", "T2", "T3"][ts] };

/** An event as the server sends it: its source (the table or a game), then its case and fields. */
function event(source: string, type: string, fields: object): SeenEvent {
  const typed: TypedEvent = create(TypedEventSchema, { source: { case: source, value: { event: { case: type, value: fields } } } } as never);
  const seen = seenEventOf(typed);
  assert.ok(seen, `${source} ${type}`);
  return seen;
}
const line = (source: string, type: string, fields: object) => logLine(event(source, type, fields), names);

test("a typed event is named by its type as the docs spell it", () => {
  assert.equal(event("zhajinhua", "compareResult", { seat: 0, target: 1, loser: 1 }).type, "compare_result");
  assert.equal(event("table", "handSeats", { seats: [2, 0] }).type, "hand_seats");
  assert.equal(seenEventOf(create(TypedEventSchema)), null);
});

test("a rob (抄底) is shown with its cards, even as the trump changes without a declaration", () => {
  const shown = line("chaodipi", "robbed", { seat: 0, stage: "rob", index: 2, cards: "2H 2H", trump: { value: "H" } });
  assert.match(shown!, /^ann 抄底 robbed with /);
  assert.match(shown!, /♥/);
  assert.equal(line("chaodipi", "robbed", { seat: 1, stage: "rob", index: 3 }), "bob 暗抄 robbed face down");
});

test("a 炸金花 turn that timed out does not read as a choice to fold", () => {
  assert.equal(line("zhajinhua", "folded", { seat: 2, reason: "timeout" }), "cho 超时放弃 timed out, so folded");
  assert.equal(line("zhajinhua", "folded", { seat: 2, reason: "fold" }), "cho 放弃 folded");
  assert.equal(line("zhajinhua", "folded", { seat: 2, reason: "left" }), "cho 离桌放弃 left, so folded");
});

test("table events name table seats, game events hand seats", () => {
  assert.equal(line("table", "ready", { seat: 3 }), "T3 举手 pressed start");
  assert.equal(line("table", "escaped", { seat: 3 }), "dee 逃跑 escaped");
  assert.equal(line("hunzhan", "escaped", { seat: 3, reason: "left" }), "dee 逃跑 escaped");
  assert.equal(line("table", "stood", { seat: 1, reason: "not_ready" }), "T1 未举手离座 stood up: did not press start in time");
});

test("a table an operator ended says so: the hand called off, then each seat stood up", () => {
  assert.match(line("table", "handVoided", { handId: "t-1-ab", reason: "table_ended" })!, /^本局作废 /);
  assert.equal(line("table", "stood", { seat: 2, reason: "table_ended" }), "T2 牌桌已关闭离座 stood up: the table was closed by an operator");
});

test("trump settled by the kitty or by the declarations says which suit, or no trump", () => {
  assert.match(line("chaodipi", "kittyTurned", { kitty: "", trump: "S" })!, /♠/);
  assert.match(line("chaodipi", "declaringClosed", { declared: true, banker: 0, trump: {} })!, /无主/);
  assert.match(line("chaodipi", "declaringClosed", { declared: true, banker: 0, trump: { value: "D" } })!, /♦/);
  assert.equal(line("chaodipi", "declaringClosed", { declared: true, banker: 0 }), "亮主结束 declaring closed");
  assert.match(line("hunzhan", "declaringClosed", { declarer: 1 })!, /无主/);
  assert.match(line("hunzhan", "declaringClosed", { declarer: 1, trump: "C" })!, /♣/);
});

test("a 炸金花 hand names its ante; a trick game's hand has none", () => {
  assert.equal(line("zhajinhua", "handStarted", { ante: 10 }), "新一局 a new hand: 底注 ante 10");
  assert.equal(line("hunzhan", "handStarted", { deal: 1 }), "新一局 a new hand");
});

test("no event is both logged and quiet", () => {
  assert.deepEqual(Object.keys(LOG_LINES).filter((type) => type in QUIET), []);
});
