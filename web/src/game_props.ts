// What the table frame hands a game's own components (the felt, the seats, the controls of
// 炸金花 and of the trick games): the live view, the viewer, the names, the way to act, the log.
import type { SeenEvent } from "./events";
import type { ChaodipiView } from "./gen/paiju/v1/chaodipi_pb";
import type { HunzhanView } from "./gen/paiju/v1/hunzhan_pb";
import type { GameView, TableViewState } from "./gen/paiju/v1/views_pb";
import type { ZhajinhuaView } from "./gen/paiju/v1/zhajinhua_pb";
import type { Session } from "./session";

/** One seat's view as the server sent it. */
export interface Live {
  version: bigint;
  seat: number | null;
  legal: string[];
  turn: { seat: number; dueMs: number; suspended: boolean } | null;
  view: TableViewState;
}

/** A trick game's view (混战 or 炒地皮), by its game. */
export type TricksView = { case: "hunzhan"; value: HunzhanView } | { case: "chaodipi"; value: ChaodipiView };

/** The 炸金花 view of the hand in play (null: no hand, or another game). */
export function zhajinhuaOf(live: Live): ZhajinhuaView | null {
  const game = live.view.hand?.state?.game;
  return game?.case === "zhajinhua" ? game.value : null;
}

/** The trick game's view of the hand in play (null: no hand, or 炸金花). */
export function tricksOf(live: Live): TricksView | null {
  return tricksViewOf(live.view.hand?.state);
}

export function tricksViewOf(view: GameView | undefined): TricksView | null {
  const game = view?.game;
  return game?.case === "hunzhan" || game?.case === "chaodipi" ? game : null;
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

/** An event as it came, with the log's line, named as the seats were then (null: a quiet event). */
export type EventLine = SeenEvent & { at: number; line: string | null };
