// The lobby: games, their tiers, and the live room list with free seats to take.
import { useEffect, useRef, useState } from "preact/hooks";
import { isOutage, lobby, reasonOf } from "./api";
import { RoomState, type Room, type Tier } from "./gen/paiju/v1/common_pb";
import { GAMES, liveliestTier } from "./labels";
import { RulesDialog } from "./rules";
import type { SeatMemory, Session } from "./session";
import { coins, sleep } from "./util";

interface Props {
  me: Session;
  onSeated: (seat: SeatMemory) => void;
  onError: (message: string) => void;
}

const STATE_CLASS: Record<number, string> = {
  [RoomState.IDLE]: "idle",
  [RoomState.WAITING]: "waiting",
  [RoomState.PLAYING]: "playing",
};
const STATE_LABEL: Record<number, string> = {
  [RoomState.IDLE]: "空闲 idle",
  [RoomState.WAITING]: "等待 waiting",
  [RoomState.PLAYING]: "游戏中 playing",
};

export function LobbyScreen({ me, onSeated, onError }: Props) {
  const [game, setGame] = useState(localStorage.getItem("paiju.game") ?? "zhajinhua");
  const [tiers, setTiers] = useState<Tier[]>([]);
  const [tier, setTier] = useState<string>("");
  const [rooms, setRooms] = useState<Map<string, Room>>(new Map());
  const [live, setLive] = useState(false);
  const [rulesOpen, setRulesOpen] = useState(false);
  // A notice the player came back with (stood up, a refusal) is about where they were: it goes
  // once they choose another game.
  const firstGame = useRef(game);

  useEffect(() => {
    if (game !== firstGame.current) onError("");
    localStorage.setItem("paiju.game", game);
    setTiers([]);
    lobby
      .listTiers({ game })
      .then((r) => {
        setTiers(r.tiers);
        const kept = localStorage.getItem(`paiju.tier.${game}`);
        setTier(r.tiers.some((t) => t.tier === kept) ? kept! : liveliestTier(r.tiers));
      })
      .catch((e) => onError(reasonOf(e)));
  }, [game]);

  // The live room list: a snapshot, then each room as it changes; reopened after a drop.
  useEffect(() => {
    if (!tier) return;
    localStorage.setItem(`paiju.tier.${game}`, tier);
    const stop = new AbortController();
    setRooms(new Map());
    (async () => {
      while (!stop.signal.aborted) {
        try {
          for await (const update of lobby.watchRooms({ game, tier }, { signal: stop.signal })) {
            setLive(true);
            if (update.update.case === "snapshot") {
              setRooms(new Map(update.update.value.rooms.map((r) => [r.roomId, r])));
            } else if (update.update.case === "changed") {
              const room = update.update.value;
              setRooms((old) => new Map(old).set(room.roomId, room));
            }
          }
        } catch (e) {
          if (stop.signal.aborted) return;
          console.warn("room list dropped", reasonOf(e));
        }
        setLive(false);
        await sleep(1000, stop.signal);
      }
    })();
    return () => stop.abort();
  }, [game, tier]);

  const sit = async (room: Room, seat?: number) => {
    try {
      const r = await lobby.sit({ roomId: room.roomId, seat });
      onSeated({ roomId: r.room!.roomId, tableId: r.room!.tableId, game, accountId: me.accountId });
    } catch (e) {
      // An outage may have come after the seat was taken: look before saying it was not.
      if (isOutage(e) && (await seatedIn(room.roomId, game, me.accountId))) {
        onSeated({ roomId: room.roomId, tableId: room.tableId, game, accountId: me.accountId });
        return;
      }
      onError(`不能入座 Cannot sit: ${reasonOf(e)}`);
    }
  };

  const quickMatch = async () => {
    try {
      const r = await lobby.quickMatch({ game, tier });
      onSeated({ roomId: r.room!.roomId, tableId: r.room!.tableId, game, accountId: me.accountId });
    } catch (e) {
      onError(`快速开始 Quick match failed: ${reasonOf(e)}`);
    }
  };

  const current = tiers.find((t) => t.tier === tier);
  const sorted = [...rooms.values()].sort((a, b) => a.roomId.localeCompare(b.roomId, "en", { numeric: true }));
  return (
    <main class="lobby">
      <nav class="games">
        {GAMES.map((g) => (
          <button
            key={g.name}
            class={g.name === game ? "game-tab active" : "game-tab"}
            data-game={g.name}
            onClick={() => setGame(g.name)}
          >
            <span class="game-title">{g.title}</span>
            <span class="game-en">{g.english}</span>
            <span class="game-blurb">{g.blurb}</span>
          </button>
        ))}
      </nav>
      <section class="tiers">
        {tiers.map((t) => (
          <button
            key={t.tier}
            class={t.tier === tier ? "tier active" : "tier"}
            data-tier={t.tier}
            onClick={() => setTier(t.tier)}
          >
            <b>{t.title}</b>
            <small>
              {t.playersSeated > 0 && <span class="tier-players" title="players seated now">👤 {t.playersSeated} · </span>}
              {Number(t.minCoins) > 0 ? `≥ ${coins(t.minCoins)} 金币 coins` : "免费入座 free to sit"}
              {Number(t.stake) > 0 && ` · ${t.unit === "ante" ? "底注 ante" : "底分 stake"} ${coins(t.stake)}`}
            </small>
          </button>
        ))}
      </section>
      <section class="lobby-bar">
        <button class="primary big" data-testid="quick-match" onClick={quickMatch} disabled={!tier}>
          快速开始 Quick match
        </button>
        <button class="rules-button" data-testid="open-rules" onClick={() => setRulesOpen(true)}>
          📖 规则 How to play
        </button>
        <span class="legend">
          <i class="dot idle" /> 空闲 idle <i class="dot waiting" /> 等待 waiting <i class="dot playing" /> 游戏中 playing
        </span>
        <span class={live ? "live on" : "live"}>{live ? "● live" : "○ connecting…"}</span>
      </section>
      <section class="rooms" data-testid="rooms">
        {sorted.map((room) => (
          <RoomCard key={room.roomId} room={room} seatCount={current?.seatCount ?? room.seats.length} me={me} onSit={sit} />
        ))}
        {sorted.length === 0 && <p class="empty">No rooms yet…</p>}
      </section>
      {rulesOpen && <RulesDialog game={game} onClose={() => setRulesOpen(false)} />}
    </main>
  );
}

