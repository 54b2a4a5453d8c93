// What the table frame hands a game's own components (the felt, the seats, the controls of
// 炸金花 and of the trick games): the live view, the viewer, the names, the way to act, the log.
import type { Session } from "./session";

/** One seat's view as the server sent it, with the view JSON parsed. */
export interface Live {
  version: bigint;
  seat: number | null;
  legal: string[];
  turn: { seat: number; dueMs: number; suspended: boolean } | null;
  view: Record<string, any>;
}

/** What a game's component gets from the table frame. */
export interface GameProps {
  live: Live;
  me: Session;
  /** The hand seat of the viewer (null when not dealt in). */
  mySeat: number | null;
  /** The name at a hand seat. */
  nameOf: (handSeat: number) => string;
  act: (action: string) => Promise<boolean>;
  tableId: string;
  events: EventLine[];
}

export interface EventLine {
  type: string;
  payload: Record<string, any>;
  at: number;
  /** The log's line, named as the seats were when the event came (null: a quiet event). */
  line: string | null;
}
