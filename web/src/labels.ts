// Names shown to people: Chinese first, English beside it.
export const GAMES: { name: string; title: string; english: string; blurb: string }[] = [
  { name: "zhajinhua", title: "炸金花", english: "Zha Jin Hua", blurb: "Three cards, bluff and raise · 2–5 players" },
  { name: "hunzhan", title: "混战", english: "Hunzhan", blurb: "Tricks and points, every player alone · 4 players" },
  { name: "chaodipi", title: "炒地皮", english: "Chao Di Pi", blurb: "Partners, kitty and robs · 4 players" },
];

export function gameTitle(name: string): string {
  return GAMES.find((g) => g.name === name)?.title ?? name;
}

export const SUIT_NAMES: Record<string, string> = {
  S: "♠ 黑桃",
  H: "♥ 红桃",
  C: "♣ 梅花",
  D: "♦ 方块",
  NT: "无主 No trump",
};

export const ZJH_STATUS: Record<string, string> = {
  playing: "",
  folded: "弃牌 folded",
  lost: "比输 lost",
  out: "出局 out",
};

export const STAND_REASONS: Record<string, string> = {
  left: "left the table",
  not_ready: "did not press start in time (ready kick)",
  escaped: "left during a hand (escape)",
  not_enough_coins: "too few coins left for this room",
};

export const HOW: Record<string, string> = {
  last_player: "everyone else folded",
  open: "showdown (开牌)",
  showdown: "showdown",
  pot_cap: "the pot reached its cap",
  played: "all tricks played",
  escape: "a player escaped",
};

/** The trump as the side panel names it. 混战 says `no_trump` once a no-trump hand is played;
 * 炒地皮 says `trump_known` with a `trump` of null for no-trump. */
export function trumpLabel(state: { trump?: string | null; no_trump?: boolean; trump_known?: boolean }): string {
  if (state.trump) return SUIT_NAMES[state.trump] ?? state.trump;
  return state.no_trump || state.trump_known ? SUIT_NAMES.NT : "未定 not yet";
}
