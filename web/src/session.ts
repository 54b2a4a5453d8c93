// The session kept across reloads: the token the wallet gave and whose it is.
export interface Session {
  token: string;
  accountId: string;
  username: string;
  expiresAtMs: number;
  /** When the server issued the token (the page's clock); absent in sessions saved before it was kept. */
  issuedAtMs?: number;
}

/** The longest a timer may wait in a browser (about 24.8 days): a longer delay fires at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** How long until a live session should be extended (`WalletService.RefreshSession`): once half
 * its lifetime has gone, so a player who keeps the page open, or comes back before the token
 * expires, is never logged out; at once for a session saved without its issue time. */
export function refreshInMs(s: Session, nowMs: number): number {
  if (s.issuedAtMs === undefined) return 0;
  const halfway = s.issuedAtMs + (s.expiresAtMs - s.issuedAtMs) / 2;
  return Math.min(LONGEST_TIMER_MS, Math.max(0, halfway - nowMs));
}

/** How long to wait before trying again when a refresh met an outage (the session still lives). */
export const REFRESH_RETRY_MS = 60_000;

const KEY = "paiju.session";
const TABLE_KEY = "paiju.table";

function read<T>(key: string): T | null {
  try {
    const text = localStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

export const session = {
  current(): Session | null {
    const s = read<Session>(KEY);
    return s && s.expiresAtMs > Date.now() ? s : null;
  },
  save(s: Session): void {
    localStorage.setItem(KEY, JSON.stringify(s));
  },
  clear(): void {
    localStorage.removeItem(KEY);
    localStorage.removeItem(TABLE_KEY);
  },
};

/** The table the player last sat at, so a reload goes straight back to it. */
export interface SeatMemory {
  roomId: string;
  tableId: string;
  game: string;
  accountId: string;
}

export const seatMemory = {
  get(): SeatMemory | null {
    return read<SeatMemory>(TABLE_KEY);
  },
  save(m: SeatMemory): void {
    localStorage.setItem(TABLE_KEY, JSON.stringify(m));
  },
  clear(): void {
    localStorage.removeItem(TABLE_KEY);
  },
};
