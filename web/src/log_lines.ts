// The table's log: one line for every public event a player should hear of, in Chinese and
// English. An event with no line here is in QUIET, with the reason it needs none; a test checks
// that every event the docs list is one or the other, so a new event cannot go unshown again
// (a 炒地皮 rob once changed trump while the log showed only passes).
import { prettyCards } from "./cards";
import type { EventType, PayloadOf, SeenEvent } from "./events";
import type { NullableString } from "./gen/paiju/v1/hand_parts_pb";
import { SUIT_NAMES } from "./labels";

/** Who a seat is: game events name hand seats, table events table seats. */
export interface Namers {
  hand: (handSeat: number) => string;
  table: (tableSeat: number) => string;
}

type Lines = { [T in EventType]?: (p: PayloadOf<T>, n: Namers) => string | null };

const FOLD_WHY: Record<string, string> = {
  fold: "放弃 folded",
  timeout: "超时放弃 timed out, so folded",
  left: "离桌放弃 left, so folded",
};

const STOOD_WHY: Record<string, string> = {
  left: "离座 left the table",
  escaped: "逃跑离座 escaped and lost the seat",
  not_enough_coins: "金币不足离座 stood up: too few coins for this room",
  not_ready: "未举手离座 stood up: did not press start in time",
  table_ended: "牌桌已关闭离座 stood up: the table was closed by an operator",
};

const suit = (trump: string | null | undefined) => (trump ? (SUIT_NAMES[trump] ?? trump) : SUIT_NAMES.NT);
const cards = (text: string | undefined) => prettyCards(text ?? "");
/** 混战 always says which trump closed the declaring; 炒地皮 leaves it out while declarations
 * stay face down (a set `NullableString` whose value is unset is no trump). */
const closedTrump = (trump: string | NullableString | undefined): string | null | undefined =>
  typeof trump === "object" ? (trump.value ?? null) : trump;

export const LOG_LINES: Lines = {
  // every game: the table
  sat: (p, n) => `${p.name || n.table(p.seat)} 入座 sat down`,
  stood: (p, n) => `${n.table(p.seat)} ${STOOD_WHY[p.reason] ?? p.reason}`,
  ready: (p, n) => `${n.table(p.seat)} 举手 pressed start`,
  disconnected: (p, n) => `${n.table(p.seat)} 掉线 lost connection: the seat is kept for a while`,
  reconnected: (p, n) => `${n.table(p.seat)} 回来了 is back`,
  strike: (p, n) => `${n.hand(p.seat)} 超时 timed out (${p.strikes})`,
  escaped: (p, n) => `${n.hand(p.seat)} 逃跑 escaped`,
  hand_over: () => `本局结束 hand over`,
  hand_voided: () => `本局作废 the hand was called off: nothing is settled, every stake goes back`,
  // 炸金花
  hand_started: (p) => ("ante" in p && p.ante ? `新一局 a new hand: 底注 ante ${p.ante}` : `新一局 a new hand`),
  looked: (p, n) => `${n.hand(p.seat)} 看牌 looked`,
  called: (p, n) => `${n.hand(p.seat)} 跟注 called ${p.amount}`,
  raised: (p, n) => `${n.hand(p.seat)} 加注 raised to ${p.stake}`,
  folded: (p, n) => `${n.hand(p.seat)} ${FOLD_WHY[p.reason] ?? FOLD_WHY.fold}`,
  compare_result: (p, n) => `${n.hand(p.seat)} 比牌 compared with ${n.hand(p.target)}: ${n.hand(p.loser)} lost`,
  opened: (p, n) => `${n.hand(p.seat)} 开牌 opened`,
  system_open: () => `封顶 the pot reached its cap: everyone's cards are compared`,
  // 混战 and 炒地皮
  deal_done: () => `发牌完毕 all cards dealt`,
  declared: (p, n) =>
    p.cards ? `${n.hand(p.seat)} 亮主 declared ${cards(p.cards)}` : `${n.hand(p.seat)} 暗亮 declared face down`,
  robbed: (p, n) => (p.cards ? `${n.hand(p.seat)} 抄底 robbed with ${cards(p.cards)}` : `${n.hand(p.seat)} 暗抄 robbed face down`),
  passed: (p, n) => `${n.hand(p.seat)} 不抄 passed`,
  redeal: () => `无人亮主 nobody declared: dealt again`,
  declaring_closed: (p) => {
    const trump = "declarer" in p ? (p.trump ?? null) : closedTrump(p.trump);
    return trump !== undefined ? `定主 trump is ${suit(trump)}` : `亮主结束 declaring closed`;
  },
  declarations_revealed: (p) => `亮底 the face-down declarations are shown: trump is ${suit(p.trump)}`,
  kitty_turned: (p) => `翻底定主 nobody declared: the kitty turned up makes ${suit(p.trump)} trump`,
  kitty_taken: (p, n) => `${n.hand(p.seat)} 拿底 took the kitty`,
  buried: (p, n) => `${n.hand(p.seat)} 扣底 buried 8 cards`,
  play_started: (p, n) => `开打 play starts: ${n.hand(p.banker)} leads, trump ${suit(p.trump)}`,
  multiple: (p, n) => `${n.hand(p.seat)} 倍数 ×${p.multiple}`,
  throw_failed: (p, n) => `${n.hand(p.seat)} 甩牌失败 a throw failed: only its lowest part is played`,
  played: (p, n) => `${n.hand(p.seat)} 出 ${cards(p.cards)}`,
  trick_won: (p, n) => `${n.hand(p.seat)} 赢墩 took the trick${p.points ? ` (+${p.points})` : ""}`,
  timed_out: (p, n) => `${n.hand(p.seat)} 超时 timed out: the default move is played`,
};

/** Events with no line of their own, and why. */
export const QUIET: Record<string, string> = {
  hand_seats: "the new hand's line comes from hand_started",
  hand_settled: "the settlement window shows each player's coins",
  turn: "the seat whose turn it is glows, with its clock",
  cards: "the player's own cards show in their hand",
  card: "the player's own card shows in their hand",
  dealt: "the cards dealt show on the felt as they come",
  compared: "its public result is compare_result",
  reveal: "the settlement window checks the shuffle against the commitment",
  declared_blind: "the maker's own face-down declaration, shown in their hand",
  robbed_blind: "the maker's own face-down rob, shown in their hand",
  buried_cards: "what the holder buried, shown to them in the kitty panel",
};

/** The log's line for one event, or null for a quiet one (or one a newer server added). */
export function logLine(event: SeenEvent, names: Namers): string | null {
  const line = LOG_LINES[event.type] as ((p: SeenEvent["payload"], n: Namers) => string | null) | undefined;
  return line ? line(event.payload, names) : null;
}
