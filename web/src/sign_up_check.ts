// The server's checks of a new account (services/paiju/wallet/validation.py), made before sending
// so a person learns at once, in both languages, what to change. The server still checks; these
// must not refuse anything it accepts.

export const USERNAME_MAX = 32;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

/** Characters as Python counts them (code points), not UTF-16 units. */
const length = (text: string) => [...text].length;

/** What is wrong with a username (as it will be sent: NFKC, as the server reads it), or null. */
export function usernameProblem(username: string): string | null {
  const name = username.normalize("NFKC");
  const count = length(name);
  if (count < 1 || count > USERNAME_MAX) {
    return `用户名要 1 到 ${USERNAME_MAX} 个字符 · a username has 1 to ${USERNAME_MAX} characters, got ${count}`;
  }
  if (name !== name.trim()) return "用户名开头和结尾不能有空格 · a username may not start or end with a space";
  if (/\p{C}/u.test(name)) {
    return "用户名不能含控制字符或不可见字符 · a username may not contain control or invisible characters";
  }
  return null;
}

/** What is wrong with a password, or null: a new one has 8 to 1024 characters, one to log in with 1 or more. */
export function passwordProblem(password: string, registering: boolean): string | null {
  const shortest = registering ? PASSWORD_MIN : 1;
  const count = length(password);
  if (count >= shortest && count <= PASSWORD_MAX) return null;
  return `密码要 ${shortest} 到 ${PASSWORD_MAX} 个字符 · a password has ${shortest} to ${PASSWORD_MAX} characters, got ${count}`;
}

/** The first thing to fix before logging in or registering, or null. */
export function signInProblem(username: string, password: string, registering: boolean): string | null {
  return usernameProblem(username) ?? passwordProblem(password, registering);
}
