// Change the password: the old one, the new one twice. The server ends every other session of
// the account and answers a fresh token for this one, which the page keeps.
import { useState } from "preact/hooks";
import { wallet } from "./api";
import { expiresAtMs, submitForm } from "./form_call";
import { session, type Session } from "./session";
import { passwordProblem } from "./sign_up_check";

export function PasswordDialog({ me, onClose }: { me: Session; onClose: (message?: string) => void }) {
  const [oldPassword, setOldPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const change = async () => {
    const problem =
      newPassword !== repeated
        ? "两次输入的新密码不一致 · the new password and its repetition differ"
        : passwordProblem(newPassword, true);
    await submitForm(problem, { setError, setBusy }, async () => {
      const fresh = await wallet.changePassword({ oldPassword, newPassword });
      session.save({ ...me, token: fresh.token, expiresAtMs: expiresAtMs(fresh, me.expiresAtMs), issuedAtMs: Date.now() });
      onClose("密码已修改，其他设备需重新登录 · Password changed: your other devices must log in again.");
    });
  };

  const field = (label: string, name: string, value: string, set: (v: string) => void, autocomplete: string) => (
    <label>
      {label}
      <input
        name={name}
        type="password"
        autocomplete={autocomplete}
        value={value}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
      />
    </label>
  );

  return (
    <div class="modal-back" onClick={() => onClose()}>
      <form
        class="modal login password"
        data-testid="change-password"
        onClick={(e) => e.stopPropagation()}
        onSubmit={(e) => {
          e.preventDefault();
          change();
        }}
      >
        <h2>修改密码 Change password</h2>
        {field("原密码 Current password", "old-password", oldPassword, setOldPassword, "current-password")}
        {field("新密码 New password", "new-password", newPassword, setNewPassword, "new-password")}
        {field("再输一次 New password again", "repeat-password", repeated, setRepeated, "new-password")}
        {error && (
          <p class="error" data-testid="password-error">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="submit" class="primary" name="change-password" disabled={busy}>
            修改 Change
          </button>
          <button type="button" disabled={busy} onClick={() => onClose()}>
            取消 Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
