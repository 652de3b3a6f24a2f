import assert from "node:assert/strict";
import { parseEmailAddress } from "./email_address.ts";

/** Addresses mail software reads in more than one way, or that are not addresses at all. */
const HOSTILE: readonly string[] = [
  "eve@evil.example@example.com", // two @: which domain?
  "eve@evil.example\u0000@example.com", // NUL ends the address for C-based mailers
  "eve@example.com\u0000.evil.example",
  "eve@example.com\n",
  "eve@example.com\r\nBcc: x@evil.example",
  "eve\t@example.com",
  " eve@example.com",
  "eve @example.com",
  "eve@exa mple.com",
  "eve@example.com ",
  "eve\u00a0@example.com", // no-break space
  "eve@exam\u200bple.com", // zero-width space
  "eve@\u0435xample.com", // Cyrillic е
  "eve@éxample.com",
  "ève@example.com",
  "eve\u202e@example.com", // right-to-left override
  "eve\u007f@example.com",
  "eve\u0085@example.com", // C1 control
  "=?utf-8?q?eve=40evil.example?=@example.com", // RFC 2047 encoded word
  "=?x?q?eve=00?=@example.com",
  "eve%evil.example@example.com", // percent-hack routing
  "evil.example!eve@example.com", // bang path
  '"eve@evil.example\\"@example.com', // the quote never closes
  'eve"@evil.example"@example.com', // a quote inside an unquoted local part
  '"eve"x@example.com',
  '"eve\u0000"@example.com',
  '"e ve"@example.com',
  '""@example.com',
  "<eve@evil.example>@example.com",
  "eve@evil.example,alice@example.com",
  "eve(comment)@example.com",
  "eve@example.com(comment)",
  "eve@[127.0.0.1]",
  "eve@[IPv6:::1]",
  "eve@127.0.0.1",
  "eve@localhost",
  "eve@example.com.",
  "eve@.example.com",
  "eve@example..com",
  "eve@-example.com",
  "eve@example-.com",
  "eve@exa_mple.com",
  `eve@${"a".repeat(64)}.com`,
  `eve@${"a.".repeat(127)}com`,
  ".eve@example.com",
  "eve.@example.com",
  "e..ve@example.com",
  `${"a".repeat(65)}@example.com`,
  "@example.com",
  "eve@",
  "eve",
  "",
];

Deno.test("parseEmailAddress() refuses every hostile or ambiguous address in the table", () => {
  for (const address of HOSTILE) {
    assert.equal(parseEmailAddress(address), undefined, JSON.stringify(address));
  }
});

Deno.test("parseEmailAddress() accepts ordinary addresses and lower-cases the domain", () => {
  const accepted: [string, string, string][] = [
    ["alice@example.com", "alice", "example.com"],
    ["Alice.Smith+tag@Mail.Example.COM", "Alice.Smith+tag", "mail.example.com"],
    ["o'brien@example.co.uk", "o'brien", "example.co.uk"],
    ["x_y-z#1@a-b.example", "x_y-z#1", "a-b.example"],
    ["user@xn--bcher-kva.example", "user", "xn--bcher-kva.example"],
    ["abc123@privaterelay.appleid.com", "abc123", "privaterelay.appleid.com"],
    // Inside quotes an @ is part of the local part: the address has one domain, example.com.
    ['"eve@evil.example"@example.com', '"eve@evil.example"', "example.com"],
    ['"a\\"b"@example.com', '"a\\"b"', "example.com"],
    [`${"a".repeat(64)}@${"b".repeat(63)}.com`, "a".repeat(64), `${"b".repeat(63)}.com`],
  ];
  for (const [address, local, domain] of accepted) {
    assert.deepEqual(parseEmailAddress(address), { local, domain }, address);
  }
});
