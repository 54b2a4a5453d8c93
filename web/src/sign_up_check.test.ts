// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { passwordProblem, signInProblem, usernameProblem } from "./sign_up_check";

test("the names and passwords the server accepts pass", () => {
  for (const name of ["小明", "alice", "ａｌｉｃｅ", "a b", "x".repeat(32), "𝐚".repeat(32)]) assert.equal(usernameProblem(name), null, name);
  assert.equal(passwordProblem("8 chars!", true), null);
  assert.equal(passwordProblem("x".repeat(1024), true), null);
  assert.equal(passwordProblem("short", false), null, "an old account's password is only checked by the server");
  assert.equal(signInProblem("小明", "a long password", true), null);
});

test("a name the server would refuse says why in Chinese and English", () => {
  assert.equal(usernameProblem(""), "用户名要 1 到 32 个字符 · a username has 1 to 32 characters, got 0");
  assert.match(usernameProblem("x".repeat(33)) ?? "", /^用户名要 1 到 32 个字符 · .*got 33$/);
  assert.match(usernameProblem(" bob") ?? "", /^用户名开头和结尾不能有空格 · /);
  assert.match(usernameProblem("bo\u200bb") ?? "", /^用户名不能含控制字符或不可见字符 · /);
  assert.match(usernameProblem("bo\tb") ?? "", /不可见字符/);
});

test("a new password of fewer than 8 or more than 1024 characters is refused before sending", () => {
  assert.equal(passwordProblem("1234567", true), "密码要 8 到 1024 个字符 · a password has 8 to 1024 characters, got 7");
  assert.match(passwordProblem("x".repeat(1025), true) ?? "", /got 1025$/);
  assert.match(passwordProblem("", false) ?? "", /^密码要 1 到 1024 个字符/);
  // Characters as the server counts them: an emoji is one, not two UTF-16 units.
  assert.match(passwordProblem("😀".repeat(7), true) ?? "", /got 7$/);
  assert.match(signInProblem("", "1234567", true) ?? "", /^用户名/, "the name is said first");
});
