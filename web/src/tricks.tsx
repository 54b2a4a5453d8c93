// 混战 and 炒地皮 at the table: the own hand in display order, cards picked by clicking, 出牌
// lit only on the player's turn and only for a selection the server calls legal, right-click to
// play, the declarations and other moves the view lists; on the felt, each player's cards, badges
// and part of the trick (in their zone, see seats.tsx), the phase, and the own play.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Card, CardBack, CardRow, cardsOf, prettyCards } from "./cards";
import { checkAction, type Check } from "./check";
import { trumpLabel } from "./labels";
import { displayOrder, trumpsOf } from "./order";
import { type GameProps, tricksOf, type TricksView } from "./game_props";
import type { SeatCards } from "./gen/paiju/v1/hand_parts_pb";

type TrickState = TricksView["value"];

/** Who took the trick just finished: 混战 says so; 炒地皮 only shows the trick. */
const lastTrickWinnerOf = (state: TrickState): number | null =>
  state.$typeName === "paiju.v1.HunzhanView" ? (state.lastTrickWinner ?? null) : null;

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
  const view = tricksOf(live);
  if (!view) return null;
  const trumpText = trumpLabel(view.value);
  return (
      <div class="trick-info" data-testid="trick-info">
        <span class="tag trump">主 Trump {trumpText}</span>
        {view.case === "chaodipi" && <span class="tag">级 Level {view.value.level ?? ""}</span>}
        {view.case === "hunzhan" && view.value.declaration && (
          <span class="tag">
            亮主 {nameOf(view.value.declaration.seat)} {prettyCards(view.value.declaration.cards)}
          </span>
        )}
        {view.case === "chaodipi" && view.value.banker !== undefined && <span class="tag">庄 banker {nameOf(view.value.banker)}</span>}
        {view.case === "chaodipi" && view.value.attackerPoints && (
          <span class="tag">闲家得分 attackers {view.value.attackerPoints.total}</span>
        )}
              </div>
  );
}

/** The trick on the felt: the one being played, or for a moment after it was taken, the one
 * just finished (with who took it). */
function useTrickOnFelt(state: TrickState): { plays: SeatCards[]; winner: number | null } {
  const [linger, setLinger] = useState<{ trick: SeatCards[]; winner: number | null } | null>(null);
  const lastTrickKey = useRef("");
  const previous = state.previousTrick;
  const previousKey = previous.map((play) => `${play.seat}:${play.cards}`).join("|");
  useEffect(() => {
    const before = lastTrickKey.current;
    lastTrickKey.current = previousKey;
    if (before && previousKey !== before && previous.length) {
      setLinger({ trick: previous, winner: lastTrickWinnerOf(state) });
      const id = setTimeout(() => setLinger(null), 1500);
      return () => clearTimeout(id);
    }
  }, [previousKey]);
  const current = state.trick;
  if (current.length) return { plays: current, winner: null };
  return linger ? { plays: linger.trick, winner: linger.winner } : { plays: [], winner: null };
}

/** The cards a player put into the trick on the felt (an empty slot of the same size when none). */
function TrickPlay({ state, seat, mine }: { state: TrickState; seat: number; mine?: boolean }) {
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
export function TricksFelt(props: GameProps) {
  const view = tricksOf(props.live);
  return view ? <TricksFeltOf {...props} state={view.value} /> : null;
}

function TricksFeltOf({ mySeat, state }: GameProps & { state: TrickState }) {
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
  const view = tricksOf(live);
  const p = view?.value.players[handSeat];
  if (!view || !p) return null;
  const side = view.case === "chaodipi" ? view.value.players[handSeat].side : undefined;
  return (
    <>
      <div class="hand-spot">
        <div class="back-fan">
          {Array.from({ length: Math.min(p.cardCount, 6) }, (_, i) => (
            <CardBack key={i} small />
          ))}
          <span class="count">{p.cardCount}</span>
        </div>
        <div class="spot-tags">
          {view.case === "hunzhan" && <span class="tag paid">分 {view.value.players[handSeat].points}</span>}
          {side && <span class={`tag side-${side}`}>{side === "banker" ? "庄家 banker" : "闲家 attacker"}</span>}
          {p.strikes > 0 && <span class="tag out">超时 ×{p.strikes}</span>}
        </div>
      </div>
      <TrickPlay state={view.value} seat={handSeat} />
    </>
  );
}

/** Below the felt: the own hand, 出牌 and the other moves, 看分 and 上一轮. */
export function TricksControls(props: GameProps) {
  const view = tricksOf(props.live);
  return view ? <TricksControlsOf {...props} view={view} /> : null;
}

function TricksControlsOf({ live, mySeat, nameOf, act, tableId, view }: GameProps & { view: TricksView }) {
  const state = view.value;
  const players = state.players;
  const mine = mySeat !== null ? players[mySeat] : null;
  const morePlays = view.case === "chaodipi" && view.value.morePlays;
  const level = view.case === "chaodipi" ? view.value.level : undefined;
  const attackerPoints = view.case === "chaodipi" ? view.value.attackerPoints : undefined;
  const kittyTaken = view.case === "chaodipi" ? view.value.kittyTaken : undefined;
  const myCards = cardsOf(mine?.cards);
  const handKey = mine?.cards ?? "";
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [check, setCheck] = useState<Check | null>(null);
  const [overlay, setOverlay] = useState<"" | "points" | "last">("");
  const [busy, setBusy] = useState(false);

  const myTurn = mySeat !== null && state.toAct === mySeat;
  const burying = state.phase === "burying" && myTurn;
  const verb = burying ? "bury" : "play";
  const canPlay = myTurn && (live.legal.some((a) => a.startsWith(`${verb} `)) || burying || morePlays);
  const selection = [...selected].sort((a, b) => a - b).map((i) => myCards[i]);
  const action = selection.length ? `${verb} ${selection.join(" ")}` : "";

  useEffect(() => setSelected(new Set()), [handKey]);

  // Ask the server about the selection whenever it (or the table) changes.
  useEffect(() => {
    setCheck(null);
    if (!canPlay || !action) return;
    let current = true;
    checkAction(tableId, action, live.legal, morePlays || burying).then((r) => current && setCheck(r));
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

  const ordered = useMemo(() => displayOrder(myCards, trumpsOf(view)), [handKey, state.trump, level]);
  const declarations = live.legal.filter((a) => a.startsWith("declare "));
  const others = live.legal.filter((a) => !a.startsWith("play ") && !a.startsWith("declare ") && !a.startsWith("bury "));
  const previous = state.previousTrick;
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
      {kittyTaken && burying && (
        <div class="kitty-note">底牌 Kitty taken: {prettyCards(kittyTaken)}</div>
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
      <div class="actions" data-testid="actions" data-legal={live.legal.join("|")} data-version={String(live.version)} data-more={String(morePlays)}>
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
          {attackerPoints && (
            <p>
              闲家 Attackers: <b>{attackerPoints.total}</b>
            </p>
          )}
          <table>
            <tbody>
              {players.map((p) => (
                <tr key={p.seat}>
                  <td>{nameOf(p.seat)}</td>
                  <td>{p.$typeName === "paiju.v1.HunzhanPlayer" ? p.points : ""}</td>
                  <td>
                    <CardRow cards={cardsOf(p.pointCards)} small />
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
                {lastTrickWinnerOf(state) === play.seat ? " 🏆" : ""}
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
