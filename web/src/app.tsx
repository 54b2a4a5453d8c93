// The page: log in, then the lobby or the table the player sits at.
import { render } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { Code, codeOf, lobby, reasonOf, wallet } from "./api";
import { HandsDialog } from "./history";
import { LobbyScreen } from "./lobby";
import { GAMES } from "./labels";
import { LoginScreen } from "./login";
import { PasswordDialog } from "./password";
import { expiresAtMs } from "./form_call";
import { REFRESH_RETRY_MS, refreshInMs, seatMemory, session, type SeatMemory, type Session } from "./session";
import { TableScreen } from "./table";
import { coins, sleep } from "./util";
import { CoinIcon } from "./coin";

interface Money {
  available: number;
  held: number;
  level: string;
}

function App() {
  const [me, setMe] = useState<Session | null>(session.current());
  const [seat, setSeat] = useState<SeatMemory | null>(null);
  const [money, setMoney] = useState<Money | null>(null);
  const [notice, setNotice] = useState<string>("");
  const [checked, setChecked] = useState(false);
  const [handsOpen, setHandsOpen] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);

  const fetchMoney = async (): Promise<Money | null> => {
    try {
      const balance = await wallet.getBalance({});
      let level = "";
      try {
        const l = await wallet.level({ game: "zhajinhua", accountId: balance.accountId });
        level = `Lv ${l.level} ${l.title}`;
      } catch {
        level = "";
      }
      const fresh = { available: Number(balance.available), held: Number(balance.held), level };
      setMoney(fresh);
      return fresh;
    } catch (error) {
      if (codeOf(error) === Code.Unauthenticated) logOut("Your session ended: please log in again.");
      return null;
    }
  };

  // A hand's end reaches the table before the ledger (its settlement is applied a moment later, by
  // the worker): after one, the balance is asked again until nothing is held, for up to a minute.
  const settling = useRef(0);
  // While a hand that ended is being settled the header says so: the table shows the new coins
  // at once, the ledger's balance a moment later.
  const [settlingNow, setSettlingNow] = useState(false);
  const refreshMoney = useCallback(async (handEnded = false) => {
    const round = ++settling.current;
    let fresh = await fetchMoney();
    // The ended hand's holds: once they change, its settlement has landed (or another hand holds).
    const heldAtTheEnd = fresh?.held ?? 0;
    setSettlingNow(handEnded && heldAtTheEnd > 0);
    for (let wait = 500; handEnded && fresh && fresh.held === heldAtTheEnd && heldAtTheEnd > 0 && round === settling.current && wait < 60_000; wait *= 1.5) {
      await sleep(wait);
      if (round !== settling.current) return;
      fresh = await fetchMoney();
    }
    if (round === settling.current) setSettlingNow(false);
  }, []);

  const logOut = (message = "") => {
    session.clear();
    setMe(null);
    setSeat(null);
    setMoney(null);
    setNotice(message);
  };

  // A live session is extended halfway through its life, for as long as the page is open (and at
  // the first visit after that point): an evening at the table never ends at a login screen.
  useEffect(() => {
    if (!me) return;
    let timer: ReturnType<typeof setTimeout>;
    const extend = async () => {
      try {
        const fresh = await wallet.refreshSession({});
        const extended = { ...me, token: fresh.token, expiresAtMs: expiresAtMs(fresh, me.expiresAtMs), issuedAtMs: Date.now() };
        session.save(extended);
        setMe(extended);
      } catch (error) {
        if (codeOf(error) === Code.Unauthenticated) logOut("Your session ended: please log in again.");
        else timer = setTimeout(extend, REFRESH_RETRY_MS);
      }
    };
    timer = setTimeout(extend, refreshInMs(me, Date.now()));
    return () => clearTimeout(timer);
  }, [me?.token]);

  // After logging in or reloading: back to the seat the player holds, if any.
  useEffect(() => {
    if (!me) return;
    setChecked(false);
    (async () => {
      await refreshMoney();
      const remembered = seatMemory.get();
      if (remembered && remembered.accountId === me.accountId) {
        setSeat(remembered);
      } else {
        const found = await findMySeat(me.accountId);
        if (found) {
          seatMemory.save(found);
          setSeat(found);
        }
      }
      setChecked(true);
    })();
  }, [me?.accountId]);

  if (!me) {
    return (
      <LoginScreen
        notice={notice}
        onLoggedIn={(s) => {
          session.save(s);
          setNotice("");
          setMe(s);
        }}
      />
    );
  }
  return (
    <div class="app">
      <header class="topbar">
        <div class="brand">
          牌局 <small>Paiju</small>
        </div>
        <div class="me" data-testid="me">
          <span class="avatar-mini">{me.username.slice(0, 1).toUpperCase()}</span>
          <span class="name">{me.username}</span>
          {money && (
            <span
              class="balance"
              data-testid="balance"
              data-available={money.available}
              data-held={money.held}
              title={
                money.held > 0
                  ? `${coins(money.held)} of these are held for the hand in play: the most it can cost you. What it does not cost comes back when it is settled.`
                  : "your coins"
              }
            >
              <CoinIcon />
              {coins(money.available + money.held)}
              {money.held > 0 &&
                (settlingNow ? (
                  <small class="held" data-testid="settling"> · ⏳ 结算中 settling the last hand…</small>
                ) : (
                  <small class="held"> · 🔒 {coins(money.held)} 本局冻结 in play</small>
                ))}
            </span>
          )}
          {money?.level && (
            <span class="level" data-testid="level" title="等级 Your level follows your coins: the more you hold, the higher it is">
              {money.level}
            </span>
          )}
          <button class="link" data-testid="open-hands" onClick={() => setHandsOpen(true)}>
            牌谱 My hands
          </button>
          <button class="link" data-testid="open-change-password" onClick={() => setPasswordOpen(true)}>
            改密码 Password
          </button>
          <button class="link" onClick={() => logOut()}>
            退出 Log out
          </button>
        </div>
      </header>
      {handsOpen && <HandsDialog onClose={() => setHandsOpen(false)} />}
      {passwordOpen && (
        <PasswordDialog
          me={me}
          onClose={(message) => {
            setPasswordOpen(false);
            if (message) {
              // The fresh token the server answered is saved: this page's session goes on.
              setMe(session.current());
              setNotice(message);
            }
          }}
        />
      )}
      {notice && (
        <div class="notice" data-testid="notice" onClick={() => setNotice("")}>
          {notice}
        </div>
      )}
      {!checked ? (
        <div class="loading">…</div>
      ) : seat ? (
        <TableScreen
          key={seat.tableId}
          seat={seat}
          me={me}
          onMoneyChanged={refreshMoney}
          onLeave={(message) => {
            seatMemory.clear();
            setSeat(null);
            setNotice(message ?? "");
            refreshMoney();
          }}
        />
      ) : (
        <LobbyScreen
          me={me}
          onError={setNotice}
          onSeated={(s) => {
            seatMemory.save(s);
            setNotice("");
            setSeat(s);
          }}
        />
      )}
    </div>
  );
}

/** The room where the account already sits (a seat kept from another device or tab). */
async function findMySeat(accountId: string): Promise<SeatMemory | null> {
  for (const game of GAMES) {
    try {
      const { rooms } = await lobby.listRooms({ game: game.name });
      for (const room of rooms) {
        if (room.seats.some((s) => s.accountId === accountId)) {
          return { roomId: room.roomId, tableId: room.tableId, game: game.name, accountId };
        }
      }
    } catch (error) {
      console.warn("listing rooms failed", reasonOf(error));
    }
  }
  return null;
}

render(<App />, document.getElementById("app")!);
