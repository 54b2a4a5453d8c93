// The end of a hand: every player's result with the viewer's own row first, the fairness check
// of the shuffle, and what to do next.
import { useEffect, useState } from "preact/hooks";
import { CardRow, cardsOf } from "./cards";
import { dealsOf, verifyDeal, type FairnessResult } from "./fairness";
import type { SeatedPlayer, LastHand } from "./gen/paiju/v1/views_pb";
import { HOW } from "./labels";
import type { Session } from "./session";
import { secondsLeft, signed } from "./util";

interface Props {
  lastHand: LastHand;
  tableSeats: (SeatedPlayer | null)[];
  me: Session;
  myTableSeat: number | null;
  ready: boolean;
  /** When the viewer will be stood up for not pressing start (the others are ready), or null. */
  kickDueMs: number | null;
  now: number;
  /** The table's latest message (a refused move or start): over the felt it would be hidden
   * behind this window, so the window shows it. */
  message: string;
  onMessageRead: () => void;
  onAgain: () => void;
  onClose: () => void;
  onLeave: () => void;
}

export function Settlement(props: Props) {
  const { lastHand, tableSeats, myTableSeat, ready, kickDueMs, now, message, onMessageRead, onAgain, onClose, onLeave } = props;
  const view = lastHand.state?.game;
  const state = view?.value;
  const result = state?.result;
  const how = result?.details?.how ?? "";
  const game = view?.case;
  const handPoints = view?.case === "hunzhan" ? (view.value.result?.details?.points ?? []) : [];
  const seats = lastHand.seats;
  const mine = myTableSeat === null ? -1 : seats.indexOf(myTableSeat);
  const order = seats.map((_, hs) => hs).sort((a, b) => (a === mine ? -1 : b === mine ? 1 : a - b));
  const winners = result?.winners ?? [];
  const [fair, setFair] = useState<FairnessResult | null>(null);
  const [fairError, setFairError] = useState("");

  useEffect(() => {
    const deals = dealsOf(state?.reveal);
    if (!deals.length || !state?.commitment) return;
    verifyDeal(state.commitment, deals[deals.length - 1])
      .then(setFair)
      .catch((e) => setFairError(String(e)));
  }, [lastHand.handId]);

  // The house's fee per seat (a fee line is negative): shown whenever the hand charged one, so the
  // coins column adds up (+29/+29/−30/−30 once did not, with the fee nowhere).
  const feeOf = (hs: number): number =>
    -(result?.lines ?? [])
      .filter((line) => line.seat === hs && line.reason === "fee")
      .reduce((sum, line) => sum + Number(line.amount), 0);
  const fees = Number(result?.fee ?? 0) > 0;
  const nameOf = (hs: number) => tableSeats[seats[hs]]?.name ?? `seat ${seats[hs] + 1}`;
  const coinsOf = (hs: number): number => Number(result?.coins[hs] ?? 0);
  const scores = result?.scores?.values;
  const myCoins = mine >= 0 ? coinsOf(mine) : 0;

  return (
    <div class="modal-back">
      <div class="modal settlement" data-testid="settlement">
        <h2 class={myCoins > 0 ? "won" : myCoins < 0 ? "lost" : ""}>
          {mine >= 0 && winners.includes(mine) ? "🎉 你赢了 You won!" : "本局结算 Settlement"}
        </h2>
        {how && <p class="how">{HOW[how] ?? how}</p>}
        {message && (
          <p class="settlement-message" role="alert" data-testid="table-message" onClick={onMessageRead}>
            {message}
          </p>
        )}
        <table class="results">
          <thead>
            <tr>
              <th>玩家 Player</th>
              {game === "zhajinhua" && <th>牌 Cards</th>}
              {game === "hunzhan" && <th>分 Points</th>}
              {game === "chaodipi" && <th>方 Side</th>}
              {scores && <th>积分 Score</th>}
              {fees && <th title="the house's fee, taken from winnings">台费 Fee</th>}
              <th>金币 Coins</th>
            </tr>
          </thead>
          <tbody>
            {order.map((hs) => (
              <tr key={hs} class={`${hs === mine ? "mine" : ""}${winners.includes(hs) ? " winner" : ""}`} data-testid="result-row">
                <td>
                  {winners.includes(hs) ? "🏆 " : ""}
                  {nameOf(hs)}
                  {hs === mine ? " (you)" : ""}
                </td>
                {view?.case === "zhajinhua" && (
                  <td>
                    <CardRow cards={cardsOf(view.value.players[hs]?.cards)} small />
                  </td>
                )}
                {game === "hunzhan" && <td>{handPoints[hs] ?? ""}</td>}
                {view?.case === "chaodipi" && <td>{view.value.players[hs]?.side === "banker" ? "庄 banker" : "闲 attacker"}</td>}
                {scores && <td>{signed(scores[hs] ?? 0)}</td>}
                {fees && <td class="fee" data-testid="fee">{feeOf(hs) ? `−${feeOf(hs)}` : ""}</td>}
                <td class={coinsOf(hs) >= 0 ? "plus" : "minus"}>{signed(coinsOf(hs))}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {fees && (
          <p class="muted fee-note" data-testid="fee-note">
            台费 The house takes {String(result?.fee ?? 0)} as its fee from the winnings: the coins column is after it.
          </p>
        )}
        <div class="fairness" data-testid="fairness">
          {fair ? (
            fair.ok ? (
              <span class="ok" data-testid="fair-ok">
                ✔ 洗牌公平 Fair shuffle: SHA-256(seed ‖ order) = {fair.commitment.slice(0, 16)}…, the commitment shown at the start
              </span>
            ) : (
              <span class="bad" data-testid="fair-bad">
                ✘ The revealed deck does NOT match the commitment ({fair.computed.slice(0, 16)}… ≠ {fair.commitment.slice(0, 16)}…)
              </span>
            )
          ) : fairError ? (
            <span class="bad">{fairError}</span>
          ) : (
            <span>checking the shuffle…</span>
          )}
        </div>
        {!ready && kickDueMs !== null && (
          <p class="kick-countdown" role="alert" data-testid="settlement-kick">
            其他玩家已举手：{secondsLeft(kickDueMs, now)} 秒内按“再来一局”，否则将离座。
            <br />
            The others are ready: press Next hand within <b>{secondsLeft(kickDueMs, now)}s</b> or you will be stood up.
          </p>
        )}
        <div class="buttons">
          {ready ? (
            <span class="muted" data-testid="waiting-next">已举手 Ready ✋ — waiting for the others…</span>
          ) : (
            <button class="primary big" data-testid="again" onClick={onAgain}>
              再来一局 Next hand
            </button>
          )}
          <button data-testid="view-table" onClick={onClose}>
            查看牌桌 View table
          </button>
          <button name="leave" onClick={onLeave}>
            离开 Leave
          </button>
        </div>
      </div>
    </div>
  );
}
