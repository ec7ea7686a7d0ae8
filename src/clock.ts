/** The service's one clock (docs/api.md#time-and-the-one-clock): only this module reads the system time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) throw new Error(`PARTNERKIT_NOW is not an ISO 8601 instant: ${iso}`);
  return { now: () => new Date(instant) };
}

/** PARTNERKIT_NOW pins the clock for tests, demos and fixture replays. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  return env.PARTNERKIT_NOW ? fixedClock(env.PARTNERKIT_NOW) : systemClock;
}
