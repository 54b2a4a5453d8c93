// The other players around the felt: each in a zone at their place, their panel (name, coins,
// turn countdown, ready and away marks) at the rim and what the game shows of them after it.
import type { ComponentChildren } from "preact";
import { sideOf, zoneStyle } from "./place";
import { coins, secondsLeft } from "./util";
import { CoinIcon } from "./coin";
import type { SeatedPlayer } from "./gen/paiju/v1/views_pb";


interface Props {
  seatCount: number;
  place: number;
  tableSeat: number;
  /** Who sits there (null: the seat is free). */
  sitter: SeatedPlayer | null;
  /** The seat's place in the hand (null: not dealt in, or no hand on). */
  handSeat: number | null;
  handOn: boolean;
  /** Seconds left of this seat's turn (null: not its turn, or the timer is paused). */
  turnLeft: number | null;
  isTurn: boolean;
  awayUntilMs: number | null;
  kickDueMs: number | null;
  now: number;
  /** What the game shows of this player: their cards, badges, the cards they played. */
  children?: ComponentChildren;
}

export function SeatZone(props: Props) {
  const { seatCount, place, tableSeat, handSeat } = props;
  return (
    <div
      class={`seat-zone side-${sideOf(seatCount, place)}`}
      style={zoneStyle(seatCount, place)}
      data-seat={tableSeat}
      data-hand-seat={handSeat ?? undefined}
    >
      <SeatPanel {...props} />
      {props.children}
    </div>
  );
}

function SeatPanel({ tableSeat, sitter, handOn, turnLeft, isTurn, awayUntilMs, kickDueMs, now }: Props) {
  if (!sitter) {
    return (
      <div class="panel empty" data-seat={tableSeat}>
        <span class="empty-seat">空位 empty</span>
      </div>
    );
  }
  return (
    <div class={`panel${isTurn ? " turn" : ""}${sitter.connected ? "" : " away"}`} data-seat={tableSeat}>
      <div class="avatar">
        {sitter.name.slice(0, 1).toUpperCase()}
        {turnLeft !== null && (
          <span class={`countdown${turnLeft <= 5 ? " hurry" : ""}`} data-testid="countdown">
            {turnLeft}
          </span>
        )}
      </div>
      <div class="who">
        <span class="pname" title={sitter.name}>{sitter.name}</span>
        <span class="pcoins"><CoinIcon />{coins(sitter.coins)}</span>
        {!sitter.connected && (
          <span class="away-tag" data-testid="away">
            断线 away{awayUntilMs ? ` · ${secondsLeft(awayUntilMs, now)}s` : ""}
          </span>
        )}
      </div>
      {!handOn && sitter.ready && (
        <span class="ready-hand" title="ready 举手">
          ✋ 举手
        </span>
      )}
      {kickDueMs && (
        <span class="kick-tag" data-testid="kick">
          ⏳ 举手 {secondsLeft(kickDueMs, now)}s
        </span>
      )}
    </div>
  );
}
