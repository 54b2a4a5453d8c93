// Small helpers of the views: a ticking clock for countdowns, coin amounts, pauses.
import { useEffect, useState } from "preact/hooks";

/** Re-renders every `ms` while mounted (for countdowns). */
export function useTick(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

export function coins(n: number | bigint): string {
  return Number(n).toLocaleString("en-US");
}

export function signed(n: number | bigint): string {
  return n > 0 ? `+${coins(n)}` : coins(n);
}

export function secondsLeft(dueMs: number, now: number): number {
  return Math.max(0, Math.ceil((dueMs - now) / 1000));
}

/** Resolves after `ms`, or as soon as `signal` is (or already was) aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const id = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(id);
      resolve();
    });
  });
}
