import assert from "node:assert/strict";
import type { SessionFamily } from "../store/sessions.ts";
import { isLiveSession } from "./live_session.ts";

const family = (extra: Partial<SessionFamily> = {}): SessionFamily => ({
  id: "ses_1",
  user_id: "usr_1",
  created_at: 0,
  expires_at: 1000,
  revoked: false,
  ...extra,
});

Deno.test("isLiveSession() is true only before expires_at and while not revoked", () => {
  assert.equal(isLiveSession(family(), 999), true);
  assert.equal(isLiveSession(family(), 1000), false, "ends at expires_at");
  assert.equal(isLiveSession(family({ revoked: true, revoked_at: 10 }), 500), false);
});
