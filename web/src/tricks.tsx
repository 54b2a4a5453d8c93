// 混战 and 炒地皮 at the table: the own hand in display order, cards picked by clicking, 出牌
// lit only on the player's turn and only for a selection the server calls legal, right-click to
// play, the declarations and other moves the view lists; on the felt, each player's cards, badges
// and part of the trick (in their zone, see seats.tsx), the phase, and the own play.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Card, CardBack, CardRow, cardsOf, prettyCards } from "./cards";
import { checkAction, type Check } from "./check";
import { trumpLabel } from "./labels";
import { displayOrder, trumpsOf } from "./order";
import type { GameProps } from "./game_props";

interface Play {
  seat: number;
  cards: string;
}

const PHASES: Record<string, string> = {
  dealing: "发牌 Dealing — declare a trump when you can",
  declaring: "亮主 Declaring",
  burying: "埋底 Burying the kitty",
  robbing: "抄底 Robbing",
  multiples: "倍数 Picking multiples",
  playing: "",
  over: "本局结束 Over",
};

/** In the side panel: trump, declaration, banker and the attackers' points. */
export function TricksInfo({ live, nameOf }: GameProps) {
  const game: string = live.view.table.game;
  const state = live.view.hand.state;
  const trumpText = trumpLabel(state);
  return (
      <div class="trick-info" data-testid="trick-info">
        <span class="tag trump">主 Trump {trumpText}</span>
        {game === "chaodipi" && <span class="tag">级 Level {state.level}</span>}
        {state.declaration && (
          <span class="tag">
            亮主 {nameOf(state.declaration.seat)} {prettyCards(state.declaration.cards)}
          </span>
        )}
        {state.banker !== null && state.banker !== undefined && <span class="tag">庄 banker {nameOf(state.banker)}</span>}
        {game === "chaodipi" && state.attacker_points && (
          <span class="tag">闲家得分 attackers {state.attacker_points.total}</span>
        )}
              </div>
  );
}

/** The trick on the felt: the one being played, or for a moment after it was taken, the one
 * just finished (with who took it). */
function useTrickOnFelt(state: any): { plays: Play[]; winner: number | null } {
  const [linger, setLinger] = useState<{ trick: Play[]; winner: number | null } | null>(null);
  const lastTrickKey = useRef("");
  const previous: Play[] = state.previous_trick ?? [];
  const previousKey = JSON.stringify(previous);
  useEffect(() => {
    const before = lastTrickKey.current;
    lastTrickKey.current = previousKey;
    if (before && previousKey !== before && previous.length) {
      setLinger({ trick: previous, winner: state.last_trick_winner ?? null });
      const id = setTimeout(() => setLinger(null), 1500);
      return () => clearTimeout(id);
    }
  }, [previousKey]);
  const current: Play[] = state.trick ?? [];
  if (current.length) return { plays: current, winner: null };
  return linger ? { plays: linger.trick, winner: linger.winner } : { plays: [], winner: null };
}

/** The cards a player put into the trick on the felt (an empty slot of the same size when none). */
function TrickPlay({ state, seat, mine }: { state: any; seat: number; mine?: boolean }) {
  const { plays, winner } = useTrickOnFelt(state);
  const play = plays.find((p) => p.seat === seat);
  return (
    <div class={`trick-slot${mine ? " mine" : ""}`}>
      {play && (
        <div
          class={`trick-spot${winner === seat ? " winner" : ""}`}
          style={{ "--cards": cardsOf(play.cards).length }}
          data-testid="trick-play"
          data-hand-seat={seat}
        >
          <CardRow cards={cardsOf(play.cards)} small />
        </div>
      )}
    </div>
  );
}

/** In the middle of the felt: the phase while no trick is on, and the viewer's own play. */
export function TricksFelt({ live, mySeat }: GameProps) {
  const state = live.view.hand.state;
  const { plays } = useTrickOnFelt(state);
  return (
    <>
      {PHASES[state.phase] && !plays.length && <div class="phase-banner">{PHASES[state.phase]}</div>}
      {mySeat !== null && <TrickPlay state={state} seat={mySeat} mine />}
    </>
  );
}

/** In another player's zone, after their panel: their cards (backs), badges, and their play. */
export function TricksSeat({ live, handSeat }: GameProps & { handSeat: number }) {
  const game: string = live.view.table.game;
  const state = live.view.hand.state;
  const p = state.players[handSeat];
  if (!p) return null;
  return (
    <>
      <div class="hand-spot">
        <div class="back-fan">
          {Array.from({ length: Math.min(p.card_count, 6) }, (_, i) => (
            <CardBack key={i} small />
          ))}
          <span class="count">{p.card_count}</span>
        </div>
        <div class="spot-tags">
          {game === "hunzhan" && <span class="tag paid">分 {p.points}</span>}
          {p.side && <span class={`tag side-${p.side}`}>{p.side === "banker" ? "庄家 banker" : "闲家 attacker"}</span>}
          {p.strikes > 0 && <span class="tag out">超时 ×{p.strikes}</span>}
        </div>
      </div>
      <TrickPlay state={state} seat={handSeat} />
    </>
  );
}

