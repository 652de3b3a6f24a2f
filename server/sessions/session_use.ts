/**
 * When each session was last used, recorded coarsely so the refresh path pays for it at most
 * once per {@linkcode LAST_USED_GRANULARITY_MS} per session and instance: the sessions list
 * (`GET /sessions`) shows it as `last_used_at`.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import type { SessionFamily, SessionStore } from "../store/sessions.ts";

/** How stale `last_used_at` may be (ms): five minutes, far finer than "which device is this". */
export const LAST_USED_GRANULARITY_MS = 5 * 60_000;

/** Sessions remembered per instance before the memory starts over (each entry a few dozen bytes). */
const MAX_REMEMBERED = 100_000;

/** Records session uses, throttled per session in this process's memory. */
export class SessionUse {
  readonly #recorded = new Map<string, number>();

  /**
   * @param store where uses are recorded (`markUsed`)
   * @param log where a failed write is noted (the refresh it follows has already succeeded)
   */
  constructor(
    private readonly store: Pick<SessionStore, "markUsed">,
    private readonly log: Logger,
  ) {}

  /**
   * A session just started at `now`: its `created_at` is its use, so nothing is written; the
   * next write comes a whole granularity later.
   */
  started(familyId: string, now: number): void {
    this.#remember(familyId, now);
  }

  /**
   * The session refreshed at `now`: writes the use unless this process wrote one for it less
   * than {@linkcode LAST_USED_GRANULARITY_MS} ago. Never awaited by the refresh; a failure is
   * logged at debug and the next use tries again.
   */
  refreshed(family: Pick<SessionFamily, "id" | "expires_at">, now: number): void {
    const last = this.#recorded.get(family.id);
    if (last !== undefined && now - last < LAST_USED_GRANULARITY_MS) return;
    this.#remember(family.id, now);
    this.store.markUsed(family, now).catch((err) => {
      this.#recorded.delete(family.id);
      this.log.debug("session use not recorded", { family: family.id, err });
    });
  }

  #remember(id: string, now: number): void {
    // Dropping everything at the cap is simple and bounded: each session then writes once more.
    if (this.#recorded.size >= MAX_REMEMBERED) this.#recorded.clear();
    this.#recorded.set(id, now);
  }
}
