// The session kept across reloads: the token the wallet gave and whose it is.
export interface Session {
  token: string;
  accountId: string;
  username: string;
  expiresAtMs: number;
}

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
