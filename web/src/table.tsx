// The table: a live view of one seat, kept current by the Watch stream (with a fresh view asked
// for whenever events arrive), the player panels around the felt, and the game's own controls.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { Code, codeOf, lobby, paijuCodeOf, reasonOf, table } from "./api";
import type { Event, TableView } from "./gen/paiju/v1/table_pb";
import type { SeatedPlayer } from "./gen/paiju/v1/views_pb";
import { seenEvents } from "./events";
import { checkAction } from "./check";
import { followTable, isSeatLost, VIEW_FORMAT } from "./follow";
import { gameTitle, STAND_REASONS, waitingFor } from "./labels";
import type { SeatMemory, Session } from "./session";
import { RulesDialog } from "./rules";
import { Settlement } from "./settlement";
import { SeatZone } from "./seats";
import { TricksControls, TricksFelt, TricksInfo, TricksSeat } from "./tricks";
import { coins, secondsLeft, useTick } from "./util";
import { ZhajinhuaControls, ZhajinhuaFelt, ZhajinhuaInfo, ZhajinhuaSeat } from "./zhajinhua";
import { CoinIcon } from "./coin";
import { NewestView } from "./newest";
import { EventIds } from "./event_ids";
import type { EventLine, GameProps, Live } from "./game_props";
import { logLine, type Namers } from "./log_lines";
import { staleMoveMessage, turnRanOut, YOUR_TIME_RAN_OUT } from "./late_click";

/** Refusals that can mean the player's turn was over before the click arrived. */
const TURN_GONE_CODES = new Set(["not_your_turn", "hand_over", "no_hand", "not_in_hand"]);

function turnOf(message: TableView): Live["turn"] {
  const turn = message.turn;
  return turn
    ? {
        seat: turn.seat,
        dueMs: turn.dueAt ? Number(turn.dueAt.seconds) * 1000 + Math.floor(turn.dueAt.nanos / 1e6) : 0,
        suspended: turn.suspended,
      }
    : null;
}

/** The view to show, or null when it came without its typed state (a newer server's field). */
function liveOf(message: TableView): Live | null {
  if (!message.state) return null;
  return { version: message.version, seat: message.seat ?? null, legal: message.legalActions, turn: turnOf(message), view: message.state };
}

interface Props {
  seat: SeatMemory;
  me: Session;
  onLeave: (message?: string) => void;
  /** The balance may have changed; ``handEnded``: a hand just ended, its settlement on its way. */
  onMoneyChanged: (handEnded?: boolean) => void;
}

