// Run by tests/web/test_web_units.py (bundled by esbuild, then `node --test`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { bilingual } from "./refusals";

test("a refusal with a known code reads in Chinese, then the server's English particulars", () => {
  assert.equal(bilingual("username_taken", "the username 'newbie' is taken"), "用户名已被占用 · the username 'newbie' is taken");
  assert.equal(
    bilingual("invalid_argument", "a password has 8 to 1024 characters, got 5"),
    "输入不符合要求 · a password has 8 to 1024 characters, got 5",
  );
});

test("an unknown or missing code leaves the English alone", () => {
  assert.equal(bilingual(undefined, "something"), "something");
  assert.equal(bilingual("a_code_from_a_newer_server", "something"), "something");
});
