// 炸金花 at the table: everyone's three cards (backs until shown), the pot and its cap, and the
// moves the view lists as legal: look, call, raise to a listed stake, fold, compare, open.
import { useState } from "preact/hooks";
import { Card, CardBack, cardsOf } from "./cards";
import { chipLabel, ZJH_STATUS } from "./labels";
import { type GameProps, zhajinhuaOf } from "./game_props";
import type { ZhajinhuaPlayer } from "./gen/paiju/v1/zhajinhua_pb";
import { coins } from "./util";

function Tags({ p, dealer }: { p: ZhajinhuaPlayer; dealer: number }) {
  const status = ZJH_STATUS[p.status] ?? p.status;
  return (
    <div class="spot-tags">
      {p.seat === dealer && <span class="tag dealer">庄 dealer</span>}
      {p.seen && <span class="tag seen">看过 seen</span>}
      {status && <span class="tag out">{status}</span>}
      <span class="tag paid">下注 {coins(p.paid)}</span>
    </div>
  );
}

function ThreeCards({ text, small }: { text: string | undefined; small: boolean }) {
  const cards = cardsOf(text);
  return (
    <div class="zjh-cards">
      {cards.length
        ? cards.map((c, i) => <Card key={i} code={c} small={small} />)
        : [0, 1, 2].map((i) => <CardBack key={i} small={small} />)}
    </div>
  );
}

/** In the middle of the felt: the pot. */
export function ZhajinhuaFelt({ live }: GameProps) {
  const state = zhajinhuaOf(live);
  if (!state) return null;
  return (
    <div class="pot" data-testid="pot">
      <div class="pot-amount">
        底池 Pot <b>{coins(state.pot)}</b>
      </div>
      <div class="pot-detail">
        <span>封顶 cap {coins(state.potCap)}</span> · <span>单注 stake {coins(state.stake)}/{coins(state.maxStake)}</span> ·{" "}
        <span>底注 ante {coins(state.ante)}</span>
      </div>

    </div>
  );
}

/** In the side panel, beside the room's name: why the ante is what it is (每注计算), which the
 * felt has no room for. */
export function ZhajinhuaInfo({ live }: GameProps) {
  const state = zhajinhuaOf(live);
  if (!state?.anteRule) return null;
  return (
    <div class="ante-rule" data-testid="ante-rule" title="每注计算: the ante follows the fewest coins anyone in the hand held">
      底注 {coins(state.ante)} · 每注计算 Everyone here holds ≥ {coins(state.anteRule.fromCoins)} (the fewest:{" "}
      {coins(state.anteRule.fewestCoins)}), so the ante is {coins(state.ante)}
    </div>
  );
}

/** In another player's zone, after their panel: their three cards and badges. */
export function ZhajinhuaSeat({ live, handSeat }: GameProps & { handSeat: number }) {
  const state = zhajinhuaOf(live);
  const p = state?.players[handSeat];
  if (!state || !p) return null;
  return (
    <div class={`hand-spot status-${p.status}`}>
      <ThreeCards text={p.cards} small={true} />
      <Tags p={p} dealer={state.dealer} />
    </div>
  );
}

/** Below the felt: the player's own cards and moves. */
export function ZhajinhuaControls({ live, mySeat, nameOf, act }: GameProps) {
  const state = zhajinhuaOf(live);
  const legal = new Set(live.legal);
  const raises = live.legal.filter((a) => a.startsWith("raise ")).map((a) => Number(a.slice(6)));
  const targets = live.legal.filter((a) => a.startsWith("compare ")).map((a) => Number(a.slice(8)));
  const [picking, setPicking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!state) return null;
  const mine = mySeat !== null ? state.players[mySeat] : null;

  const go = async (action: string) => {
    setBusy(true);
    setPicking(false);
    try {
      await act(action);
    } finally {
      setBusy(false);
    }
  };
  const lit = (action: string) => legal.has(action) && !busy;

  return (
    <div class="controls zjh-controls">
      {mine && (
        <div class={`own-cards status-${mine.status}`} data-testid="my-cards">
          <ThreeCards text={mine.cards} small={false} />
          <Tags p={mine} dealer={state.dealer} />
        </div>
      )}
      <div class="actions" data-testid="actions" data-legal={live.legal.join("|")} data-version={String(live.version)}>
        <button name="look" disabled={!lit("look")} onClick={() => go("look")}>
          看牌 Look
        </button>
        <button name="call" class="primary" disabled={!lit("call")} onClick={() => go("call")}>
          跟注 Call{legal.has("call") && state.callAmount ? ` ${coins(state.callAmount)}` : ""}
        </button>
        <span class="raise-group">
          <span class="group-label">加注 Raise</span>
          {raises.length === 0 && (
            <button name="raise" class="chip" disabled>
              –
            </button>
          )}
          {raises.map((stake) => (
            <button
              key={stake}
              name="raise"
              class="chip"
              data-stake={stake}
              disabled={busy}
              onClick={() => go(`raise ${stake}`)}
              title={`加注到 ${coins(stake)} raise the stake to ${coins(stake)}`}
            >
              {chipLabel(stake)}
            </button>
          ))}
        </span>
        <button
          name="compare"
          class={picking ? "active" : ""}
          disabled={targets.length === 0 || busy}
          onClick={() => setPicking(!picking)}
        >
          比牌 Compare
        </button>
        <button name="open" disabled={!lit("open")} onClick={() => go("open")}>
          开牌 Open
        </button>
        <button name="fold" class="danger" disabled={!lit("fold")} onClick={() => go("fold")}>
          放弃 Fold
        </button>
      </div>
      {picking && (
        <div class="pick-row">
          选择比牌对象 Compare with:
          {targets.map((t) => (
            <button key={t} class="pick" data-testid={`compare-${t}`} onClick={() => go(`compare ${t}`)}>
              {nameOf(t)}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
