import { describe, expect, test } from 'vitest';
import { clockFromEnv, fixedClock, systemClock } from '../../src/clock.js';

describe('the service clock (docs/api.md#time-and-the-one-clock)', () => {
  test('PARTNERKIT_NOW pins every reading to that instant', async () => {
    const clock = clockFromEnv({ PARTNERKIT_NOW: '2026-03-01T10:00:00+02:00' });
    expect(clock.now().toISOString()).toBe('2026-03-01T08:00:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.now().toISOString()).toBe('2026-03-01T08:00:00.000Z');
  });

  test('without PARTNERKIT_NOW it is the system clock', () => {
    expect(clockFromEnv({})).toBe(systemClock);
  });

  test('a PARTNERKIT_NOW that is not an instant is refused', () => {
    expect(() => fixedClock('tomorrow')).toThrow(/PARTNERKIT_NOW/);
  });
});