/** Whether the account sits in the room now (the room list, asked again). */
async function seatedIn(roomId: string, game: string, accountId: string): Promise<boolean> {
  try {
    const { rooms } = await lobby.listRooms({ game });
    return rooms.some((r) => r.roomId === roomId && r.seats.some((s) => s.accountId === accountId));
  } catch {
    return false;
  }
}

function RoomCard({
  room,
  seatCount,
  me,
  onSit,
}: {
  room: Room;
  seatCount: number;
  me: Session;
  onSit: (room: Room, seat?: number) => void;
}) {
  const state = STATE_CLASS[room.state] ?? "idle";
  const count = Math.max(seatCount, room.seats.length ? Math.max(...room.seats.map((s) => s.seat + 1)) : 0);
  const bySeat = new Map(room.seats.map((s) => [s.seat, s]));
  const open = room.state !== RoomState.PLAYING;
  return (
    <div class={`room ${state}`} data-room={room.roomId} data-state={state}>
      <div class="room-head">
        <span class="room-name">{room.roomId.replace(/^.*-(\d+)$/, "桌 $1")}</span>
        <span class={`state ${state}`}>{STATE_LABEL[room.state] ?? ""}</span>
      </div>
      <div class={`felt seats-${count}`}>
        {room.state === RoomState.PLAYING && (
          <span class="table-cards" title="a hand is being played" data-testid="playing-icon">
            🂠🂠
          </span>
        )}
        {Array.from({ length: count }, (_, i) => {
          const s = bySeat.get(i);
          if (s) {
            return (
              <span
                key={i}
                class={`chair taken pos-${count}-${i}${s.accountId === me.accountId ? " mine" : ""}`}
                title={`${s.username} · ${coins(s.coins)}`}
              >
                <span class="chair-avatar">{s.username.slice(0, 1).toUpperCase()}</span>
                <span class="chair-name">{s.username}</span>
                {s.ready && <span class="raised" title="ready 举手">✋</span>}
              </span>
            );
          }
          return (
            <button
              key={i}
              class={`chair free pos-${count}-${i}`}
              data-seat={i}
              title={open ? "入座 sit here" : "入座，下一局开始加入 sit here: you are dealt in from the next hand"}
              onClick={() => onSit(room, i)}
            >
              +
            </button>
          );
        })}
      </div>
    </div>
  );
}
