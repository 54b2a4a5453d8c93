// Log in or register; the wallet gives a session token that the page keeps across reloads.
import { useState } from "preact/hooks";
import { wallet, whenAdmitted } from "./api";
import { expiresAtMs, submitForm } from "./form_call";
import type { LoginResponse, RegisterResponse } from "./gen/paiju/v1/wallet_pb";
import type { Session } from "./session";
import { signInProblem } from "./sign_up_check";

export function LoginScreen({ notice, onLoggedIn }: { notice: string; onLoggedIn: (s: Session) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [queued, setQueued] = useState(false);

  const go = async (register: boolean) => {
    const request = { username: username.trim(), password };
    await submitForm(signInProblem(request.username, password, register), { setError, setBusy }, async () => {
      try {
        const r = await whenAdmitted<RegisterResponse | LoginResponse>(
          () => (register ? wallet.register(request) : wallet.login(request)),
          setQueued,
        );
        onLoggedIn({
          token: r.token, accountId: r.accountId, username: r.username,
          expiresAtMs: expiresAtMs(r, Date.now() + 3600_000), issuedAtMs: Date.now(),
        });
      } finally {
        setQueued(false);
      }
    });
  };

  return (
    <div class="login-page">
      <form
        class="login"
        onSubmit={(e) => {
          e.preventDefault();
          go(false);
        }}
      >
        <h1>
          牌局 <small>Paiju</small>
        </h1>
        <p class="tagline">炸金花 · 混战 · 炒地皮</p>
        <div class="fan">
          <span class="mini-card red">A♥</span>
          <span class="mini-card">K♠</span>
          <span class="mini-card red">Q♦</span>
        </div>
        {notice && <p class="info">{notice}</p>}
        <label>
          用户名 Username
          <input
            name="username"
            autocomplete="username"
            value={username}
            onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          密码 Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </label>
        {queued && !error && (
          <p class="info" data-testid="login-queued">
            服务器忙，稍候自动重试… The server is busy: trying again in a moment…
          </p>
        )}
        {error && (
          <p class="error" data-testid="login-error">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="submit" class="primary" name="login" disabled={busy}>
            登录 Log in
          </button>
          <button type="button" name="register" disabled={busy} onClick={() => go(true)}>
            注册 Register
          </button>
        </div>
        <p class="hint">New here? Pick a name and a password of 8+ characters and press 注册 Register: you start with 20,000 coins.</p>
      </form>
    </div>
  );
}
