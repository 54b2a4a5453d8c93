// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { SeenEvent } from "./events";
import { TableStrikeSchema } from "./gen/paiju/v1/events_pb";
import { SeatEventSchema, TimedOutEventSchema } from "./gen/paiju/v1/hand_parts_pb";
import { ZhajinhuaBetSchema, ZhajinhuaFoldedSchema } from "./gen/paiju/v1/zhajinhua_pb";
import { type LateClick, staleMoveMessage, TABLE_MOVED_ON, YOUR_TIME_RAN_OUT } from "./late_click";

const NOW = 1_000_000;
// The player sits at table seat 2 and is hand seat 1 of this hand.
const click = (changes: Partial<LateClick>): LateClick => ({
  myTableSeat: 2,
  myHandSeat: 1,
  turnClicked: { seat: 2, dueMs: NOW + 8000, suspended: false },
  turnNow: { seat: 2, dueMs: NOW + 8000, suspended: false },
  eventsSince: [],
  nowMs: NOW,
  ...changes,
});

test("a strike, a timed-out turn or a timeout's fold of the player's own seat says the time ran out", () => {
  for (const event of [
    { type: "strike", payload: create(TableStrikeSchema, { seat: 1, strikes: 1 }) },
    { type: "timed_out", payload: create(TimedOutEventSchema, { seat: 1, strikes: 2 }) },
    { type: "folded", payload: create(ZhajinhuaFoldedSchema, { seat: 1, reason: "timeout" }) },
  ] satisfies SeenEvent[]) {
    assert.equal(staleMoveMessage(click({ eventsSince: [event] })), YOUR_TIME_RAN_OUT, event.type);
  }
});

test("another seat's timeout, or the player's own fold by choice, is the table moving on", () => {
  for (const event of [
    { type: "strike", payload: create(TableStrikeSchema, { seat: 0, strikes: 1 }) },
    { type: "timed_out", payload: create(TimedOutEventSchema, { seat: 2, strikes: 1 }) }, // hand seat 2 is someone else
    { type: "folded", payload: create(ZhajinhuaFoldedSchema, { seat: 1, reason: "fold" }) },
    { type: "called", payload: create(ZhajinhuaBetSchema, { seat: 0, amount: 10n }) },
    { type: "looked", payload: create(SeatEventSchema, { seat: 1 }) },
  ] satisfies SeenEvent[]) {
    assert.equal(staleMoveMessage(click({ eventsSince: [event] })), TABLE_MOVED_ON, event.type);
  }
});

test("the player's turn, its time up, gone from the fresh view: the time ran out, events or not", () => {
  const due = { seat: 2, dueMs: NOW - 200, suspended: false };
  assert.equal(staleMoveMessage(click({ turnClicked: due, turnNow: { seat: 3, dueMs: NOW + 20000, suspended: false } })), YOUR_TIME_RAN_OUT);
  assert.equal(staleMoveMessage(click({ turnClicked: due, turnNow: null })), YOUR_TIME_RAN_OUT);
  // A trick game can come back to the same player with a fresh timer.
  assert.equal(staleMoveMessage(click({ turnClicked: due, turnNow: { seat: 2, dueMs: NOW + 19000, suspended: false } })), YOUR_TIME_RAN_OUT);
});

test("a turn with time left, someone else's turn, or a paused clock is the table moving on", () => {
  // Time left: something else changed the table (a declaration, a player away).
  assert.equal(staleMoveMessage(click({ turnNow: null })), TABLE_MOVED_ON);
  // Still the same turn although its time is up: the server has not timed it out yet.
  const due = { seat: 2, dueMs: NOW - 200, suspended: false };
  assert.equal(staleMoveMessage(click({ turnClicked: due, turnNow: due })), TABLE_MOVED_ON);
  assert.equal(staleMoveMessage(click({ turnClicked: { seat: 0, dueMs: NOW - 200, suspended: false }, turnNow: null })), TABLE_MOVED_ON);
  assert.equal(staleMoveMessage(click({ turnClicked: { ...due, suspended: true }, turnNow: null })), TABLE_MOVED_ON);
  assert.equal(staleMoveMessage(click({ turnClicked: null, turnNow: null })), TABLE_MOVED_ON);
  assert.equal(staleMoveMessage(click({ myTableSeat: null, myHandSeat: null, turnClicked: due, turnNow: null })), TABLE_MOVED_ON);
});

test("a turn whose time ran out by a hair of the server's clock ahead counts as run out", () => {
  const due = { seat: 2, dueMs: NOW + 500, suspended: false };
  assert.equal(staleMoveMessage(click({ turnClicked: due, turnNow: null })), YOUR_TIME_RAN_OUT);
});
