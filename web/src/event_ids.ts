// A table's events as the page learns them: from its Watch stream and, for the person's own
// moves, from Act's reply (the stream is asked to leave those out). The two can cross, so each
// event is taken once by its id, and the stream resumes after the newest id known from either.

/** Whether stream id `a` ("ms-seq") comes after `b`. */
export function isAfter(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  return am > bm || (am === bm && as > bs);
}

const REMEMBERED = 500;

/** The ids seen lately, and the newest of all. */
export class EventIds {
  /** The newest id seen: where a reopened stream goes on from ("" before any). */
  after = "";
  private seen = new Set<string>();

  /** The events of `batch` not seen before, in their order; every id counts as seen from now on. */
  fresh<T extends { id: string }>(batch: T[]): T[] {
    const taken = batch.filter((event) => !event.id || !this.seen.has(event.id));
    for (const event of taken) {
      if (!event.id) continue;
      this.seen.add(event.id);
      if (!this.after || isAfter(event.id, this.after)) this.after = event.id;
    }
    if (this.seen.size > REMEMBERED) this.seen = new Set([...this.seen].slice(-REMEMBERED / 2));
    return taken;
  }

  /** A snapshot's last event id: what it includes counts as known for resuming. */
  reached(id: string): void {
    if (id && (!this.after || isAfter(id, this.after))) this.after = id;
  }
}
