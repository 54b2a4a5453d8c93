// Display order only: how a hand is laid out, strongest trumps on the left, then each plain suit
// from the ace down. The server decides every rule; this only sorts what it sent.
import type { TricksView } from "./game_props";

const RANKS = "23456789TJQKA";
const SUIT_ORDER = "SHCD";

interface Trumps {
  /** The trump suit ("S", "H", "C", "D"), or null for no trump or not known yet. */
  suit: string | null;
  /** Ranks that are trumps in every suit, strongest first (混战: 10 then 2; 炒地皮: the level). */
  ranks: string[];
  /** Single cards above the jokers (炒地皮: 5♥). */
  top: string[];
}

export function trumpsOf(view: TricksView): Trumps {
  const trump = view.value.trump;
  const suit = trump && SUIT_ORDER.includes(trump) ? trump : null;
  if (view.case === "hunzhan") return { suit, ranks: ["T", "2"], top: [] };
  const level = view.value.flagHand ? null : (view.value.level ?? null);
  return { suit, ranks: level ? [level] : [], top: ["5H"] };
}

function weight(code: string, t: Trumps): number {
  const topIndex = t.top.indexOf(code);
  if (topIndex >= 0) return 1000 - topIndex;
  if (code === "BJ") return 900;
  if (code === "SJ") return 890;
  const rank = code[0];
  const suit = code[1];
  const suitRank = 3 - SUIT_ORDER.indexOf(suit);
  const levelIndex = t.ranks.indexOf(rank);
  if (levelIndex >= 0) {
    const base = 800 - levelIndex * 20;
    return base + (suit === t.suit ? 10 : suitRank);
  }
  const natural = RANKS.indexOf(rank);
  if (suit === t.suit) return 600 + natural;
  // Plain suits keep the usual order, skipping the trump suit.
  const plainOrder = SUIT_ORDER.replace(t.suit ?? "", "");
  return 500 - plainOrder.indexOf(suit) * 100 + natural;
}

/** The cards in display order, each with its index in the server's list. */
export function displayOrder(cards: string[], trumps: Trumps): { code: string; index: number }[] {
  return cards
    .map((code, index) => ({ code, index, w: weight(code, trumps) }))
    .sort((a, b) => b.w - a.w || a.index - b.index)
    .map(({ code, index }) => ({ code, index }));
}
