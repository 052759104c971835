/** The one source of time. Tests inject a fake clock to move time (token expiry, idle sign-out, purge). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told: for tests. */
export class FakeClock implements Clock {
  #ms: number;
  constructor(start: Date | string = "2026-11-21T09:00:00Z") {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}
