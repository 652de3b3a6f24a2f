import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import {
  APPLE_AUDIENCE,
  APPLE_SECRET_LIFETIME,
  APPLE_SECRET_RENEW_BEFORE,
  AppleClientSecret,
  importAppleKey,
} from "./apple_client_secret.ts";

const settings = { teamId: "TEAM123456", clientId: "com.example.web", keyId: "KEY1234567" };

async function p8() {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { pem: await exportPKCS8(privateKey), publicKey };
}

Deno.test("AppleClientSecret mints the ES256 JWT Apple wants: iss team, sub client, aud, kid", async () => {
  const { pem, publicKey } = await p8();
  const clock = new FixedClock(1_767_225_600_000);
  const secret = await new AppleClientSecret(settings, await importAppleKey(pem), clock).get();
  assert.deepEqual(decodeProtectedHeader(secret), { alg: "ES256", kid: "KEY1234567" });
  const { payload } = await jwtVerify(secret, publicKey, {
    issuer: "TEAM123456",
    subject: "com.example.web",
    audience: APPLE_AUDIENCE,
    currentDate: new Date(clock.now()),
  });
  assert.deepEqual(payload, {
    iss: "TEAM123456",
    sub: "com.example.web",
    aud: "https://appleid.apple.com",
    iat: 1_767_225_600,
    exp: 1_767_225_600 + APPLE_SECRET_LIFETIME,
  });
});

Deno.test("AppleClientSecret reuses one secret until shortly before it expires", async () => {
  const { pem } = await p8();
  const clock = new FixedClock(1_767_225_600_000);
  const apple = new AppleClientSecret(settings, await importAppleKey(pem), clock);
  const [a, b] = await Promise.all([apple.get(), apple.get()]);
  assert.equal(a, b, "concurrent callers share one signature");
  clock.advance((APPLE_SECRET_LIFETIME - APPLE_SECRET_RENEW_BEFORE) * 1000 - 1);
  assert.equal(await apple.get(), a, "still well before expiry");
  clock.advance(1);
  const renewed = await apple.get();
  assert.notEqual(renewed, a);
  assert.equal(await apple.get(), renewed);
});

Deno.test("importAppleKey() takes \\n-escaped PEM text and refuses anything but a P-256 key", async () => {
  const { pem } = await p8();
  await importAppleKey(pem.trim().replaceAll("\n", "\\n"));
  const rsa = await generateKeyPair("RS256", { extractable: true });
  for (const bad of ["", "not a key", await exportPKCS8(rsa.privateKey)]) {
    await assert.rejects(importAppleKey(bad), /is not a PKCS#8 EC P-256 private key/);
  }
});
