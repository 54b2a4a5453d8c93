// Following one table: its Watch stream kept open for as long as the page shows the table.
//
// A stream that drops is reopened after the last event it delivered, so nothing is missed, after
// a pause that doubles up to a bound (jittered, so that the pages of a restarted server do not
// all come back in the same instant), and at once when the browser says it is online again. The
// browser's "offline" ends the stream straight away: a read from a dead network can hang for
// minutes before it fails. A reopened stream says nothing until the table's next event, so the
// view is asked for beside it: that answer is the whole view as of now (the turn and its time
// left included), and it is what tells the page that it is back in touch.
import { Code, codeOf, reasonOf, table } from "./api";
import type { EventIds } from "./event_ids";
import type { TableView, WatchResponse } from "./gen/paiju/v1/table_pb";
import { ViewFormat } from "./gen/paiju/v1/views_pb";
import { sleep } from "./util";

/** The form of views and events this client asks for: typed messages (`TableView.state`,
 * `Event.typed`), read through the generated types so that tsc checks every field the screens
 * read against the contract. */
export const VIEW_FORMAT = ViewFormat.TYPED;

const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5000;

export interface Follower {
  /** A message of the stream: a whole view, events, or both. */
  update(update: WatchResponse): void;
  /** The whole view, asked for when the stream was reopened. */
  view(view: TableView): void;
  /** Whether the page is in touch with the table. */
  connected(up: boolean): void;
  /** The seat is gone (stood up, or the table closed): following ends. */
  seatLost(error: unknown): void;
}

/** Follows the table until `stop` is aborted or the seat is lost. The stream leaves out the
 * person's own moves (their events come in Act's reply): `ids` holds every event id the page
 * knows, from either, and a reopened stream goes on after the newest. */
export async function followTable(tableId: string, follower: Follower, stop: AbortSignal, ids: EventIds): Promise<void> {
  let pause = FIRST_PAUSE_MS;
  let lost = false;
  let updates = 0; // messages of the stream so far, to tell whether a view asked for is still news
  let attempt = new AbortController();
  let wake = new AbortController();
  const endAttempt = () => attempt.abort();
  const wakeUp = () => wake.abort();
  const stopAll = () => {
    attempt.abort();
    wake.abort();
  };
  const loseSeat = (error: unknown) => {
    if (!lost) follower.seatLost(error);
    lost = true;
    stopAll();
  };

  // A reopened stream says nothing until the next event: the whole view asked for beside it
  // brings the page up to date, and its answer (while the stream stands) means the page is back.
  const confirmResumed = async (current: AbortController) => {
    const asked = updates;
    try {
      const { view } = await table.getView({ tableId, viewFormat: VIEW_FORMAT }, { signal: current.signal });
      if (current.signal.aborted) return;
      pause = FIRST_PAUSE_MS;
      if (updates === asked && view) follower.view(view); // else the stream has brought something newer
      follower.connected(true);
    } catch (error) {
      if (current.signal.aborted) return;
      if (isSeatLost(error)) loseSeat(error);
      else current.abort(); // not back after all: this attempt ends, the next one follows
    }
  };

  stop.addEventListener("abort", stopAll);
  window.addEventListener("offline", endAttempt);
  window.addEventListener("online", wakeUp);
  try {
    while (!stop.aborted && !lost) {
      attempt = new AbortController();
      wake = new AbortController(); // "online" from now on ends the pause after this attempt
      const current = attempt;
      try {
        const after = ids.after;
        const stream = table.watch(
          { tableId, afterEventId: after, followView: true, leaveOutOwnActs: true, viewFormat: VIEW_FORMAT },
          { signal: current.signal },
        );
        if (after) confirmResumed(current);
        for await (const update of stream) {
          updates++;
          follower.connected(true);
          pause = FIRST_PAUSE_MS;
          if (update.snapshot?.lastEventId) ids.reached(update.snapshot.lastEventId);
          follower.update(update);
        }
      } catch (error) {
        if (stop.aborted || lost) return;
        if (isSeatLost(error)) {
          loseSeat(error);
          return;
        }
        console.warn("table stream dropped", reasonOf(error));
      }
      current.abort();
      follower.connected(false);
      await sleep(pause * (0.5 + Math.random() / 2), wake.signal);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  } finally {
    stop.removeEventListener("abort", stopAll);
    window.removeEventListener("offline", endAttempt);
    window.removeEventListener("online", wakeUp);
  }
}

export function isSeatLost(error: unknown): boolean {
  const code = codeOf(error);
  return code === Code.PermissionDenied || code === Code.NotFound;
}
