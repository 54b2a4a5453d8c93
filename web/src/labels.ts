// Names shown to people: Chinese first, English beside it.
export const GAMES: { name: string; title: string; english: string; blurb: string; minPlayers: number }[] = [
  { name: "zhajinhua", title: "炸金花", english: "Zha Jin Hua", blurb: "Three cards, bluff and raise · 2–5 players", minPlayers: 2 },
  { name: "hunzhan", title: "混战", english: "Hunzhan", blurb: "Tricks and points, every player alone · 4 players", minPlayers: 4 },
  { name: "chaodipi", title: "炒地皮", english: "Chao Di Pi", blurb: "Partners, kitty and robs · 4 players", minPlayers: 4 },
];

/** The tier offered first: where most players sit now (a hand starts there soonest), else the first. */
export function liveliestTier(tiers: { tier: string; playersSeated: number }[]): string {
  let best = tiers[0];
  for (const t of tiers) if (t.playersSeated > (best?.playersSeated ?? 0)) best = t;
  return best?.tier ?? "";
}

/** What a player who pressed start is waiting for, in words (``me``: their own name, ready). */
export function waitingFor(game: string, seats: ({ ready: boolean; name: string } | null)[], me = ""): string {
  const needed = GAMES.find((g) => g.name === game)?.minPlayers ?? 2;
  const seated = seats.filter((s) => s !== null) as { ready: boolean; name: string }[];
  if (seated.length < needed) {
    const more = needed - seated.length;
    return `等待 ${more} 位玩家入座 Waiting for ${more} more player${more > 1 ? "s" : ""} to sit down (a hand needs ${needed})…`;
  }
  const slow = seated.filter((s) => !s.ready && s.name !== me).map((s) => s.name);
  return slow.length
    ? `等待举手 Waiting for ${slow.join(", ")} to press start…`
    : `即将开始 Starting…`;
}

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
  folded: "放弃 folded",
  lost: "比输 lost",
  out: "出局 out",
};

export const STAND_REASONS: Record<string, string> = {
  left: "left the table",
  not_ready: "did not press start in time (ready kick)",
  escaped: "left during a hand (escape)",
  not_enough_coins: "too few coins left for this room",
  table_ended: "an operator closed the table; any hand in play was called off and its stakes returned",
};

export const HOW: Record<string, string> = {
  // Read by every player of the hand, the ones who timed out or lost a comparison included.
  last_player: "只剩一人 the others folded, timed out or lost a comparison",
  open: "开牌 showdown",
  showdown: "比牌 showdown",
  pot_cap: "底池封顶 the pot reached its cap",
  played: "牌已打完 all tricks played",
  escape: "有人逃跑 a player escaped",
};

/** The trump as the side panel names it. 混战 says `noTrump` once a no-trump hand is played;
 * 炒地皮 says `trumpKnown` with no `trump` for no-trump. */
export function trumpLabel(state: { trump?: string; noTrump?: boolean; trumpKnown?: boolean }): string {
  if (state.trump) return SUIT_NAMES[state.trump] ?? state.trump;
  return state.noTrump || state.trumpKnown ? SUIT_NAMES.NT : "未定 not yet";
}

/** A stake as a chip can hold it: 200, 1k, 2.5k, 10k (a chip is too small for "1,000"). */
export function chipLabel(stake: number): string {
  if (stake < 1000) return String(stake);
  const thousands = stake / 1000;
  return `${Number.isInteger(thousands * 10) ? thousands : Math.round(thousands)}k`;
}

/** A move's verb in both languages, for a replay's step ("raise 300" → "加注 raise 300"). */
export const MOVE_VERBS: Record<string, string> = {
  look: "看牌 look",
  call: "跟注 call",
  raise: "加注 raise",
  fold: "放弃 fold",
  compare: "比牌 compare",
  open: "开牌 open",
  pass: "不出 pass",
  play: "出牌 play",
  bury: "扣底 bury",
  declare: "叫主 declare",
  rob: "抢主 rob",
  multiple: "倍数 multiple",
};

/** A move as a replay names it: its verb in both languages, then the rest as written. */
export function moveLabel(move: string): string {
  const [verb, ...rest] = move.split(" ");
  return [MOVE_VERBS[verb] ?? verb, ...rest].join(" ");
}