/** Below the felt: the own hand, 出牌 and the other moves, 看分 and 上一轮. */
export function TricksControls({ live, mySeat, nameOf, act, tableId }: GameProps) {
  const game: string = live.view.table.game;
  const state = live.view.hand.state;
  const players: any[] = state.players;
  const mine = mySeat !== null ? players[mySeat] : null;
  const myCards = cardsOf(mine?.cards);
  const handKey = mine?.cards ?? "";
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [check, setCheck] = useState<Check | null>(null);
  const [overlay, setOverlay] = useState<"" | "points" | "last">("");
  const [busy, setBusy] = useState(false);

  const myTurn = mySeat !== null && state.to_act === mySeat;
  const burying = state.phase === "burying" && myTurn;
  const verb = burying ? "bury" : "play";
  const canPlay = myTurn && (live.legal.some((a) => a.startsWith(`${verb} `)) || burying || !!state.more_plays);
  const selection = [...selected].sort((a, b) => a - b).map((i) => myCards[i]);
  const action = selection.length ? `${verb} ${selection.join(" ")}` : "";

  useEffect(() => setSelected(new Set()), [handKey]);

  // Ask the server about the selection whenever it (or the table) changes.
  useEffect(() => {
    setCheck(null);
    if (!canPlay || !action) return;
    let current = true;
    checkAction(tableId, action, live.legal, !!state.more_plays || burying).then((r) => current && setCheck(r));
    return () => {
      current = false;
    };
  }, [action, canPlay, live.version]);

  const toggle = (index: number) => {
    const next = new Set(selected);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    setSelected(next);
  };
  const playLit = canPlay && !!action && !!check?.legal && !busy;
  const go = async (text: string) => {
    setBusy(true);
    try {
      if (await act(text)) setSelected(new Set());
    } finally {
      setBusy(false);
    }
  };
  const playSelection = () => {
    if (playLit) go(action);
  };

  const ordered = useMemo(() => displayOrder(myCards, trumpsOf(game, state)), [handKey, state.trump, state.level]);
  const declarations = live.legal.filter((a) => a.startsWith("declare "));
  const others = live.legal.filter((a) => !a.startsWith("play ") && !a.startsWith("declare ") && !a.startsWith("bury "));
  const previous: Play[] = state.previous_trick ?? [];
  const hint = !myTurn
    ? ""
    : !action
      ? burying
        ? "选8张牌埋底 Pick 8 cards to bury"
        : canPlay
          ? "选牌出牌 Pick cards, then 出牌 Play (or right-click)"
          : ""
      : "";

  return (
    <div class="controls tricks-controls">
      {state.kitty_taken && burying && (
        <div class="kitty-note">底牌 Kitty taken: {prettyCards(state.kitty_taken)}</div>
      )}
      <div
        class="my-hand"
        data-testid="my-hand"
        onContextMenu={(e) => {
          e.preventDefault();
          playSelection();
        }}
      >
        {ordered.map(({ code, index }) => (
          <Card key={`${code}-${index}`} code={code} index={index} selected={selected.has(index)} onClick={() => toggle(index)} />
        ))}
      </div>
      <div class="actions" data-testid="actions" data-legal={live.legal.join("|")} data-version={String(live.version)} data-more={String(!!state.more_plays)}>
        <button name="play" class="primary" disabled={!playLit} onClick={playSelection} title="or right-click your hand">
          {burying ? "埋底 Bury" : "出牌 Play"}
        </button>
        {declarations.map((a) => (
          <button key={a} name="declare" class="declare" disabled={busy} onClick={() => go(a)}>
            亮 {prettyCards(a.slice(8))}
          </button>
        ))}
        {others.map((a) => (
          <button key={a} name={a.split(" ")[0]} disabled={busy} onClick={() => go(a)}>
            {labelOf(a)}
          </button>
        ))}
        <button name="points" class={overlay === "points" ? "active" : ""} onClick={() => setOverlay(overlay === "points" ? "" : "points")}>
          看分 Points
        </button>
        <button name="last" class={overlay === "last" ? "active" : ""} onClick={() => setOverlay(overlay === "last" ? "" : "last")}>
          上一轮 Last trick
        </button>
      </div>
      {canPlay && action && check && !check.legal ? (
        <div class="reason" data-testid="reason">
          {check.reason}
        </div>
      ) : (
        hint && <div class="hint-line">{hint}</div>
      )}
      {overlay === "points" && (
        <div class="overlay-panel" data-testid="points-panel" onClick={() => setOverlay("")}>
          <h3>看分 Points taken</h3>
          {game === "chaodipi" && state.attacker_points && (
            <p>
              闲家 Attackers: <b>{state.attacker_points.total}</b>
            </p>
          )}
          <table>
            <tbody>
              {players.map((p) => (
                <tr key={p.seat}>
                  <td>{nameOf(p.seat)}</td>
                  <td>{game === "hunzhan" ? p.points : ""}</td>
                  <td>
                    <CardRow cards={cardsOf(p.point_cards)} small />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {overlay === "last" && (
        <div class="overlay-panel" data-testid="last-panel" onClick={() => setOverlay("")}>
          <h3>上一轮 Last trick</h3>
          {previous.length === 0 && <p>No trick finished yet.</p>}
          {previous.map((play) => (
            <div key={play.seat} class="last-row">
              <span>
                {nameOf(play.seat)}
                {state.last_trick_winner === play.seat ? " 🏆" : ""}
              </span>
              <CardRow cards={cardsOf(play.cards)} small />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

function labelOf(action: string): string {
  const [verb, ...rest] = action.split(" ");
  const cards = prettyCards(rest.join(" "));
  switch (verb) {
    case "pass":
      return "不抄 Pass";
    case "rob":
      return `抄底 Rob ${cards}`;
    case "multiple":
      // Open from the deal until the banker's first lead: it multiplies what this player wins or loses.
      return `胜负倍数 stake ×${rest[0]}`;
    default:
      return prettyCards(action);
  }
}
