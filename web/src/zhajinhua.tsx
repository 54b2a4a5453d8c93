// 炸金花 at the table: everyone's three cards (backs until shown), the pot and its cap, and the
// moves the view lists as legal: look, call, raise to a listed stake, fold, compare, open.
import { useState } from "preact/hooks";
import { Card, CardBack, cardsOf } from "./cards";
import { ZJH_STATUS } from "./labels";
import { spot } from "./place";
import type { GameProps } from "./table";
import { coins } from "./util";

export function ZhajinhuaTable({ live, mySeat, nameOf, placeOf, act }: GameProps) {
  const state = live.view.hand.state;
  const seatCount = live.view.table.seats.length;
  const legal = new Set(live.legal);
  const raises = live.legal.filter((a) => a.startsWith("raise ")).map((a) => Number(a.slice(6)));
  const targets = live.legal.filter((a) => a.startsWith("compare ")).map((a) => Number(a.slice(8)));
  const [picking, setPicking] = useState(false);
  const [busy, setBusy] = useState(false);
  const players: any[] = state.players;
  const mine = mySeat !== null ? players[mySeat] : null;

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
    <>
      <div class="pot" data-testid="pot">
        <div class="pot-chips">🪙</div>
        <div class="pot-amount">
          底池 Pot <b>{coins(state.pot)}</b>
        </div>
        <div class="pot-detail">
          封顶 cap {coins(state.pot_cap)} · 单注 stake {coins(state.stake)} / {coins(state.max_stake)} · 底注 ante{" "}
          {coins(state.ante)}
        </div>
      </div>
      {players.map((p) => {
        const place = placeOf(p.seat);
        const cards = cardsOf(p.cards);
        const own = p.seat === mySeat;
        const status = ZJH_STATUS[p.status] ?? p.status;
        return (
          <div
            key={p.seat}
            style={spot(seatCount, place, "cards")}
            class={`hand-spot${own ? " own" : ""} status-${p.status}`}
            data-hand-seat={p.seat}
          >
            <div class="zjh-cards" data-testid={own ? "my-cards" : undefined}>
              {cards.length
                ? cards.map((c, i) => <Card key={i} code={c} small={!own} />)
                : [0, 1, 2].map((i) => <CardBack key={i} small={!own} />)}
            </div>
            <div class="spot-tags">
              {p.seat === state.dealer && <span class="tag dealer">庄 dealer</span>}
              {p.seen && <span class="tag seen">看过 seen</span>}
              {status && <span class="tag out">{status}</span>}
              <span class="tag paid">🪙 {coins(p.paid)}</span>
            </div>
            {picking && targets.includes(p.seat) && (
              <button class="pick" data-testid={`compare-${p.seat}`} onClick={() => go(`compare ${p.seat}`)}>
                比牌 Compare with {nameOf(p.seat)}
              </button>
            )}
          </div>
        );
      })}
      <div class="actions zjh-actions" data-testid="actions">
        <button name="look" disabled={!lit("look")} onClick={() => go("look")}>
          看牌 Look
        </button>
        <button name="call" class="primary" disabled={!lit("call")} onClick={() => go("call")}>
          跟注 Call{legal.has("call") && state.call_amount ? ` ${coins(state.call_amount)}` : ""}
        </button>
        <span class="raise-group">
          <span class="group-label">加注 Raise</span>
          {raises.length === 0 && (
            <button name="raise" disabled>
              —
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
              title={`raise the stake to ${stake}`}
            >
              {coins(stake)}
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
          弃牌 Fold
        </button>
      </div>
      {picking && <div class="pick-hint">选择比牌对象 Pick a player to compare with</div>}
      {mine && !mine.seen && legal.has("look") && <div class="look-hint">Your cards are face down: 看牌 Look to see them.</div>}
    </>
  );
}
