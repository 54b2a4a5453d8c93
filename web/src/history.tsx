// The hands a player played (牌谱), and one replayed move by move as they saw it: their own cards
// all along, the others' once the rules showed them.
import { useEffect, useState } from "preact/hooks";
import { reasonOf, wallet } from "./api";
import { CardRow, cardsOf, prettyCards } from "./cards";
import type { PlayedHand, ReplayHandResponse } from "./gen/paiju/v1/wallet_pb";
import { gameTitle, moveLabel, ZJH_STATUS } from "./labels";
import { signed } from "./util";

export function HandsDialog({ onClose }: { onClose: () => void }) {
  const [hands, setHands] = useState<PlayedHand[] | null>(null);
  const [next, setNext] = useState("");
  const [error, setError] = useState("");
  const [open, setOpen] = useState<string | null>(null);

  const load = async (pageToken = "") => {
    try {
      const page = await wallet.hands({ limit: 20, pageToken });
      setHands((old) => [...(pageToken ? (old ?? []) : []), ...page.hands]);
      setNext(page.nextPageToken);
    } catch (e) {
      setError(reasonOf(e));
    }
  };
  useEffect(() => {
    load();
  }, []);

  return (
    <div class="modal-back" onClick={onClose}>
      <div class="modal hands" data-testid="hands" onClick={(e) => e.stopPropagation()}>
        {open ? (
          <Replay handId={open} onBack={() => setOpen(null)} />
        ) : (
          <>
            <h2>牌谱 My hands</h2>
            {error && <p class="bad">{error}</p>}
            {hands === null ? (
              <p>…</p>
            ) : hands.length === 0 ? (
              <p class="muted" data-testid="no-hands">还没有牌局 No hands yet: the hands you play are kept here for 30 days.</p>
            ) : (
              <table class="results hands-list">
                <tbody>
                  {hands.map((h) => (
                    <tr key={h.handId} data-testid="hand-row" data-hand={h.handId}>
                      <td class="hand-game">{gameTitle(h.game)}</td>
                      <td class="muted hand-ended">{h.endedAt && <EndedAt at={new Date(Number(h.endedAt.seconds) * 1000)} />}</td>
                      <td class={Number(h.net) >= 0 ? "plus" : "minus"}>{signed(Number(h.net))}</td>
                      <td>
                        <button data-testid="replay" onClick={() => setOpen(h.handId)}>
                          回放 Replay
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <div class="buttons">
              {next && <button onClick={() => load(next)}>更多 More</button>}
              <button class="primary" data-testid="hands-close" onClick={onClose}>
                关闭 Close
              </button>
            </div>
          </>
        )}
      </div>
    </div>
  );
}

/** When a hand ended: the whole date and time, or on a phone (by the style sheet) the day and
 * time without the year or seconds, so the row stays one line; the whole one is its tooltip. */
function EndedAt({ at }: { at: Date }) {
  const short = at.toLocaleString(undefined, { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return (
    <time dateTime={at.toISOString()} title={at.toLocaleString()}>
      <span class="long-date">{at.toLocaleString()}</span>
      <span class="short-date">{short}</span>
    </time>
  );
}

function Replay({ handId, onBack }: { handId: string; onBack: () => void }) {
  const [replay, setReplay] = useState<ReplayHandResponse | null>(null);
  const [error, setError] = useState("");
  const [step, setStep] = useState(0);
  useEffect(() => {
    wallet
      .replayHand({ handId })
      .then((r) => {
        setReplay(r);
        setStep(0);
      })
      .catch((e) => setError(reasonOf(e)));
  }, [handId]);

  if (error) return <p class="bad">{error}</p>;
  if (!replay) return <p>…</p>;
  const last = replay.steps.length - 1;
  const current = replay.steps[step];
  const view = current.state?.game;
  const players = view?.value?.players ?? [];
  const trick = view?.case === "hunzhan" || view?.case === "chaodipi" ? view.value.trick : [];
  const name = (seat: number) => replay.names[seat] ?? `seat ${seat + 1}`;
  const moveText =
    current.seat < 0
      ? current.move === "system"
        ? "发牌 the deal goes on"
        : "开局 the start"
      : `${name(current.seat)}: ${prettyCards(moveLabel(current.move))}`;
  return (
    <div class="replay" data-testid="replay-view" data-step={step} data-steps={replay.steps.length}>
      <h2>
        {gameTitle(replay.game)} 回放 Replay
      </h2>
      <p class="replay-move" data-testid="replay-move">
        {step}/{last} · {moveText}
      </p>
      <div class="replay-players">
        {players.map((p) => (
          <div key={p.seat} class={`replay-player${p.seat === replay.seat ? " mine" : ""}`} data-testid="replay-player">
            <b>
              {name(p.seat)}
              {p.seat === replay.seat ? " (you)" : ""}
            </b>
            {p.$typeName === "paiju.v1.ZhajinhuaPlayer" && p.status && <span class="muted"> {ZJH_STATUS[p.status] ?? p.status}</span>}
            {p.$typeName === "paiju.v1.HunzhanPlayer" && <span class="muted"> · {p.points} 分</span>}
            <CardRow cards={cardsOf(p.cards)} small />
          </div>
        ))}
      </div>
      {trick.length > 0 && (
        <div class="replay-trick">
          这一轮 This trick:{" "}
          {trick.map((play) => (
            <span key={play.seat}>
              {name(play.seat)} {prettyCards(play.cards)}{" "}
            </span>
          ))}
        </div>
      )}
      {view?.case === "zhajinhua" && <p class="muted">底池 Pot {String(view.value.pot)}</p>}
      {view?.value?.result && (
        <p data-testid="replay-result">
          结果 Result: {view.value.result.coins.map((c, seat) => `${name(seat)} ${signed(c)}`).join(" · ")}
        </p>
      )}
      <div class="buttons">
        <button data-testid="replay-start" disabled={step === 0} onClick={() => setStep(0)}>
          ⏮
        </button>
        <button data-testid="replay-back" disabled={step === 0} onClick={() => setStep(step - 1)}>
          ◀ 上一步 Back
        </button>
        <input type="range" min={0} max={last} value={step} onInput={(e) => setStep(Number((e.target as HTMLInputElement).value))} />
        <button data-testid="replay-next" disabled={step === last} onClick={() => setStep(step + 1)}>
          下一步 Next ▶
        </button>
        <button data-testid="replay-end" disabled={step === last} onClick={() => setStep(last)}>
          ⏭
        </button>
        <button onClick={onBack}>返回 Back to the list</button>
      </div>
    </div>
  );
}
