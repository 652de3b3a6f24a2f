import assert from "node:assert/strict";
import {
  clearedSessionCookie,
  cookieIsSecure,
  readSessionCookie,
  sessionCookie,
} from "./session_cookie.ts";

const TOKEN = "a".repeat(43);

Deno.test("session cookie: HttpOnly, SameSite=Strict, scoped to /admin/, Max-Age the session's life", () => {
  assert.equal(
    sessionCookie(TOKEN, 900.7, true),
    `te_console=${TOKEN}; Path=/admin/; Max-Age=900; HttpOnly; SameSite=Strict; Secure`,
  );
  assert.equal(
    sessionCookie(TOKEN, 0.2, false),
    `te_console=${TOKEN}; Path=/admin/; Max-Age=1; HttpOnly; SameSite=Strict`,
  );
});

Deno.test("session cookie: Secure unless the issuer is plain-http loopback", () => {
  assert.equal(cookieIsSecure("https://auth.example.com"), true);
  assert.equal(cookieIsSecure("https://127.0.0.1:8443"), true);
  assert.equal(cookieIsSecure("http://127.0.0.1:8080"), false);
  assert.equal(cookieIsSecure("http://localhost:8080"), false);
  assert.equal(cookieIsSecure("http://[::1]:8080"), false);
  assert.equal(cookieIsSecure("http://auth.example.com"), true);
});

Deno.test("session cookie: logout clears it with the same attributes", () => {
  assert.equal(
    clearedSessionCookie(true),
    "te_console=; Path=/admin/; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
  );
});

Deno.test("session cookie: read back only when present once and token-shaped", () => {
  assert.equal(readSessionCookie(null), undefined);
  assert.equal(readSessionCookie(`other=1; te_console=${TOKEN}`), TOKEN);
  assert.equal(readSessionCookie(`te_console=${TOKEN}; te_console=${"b".repeat(43)}`), undefined);
  assert.equal(readSessionCookie("te_console=short"), undefined);
  assert.equal(readSessionCookie(`te_console=${"a".repeat(42)}!`), undefined);
  assert.equal(readSessionCookie(`xte_console=${TOKEN}`), undefined);
});