export function TableScreen({ seat, me, onLeave, onMoneyChanged }: Props) {
  const [live, setLive] = useState<Live | null>(null);
  const [connected, setConnected] = useState(false);
  const [message, setMessage] = useState("");
  const [events, setEvents] = useState<EventLine[]>([]);
  const [away, setAway] = useState<Record<number, number>>({});
  const [pressedStart, setPressedStart] = useState(false);
  const [dismissed, setDismissed] = useState<string>("");
  const [rulesOpen, setRulesOpen] = useState(false);
  const refreshing = useRef<Promise<void> | null>(null);
  // Names by table seat as last seen, so a player who stood up is still named in the log, and
  // the hand's seats as of the latest hand_seats, so a line names the players of its own hand.
  const seatNames = useRef<Record<number, string>>({});
  const handSeatsNow = useRef<number[] | null>(null);
  const tableName = (ts: number) => seatNames.current[ts] ?? `seat ${ts + 1}`;
  const names: Namers = {
    hand: (hs) => tableName(handSeatsNow.current ? (handSeatsNow.current[hs] ?? hs) : hs),
    table: tableName,
  };
  const again = useRef(false);
  const now = useTick(250);

  // A hand the player is dealt into is remembered as the view arrives, not when it is drawn: views
  // that come in one burst are drawn once, and a hand everyone else folded at once would otherwise
  // end unseen, without its settlement.
  const newest = useRef(new NewestView());
  const show = (view: TableView) => {
    const fresh = liveOf(view);
    if (!fresh || !newest.current.take(view.version)) return;
    const hand = fresh.view.hand;
    (fresh.view.table?.seats ?? []).forEach(({ player }, ts) => {
      if (player) seatNames.current[ts] = player.name;
    });
    if (hand) handSeatsNow.current = hand.seats;
    if (hand && hand.myHandSeat !== undefined) rememberPlayed(hand.handId);
    setLive(fresh);
  };

  // Coalesced GetView: one in flight, one more queued if events kept coming.
  const refresh = useCallback(() => {
    if (refreshing.current) {
      again.current = true;
      return;
    }
    refreshing.current = (async () => {
      do {
        again.current = false;
        try {
          const { view } = await table.getView({ tableId: seat.tableId, viewFormat: VIEW_FORMAT });
          if (view) show(view);
        } catch (e) {
          if (isSeatLost(e)) onLeave(`你的座位已失去 Your seat is gone: ${reasonOf(e)}`);
        }
      } while (again.current);
      refreshing.current = null;
    })();
  }, [seat.tableId]);

  const eventIds = useRef(new EventIds());
  // Every event's line as it came, counted, so a refused move can look at what came since its click.
  const eventsSeen = useRef<{ count: number; recent: EventLine[] }>({ count: 0, recent: [] });
  const eventsSinceCount = (count: number) => {
    const fresh = eventsSeen.current.count - count;
    return fresh > 0 ? eventsSeen.current.recent.slice(-fresh) : [];
  };
  // From the stream, and the person's own moves from Act's reply: each event once, by its id.
  const onEvents = (batch: Event[]) => {
    const lines: EventLine[] = [];
    for (const e of seenEvents(eventIds.current.fresh(batch))) {
      if (e.type === "hand_seats") handSeatsNow.current = e.payload.seats;
      if (e.type === "sat" && e.payload.name) seatNames.current[e.payload.seat] = e.payload.name;
      lines.push({ ...e, at: Date.now(), line: logLine(e, names) });
    }
    for (const line of lines) {
      if (line.type === "disconnected") {
        const { seat: awaySeat, reconnectByMs } = line.payload;
        setAway((a) => ({ ...a, [awaySeat]: Number(reconnectByMs) }));
      } else if (line.type === "reconnected") {
        const backSeat = line.payload.seat;
        setAway((a) => {
          const { [backSeat]: _, ...rest } = a;
          return rest;
        });
      } else if (line.type === "stood" && line.payload.account === me.accountId) {
        const why = STAND_REASONS[line.payload.reason] ?? line.payload.reason;
        onLeave(`你已离座 You were stood up: ${why}.`);
      } else if (line.type === "hand_settled" || line.type === "hand_over") {
        onMoneyChanged(true);
      } else if (line.type === "hand_seats") {
        setPressedStart(false);
      }
    }
    eventsSeen.current = { count: eventsSeen.current.count + lines.length, recent: [...eventsSeen.current.recent, ...lines].slice(-60) };
    setEvents((old) => [...old, ...lines].slice(-60));
  };

  // The tier's title in both languages (the view names the tier by its id).
  const [tierTitle, setTierTitle] = useState("");
  const game = live?.view.table?.game;
  useEffect(() => {
    if (!game) return;
    lobby
      .listTiers({ game })
      .then((r) => setTierTitle(r.tiers.find((t) => t.tier === live?.view.table?.tier)?.title ?? ""))
      .catch(() => setTierTitle(""));
  }, [game]);

  // The Watch stream, kept open (and reopened after a drop) while the table is shown.
  useEffect(() => {
    const stop = new AbortController();
    followTable(
      seat.tableId,
      {
        update(update) {
          if (update.snapshot) show(update.snapshot);
          if (update.events.length) {
            onEvents(update.events);
            if (!update.snapshot) refresh();
          }
        },
        view: show,
        connected: setConnected,
        seatLost: (error) => onLeave(`你的座位已失去 Your seat is gone: ${reasonOf(error)}`),
      },
      stop.signal,
      eventIds.current,
    );
    return () => stop.abort();
  }, [seat.tableId]);

  // An action refused because the table moved on (a card dealt, someone else's move) is tried
  // again on the fresh view while that view still lists it: the person's choice still stands.
  const act = async (action: string): Promise<boolean> => {
    if (!live) return false;
    let version = live.version;
    const eventsAtClick = eventsSeen.current.count;
    const lateClick = (turnNow: Live["turn"]) => ({
      myTableSeat: live.seat,
      myHandSeat: live.view.hand?.myHandSeat ?? null,
      turnClicked: live.turn,
      turnNow,
      eventsSince: eventsSinceCount(eventsAtClick),
      nowMs: Date.now(),
    });
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await table.act({ tableId: seat.tableId, expectedVersion: version, action, viewFormat: VIEW_FORMAT });
        if (r.events.length) onEvents(r.events); // the stream leaves out the person's own moves
        if (r.view) show(r.view);
        setMessage("");
        return true;
      } catch (e) {
        if (codeOf(e) !== Code.Aborted) {
          const turnGone = TURN_GONE_CODES.has(paijuCodeOf(e) ?? "") && turnRanOut(lateClick(null));
          setMessage(turnGone ? YOUR_TIME_RAN_OUT : reasonOf(e));
          return false;
        }
        const fresh = await table.getView({ tableId: seat.tableId, viewFormat: VIEW_FORMAT }).then((answer) => answer.view ?? null, () => null);
        if (fresh) show(fresh);
        const still = fresh && (await checkAction(seat.tableId, action, fresh.legalActions, false)).legal;
        if (!fresh || attempt >= 2 || !still) {
          setMessage(staleMoveMessage(lateClick(fresh ? turnOf(fresh) : null)));
          return false;
        }
        version = fresh.version;
      }
    }
  };

  const ready = async () => {
    setPressedStart(true);
    try {
      await lobby.ready({ roomId: seat.roomId });
      setDismissed(live?.view.lastHand?.handId ?? "");
      refresh();
    } catch (e) {
      setPressedStart(false);
      setMessage(`开始 Start refused: ${reasonOf(e)}`);
    }
  };

  const leave = async () => {
    const handOn = !!live?.view.hand;
    if (handOn && !confirm("A hand is on: leaving now is an escape and costs a penalty. Leave anyway?")) return;
    try {
      await lobby.stand({ roomId: seat.roomId, acceptEscape: handOn });
      onLeave();
    } catch (e) {
      if (isSeatLost(e)) onLeave();
      else setMessage(`离开 Leave refused: ${reasonOf(e)}`);
    }
  };

  // The header's balance follows the seat's coins: a settlement changes both, and the header must
  // not wait for an event that a dropped stream lost.
  const myCoins = live && live.view.seat !== undefined ? live.view.table?.seats[live.view.seat]?.player?.coins : undefined;
  useEffect(() => {
    if (myCoins !== undefined) onMoneyChanged(!live?.view.hand);
  }, [myCoins]);

  if (!live) {
    return (
      <main class="table-screen loading">
        <p>{connected ? "…" : "连接中 Connecting to the table…"}</p>
      </main>
    );
  }
  const view = live.view;
  const gameName = view.table?.game ?? "";
  const tableSeats: (SeatedPlayer | null)[] = (view.table?.seats ?? []).map((s) => s.player ?? null);
  const mySeatAtTable: number | null = view.seat ?? null;
  const hand = view.hand;
  const handSeats: number[] | null = hand ? hand.seats : null;
  const myHandSeat: number | null = hand?.myHandSeat ?? null;
  const kick = view.readyKick ? { seat: view.readyKick.seat, dueMs: Number(view.readyKick.dueMs) } : null;
  const awayOf = (ts: number): number | null => {
    const until = view.reconnectByMs[String(ts)];
    return until !== undefined ? Number(until) : null;
  };
  const seatCount = tableSeats.length;
  const placeOfTable = (ts: number) => (mySeatAtTable === null ? ts : (ts - mySeatAtTable + seatCount) % seatCount);
  const tableSeatOfHand = (hs: number) => (handSeats ? handSeats[hs] : hs);
  tableSeats.forEach((sitter, ts) => {
    if (sitter) seatNames.current[ts] = sitter.name;
  });
  if (handSeats) handSeatsNow.current = handSeats;
  const nameOf = (hs: number) => tableSeats[tableSeatOfHand(hs)]?.name ?? `seat ${hs + 1}`;
  const me_ = mySeatAtTable !== null ? tableSeats[mySeatAtTable] : null;
  const turnSeat = live.turn ? live.turn.seat : null;
  const turnLeft = live.turn && live.turn.dueMs ? secondsLeft(live.turn.dueMs, now) : null;
  const myTurn = turnSeat !== null && turnSeat === mySeatAtTable;
  const lastHand = view.lastHand;
  const zjh = gameName === "zhajinhua";
  // Only a hand the player was dealt into is settled on their screen.
  const showSettlement = !hand && lastHand && lastHand.handId !== dismissed && playedIn(lastHand.handId);
  const GameSeat = zjh ? ZhajinhuaSeat : TricksSeat;
  const commitment = hand?.state?.game.value?.commitment;
  const gameProps: GameProps = {
    live,
    me,
    mySeat: myHandSeat,
    nameOf,
    act,
    tableId: seat.tableId,
    events,
  };

  return (
    <main
      class={`table-screen game-${gameName}${myTurn ? " my-turn" : ""}${connected ? "" : " offline"}`}
      data-testid="table"
      data-hand-id={hand?.handId}
    >
      <div class="felt-area">
        {!connected && (
          <div class="connection-lost" role="status" data-testid="connection-lost">
            连接中断，正在重连… Connection lost — reconnecting…
          </div>
        )}
        <div class={`felt-big seats-${seatCount}`}>
          {tableSeats.map((sitter, ts) => {
            if (ts === mySeatAtTable) return null;
            const hs = handSeats ? handSeats.indexOf(ts) : -1;
            const isTurn = turnSeat === ts;
            return (
              <SeatZone
                key={ts}
                seatCount={seatCount}
                place={placeOfTable(ts)}
                tableSeat={ts}
                sitter={sitter}
                handSeat={hs >= 0 ? hs : null}
                handOn={!!hand}
                isTurn={isTurn}
                turnLeft={isTurn && !live.turn?.suspended ? turnLeft : null}
                awayUntilMs={away[ts] ?? awayOf(ts)}
                kickDueMs={kick?.seat === ts ? kick.dueMs : null}
                now={now}
              >
                {hand && hs >= 0 && <GameSeat {...gameProps} handSeat={hs} />}
              </SeatZone>
            );
          })}
          {hand && (zjh ? <ZhajinhuaFelt {...gameProps} /> : <TricksFelt {...gameProps} />)}
          {myTurn && turnLeft !== null && (
            <div class={`my-clock${turnLeft <= 5 ? " hurry" : ""}`} data-testid="my-countdown">
              轮到你 Your turn · {live.turn?.suspended ? "paused" : `${turnLeft}s`}
            </div>
          )}
          {message && !showSettlement && (
            <div class="table-message" data-testid="table-message" onClick={() => setMessage("")}>
              {message}
            </div>
          )}
        </div>
        {/* Beside the felt, not on it: on a phone it goes below the felt, clear of every seat. */}
        {!hand && !showSettlement && (
          <div class="center-message">
            {me_?.ready || pressedStart ? (
              <p data-testid="waiting-others">已举手 Ready ✋ — {waitingFor(gameName, tableSeats, me.username)}</p>
            ) : (
              <>
                <button class="primary huge" data-testid="start" onClick={ready}>
                  开始 Start
                </button>
                {kick && kick.seat === mySeatAtTable && (
                  <p class="kick-warning" data-testid="my-kick">
                    其他玩家已举手：{secondsLeft(kick.dueMs, now)} 秒内请按开始，否则将离座。
                    <br />
                    The others are ready: press start within {secondsLeft(kick.dueMs, now)}s or you will be stood up.
                  </p>
                )}
              </>
            )}
          </div>
        )}
        {hand && myHandSeat !== null && (zjh ? <ZhajinhuaControls {...gameProps} /> : <TricksControls {...gameProps} />)}
      </div>
      <aside class="side">
        <div class="side-me">
          <div class="avatar big">{me.username.slice(0, 1).toUpperCase()}</div>
          <div>
            <div class="pname" data-testid="my-name">
              {me.username}
            </div>
            <div class="pcoins" data-testid="my-coins">
              <CoinIcon />{me_ ? coins(me_.coins) : "–"}
            </div>
            <div class="muted" data-testid="my-seat" data-seat={mySeatAtTable ?? undefined}>
              座位 seat {mySeatAtTable !== null ? mySeatAtTable + 1 : "–"}
              {me_ && !hand && (me_.ready ? " · ✋ ready" : "")}
            </div>
          </div>
        </div>
        <div class="side-table">
          <b>{gameTitle(gameName)}</b> <span class="muted" data-testid="room-name">{tierTitle || view.table?.tier} · 桌 {seat.roomId.replace(/^.*-(\d+)$/, "$1")}</span>
          <button class="link rules-link" data-testid="open-rules" onClick={() => setRulesOpen(true)}>
            📖 规则 Rules
          </button>
          <span class={connected ? "conn on" : "conn off"} data-testid="connection">
            {connected ? "● 在线 connected" : "○ 重连中 reconnecting…"}
          </span>
        </div>
        {hand && !zjh && <TricksInfo {...gameProps} />}
        {hand && zjh && <ZhajinhuaInfo {...gameProps} />}
        {commitment && (
          <div class="commitment" title="SHA-256 of the shuffle's seed and order, published before the deal">
            洗牌承诺 Shuffle commitment
            <code data-testid="commitment">{commitment.slice(0, 16)}…</code>
          </div>
        )}
        <EventLog events={events} />
        <button class="leave" data-testid="leave" onClick={leave}>
          离开 Leave table
        </button>
      </aside>
      {rulesOpen && <RulesDialog game={gameName} onClose={() => setRulesOpen(false)} />}
      {showSettlement && (
        <Settlement
          lastHand={lastHand}
          tableSeats={tableSeats}
          me={me}
          myTableSeat={mySeatAtTable}
          ready={!!me_?.ready || pressedStart}
          kickDueMs={kick && kick.seat === mySeatAtTable ? kick.dueMs : null}
          now={now}
          message={message}
          onMessageRead={() => setMessage("")}
          onAgain={ready}
          onClose={() => setDismissed(lastHand.handId)}
          onLeave={leave}
        />
      )}
    </main>
  );
}

const PLAYED_KEY = "paiju.played";

function rememberPlayed(handId: string): void {
  const played: string[] = JSON.parse(sessionStorage.getItem(PLAYED_KEY) ?? "[]");
  if (!played.includes(handId)) sessionStorage.setItem(PLAYED_KEY, JSON.stringify([...played, handId].slice(-20)));
}

function playedIn(handId: string): boolean {
  return (JSON.parse(sessionStorage.getItem(PLAYED_KEY) ?? "[]") as string[]).includes(handId);
}

function EventLog({ events }: { events: EventLine[] }) {
  const lines = events
    .map((e) => e.line)
    .filter((x): x is string => !!x)
    .slice(-10);
  return (
    <ul class="log" data-testid="log">
      {lines.map((l, i) => (
        <li key={i}>{l}</li>
      ))}
    </ul>
  );
}
