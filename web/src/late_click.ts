// What a person is told when a move of theirs is refused because the table moved on. A click that
// lands after the turn ran out would otherwise read as "the table moved on", as if someone else
// had done something, when the server made the default move for the person: say so plainly.
import type { SeenEvent } from "./events";

export const TABLE_MOVED_ON = "牌桌已变化 The table moved on: look again and decide.";
export const YOUR_TIME_RAN_OUT = "你已超时 Your time ran out: the default move was made for you.";

/** A turn clock as the page holds it: the table seat to act and when its time runs out. */
export interface TurnClock {
  seat: number;
  dueMs: number;
  suspended: boolean;
}


export interface LateClick {
  /** The player's table seat (null: a spectator). */
  myTableSeat: number | null;
  /** The player's hand seat (null: not dealt in). */
  myHandSeat: number | null;
  /** The turn on the view the player clicked on. */
  turnClicked: TurnClock | null;
  /** The turn on the fresh view fetched after the refusal (null: nobody is to act, or no hand). */
  turnNow: TurnClock | null;
  /** The events that came since the view the player clicked on. */
  eventsSince: SeenEvent[];
  /** The browser's clock when the refusal came. */
  nowMs: number;
}

/** The server's clock may run this much ahead of the browser's: a turn due this close counts as run out. */
const CLOCK_SLACK_MS = 1500;

/** Whether an event says the server timed out the player's own turn: a strike (炸金花 counts
 * them at the table), a trick game's timed_out, or a fold the timeout made. */
export function isOwnTimeout(event: SeenEvent, myHandSeat: number | null): boolean {
  if (myHandSeat === null) return false;
  if (event.type === "strike" || event.type === "timed_out") return event.payload.seat === myHandSeat;
  return event.type === "folded" && event.payload.seat === myHandSeat && event.payload.reason === "timeout";
}

/** Whether the player's own turn, the one they clicked on, ended by its timer: an event says so,
 * or the turn was theirs, its time was up, and the fresh view has moved past it. */
export function turnRanOut(click: LateClick): boolean {
  if (click.eventsSince.some((event) => isOwnTimeout(event, click.myHandSeat))) return true;
  const clicked = click.turnClicked;
  if (!clicked || click.myTableSeat === null || clicked.seat !== click.myTableSeat || clicked.suspended) return false;
  if (!clicked.dueMs || clicked.dueMs > click.nowMs + CLOCK_SLACK_MS) return false;
  const now = click.turnNow;
  const sameTurn = now !== null && now.seat === clicked.seat && now.dueMs === clicked.dueMs;
  return !sameTurn;
}

/** The message for a move refused because the table moved on. */
export function staleMoveMessage(click: LateClick): string {
  return turnRanOut(click) ? YOUR_TIME_RAN_OUT : TABLE_MOVED_ON;
}
