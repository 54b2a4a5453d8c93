// A form's one call to the server (log in, change the password): what the form shows meanwhile.
import { reasonOf } from "./api";

export interface FormState {
  setError: (error: string) => void;
  setBusy: (busy: boolean) => void;
}

/** Refuse at once with `problem` when the form's own check found one; else make `call` with the
 * form busy, a refusal shown as the form's error in both languages. */
export async function submitForm(problem: string | null, form: FormState, call: () => Promise<void>): Promise<void> {
  if (problem) {
    form.setError(problem);
    return;
  }
  form.setBusy(true);
  form.setError("");
  try {
    await call();
  } catch (e) {
    form.setError(reasonOf(e));
  } finally {
    form.setBusy(false);
  }
}

/** When a session the server answered ends, in the page's milliseconds (`fallback` if unsaid). */
export function expiresAtMs(answer: { expiresAt?: { seconds: bigint } }, fallback: number): number {
  return answer.expiresAt ? Number(answer.expiresAt.seconds) * 1000 : fallback;
}
