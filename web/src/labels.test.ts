// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { HOW, SUIT_NAMES, chipLabel, liveliestTier, moveLabel, trumpLabel, waitingFor } from "./labels";

test("a 炒地皮 hand known to be no-trump says so, not 'not yet'", () => {
  assert.equal(trumpLabel({ trumpKnown: true }), SUIT_NAMES.NT);
  assert.equal(trumpLabel({ trumpKnown: false }), "未定 not yet");
});

test("混战's no-trump and a trump suit", () => {
  assert.equal(trumpLabel({ noTrump: true }), SUIT_NAMES.NT);
  assert.equal(trumpLabel({ trump: "D", trumpKnown: true }), SUIT_NAMES.D);
});

test("the tier offered first is where players sit: 炒地皮's empty yancheng 积分 was the default", () => {
  const tiers = [
    { tier: "yancheng-score", playersSeated: 0 },
    { tier: "yangzhou-fortune10", playersSeated: 7 },
    { tier: "yangzhou-fortune100", playersSeated: 2 },
  ];
  assert.equal(liveliestTier(tiers), "yangzhou-fortune10");
  assert.equal(liveliestTier(tiers.map((t) => ({ ...t, playersSeated: 0 }))), "yancheng-score");
  assert.equal(liveliestTier([]), "");
});

test("a player alone at a table is told what the wait is for", () => {
  const me = { name: "ann", ready: true };
  assert.match(waitingFor("hunzhan", [me, null, null, null], "ann"), /3 more players to sit down \(a hand needs 4\)/);
  assert.match(waitingFor("zhajinhua", [me, { name: "bob", ready: false }, null], "ann"), /Waiting for bob to press start/);
  assert.match(waitingFor("zhajinhua", [{ name: "ann", ready: false }, { name: "bob", ready: true }], "ann"), /Starting/);
});

test("a chip's stake fits the chip: thousands as k", () => {
  assert.deepEqual([100, 900, 1000, 2500, 10000, 12345].map(chipLabel), ["100", "900", "1k", "2.5k", "10k", "12k"]);
});

test("a replay's move names its verb in both languages", () => {
  assert.equal(moveLabel("fold"), "放弃 fold");
  assert.equal(moveLabel("raise 300"), "加注 raise 300");
  assert.equal(moveLabel("play AS AH"), "出牌 play AS AH");
  assert.equal(moveLabel("something new"), "something new");
});

test("bug: a player whose turn timed out read the hand's end as 'everyone else folded'", () => {
  // A 炸金花 hand ends "last_player" when one player is left however the others went out.
  assert.doesNotMatch(HOW.last_player, /everyone else folded/);
  assert.match(HOW.last_player, /timed out/);
  assert.match(HOW.last_player, /comparison/);
});
