// A table's events as the page reads them: `Event.typed`, the table's own or its game's, named by
// the event's type as the docs spell it ("hand_seats", "compare_result") with the message that
// event carries. The type names the payload, so tsc checks each field read against the contract.
import type { ChaodipiEvent } from "./gen/paiju/v1/chaodipi_pb";
import type { TableEvent, TypedEvent } from "./gen/paiju/v1/events_pb";
import type { HunzhanEvent } from "./gen/paiju/v1/hunzhan_pb";
import type { Event } from "./gen/paiju/v1/table_pb";
import type { ZhajinhuaEvent } from "./gen/paiju/v1/zhajinhua_pb";

type AnyCase = TableEvent["event"] | ZhajinhuaEvent["event"] | HunzhanEvent["event"] | ChaodipiEvent["event"];

/** "compareResult" → "compare_result": a oneof case as the event's type. */
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Snake<Tail>}`
  : S;
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** Every event type of every game and of the table. */
export type EventType = Snake<NonNullable<AnyCase["case"]>>;
/** The message an event of a type carries (the games' of one name, when several games have it). */
export type PayloadOf<T extends EventType> = Extract<AnyCase, { case: Camel<T> }>["value"];

/** An event as the page keeps it: its type and its message, narrowed together by the type. */
export type SeenEvent = { [T in EventType]: { type: T; payload: PayloadOf<T> } }[EventType];

/** The event a typed message holds, or null when it holds none (a newer server's event). */
export function seenEventOf(typed: TypedEvent | undefined): SeenEvent | null {
  const inner = typed?.source.value?.event;
  if (!inner?.case) return null;
  return { type: inner.case.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), payload: inner.value } as SeenEvent;
}

/** The events of a batch the page can read, in their order. */
export function seenEvents(batch: Event[]): SeenEvent[] {
  return batch.map((e) => seenEventOf(e.typed)).filter((e): e is SeenEvent => e !== null);
}
