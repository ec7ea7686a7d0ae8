import { describe, expect, test } from 'vitest';
import { afterMailAttempt } from '../../src/domain/mail/sender.js';
import type { DeliveryRow } from '../../src/store/outbox.js';

/** The mail retry schedule (docs/mail.md#retries). */
describe('afterMailAttempt', () => {
  const created = new Date('2026-03-01T12:00:00.000Z');
  const delivery = (attempts: number): DeliveryRow => ({
    id: 1, message_id: 1, channel: 'mail', target_id: 0, status: 'pending', attempts, next_attempt_at: created, lease_owner: null, lease_until: null, created_at: created,
  });
  const plus = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

  test.each([
    [0, 5],
    [1, 15],
    [2, 30],
    [3, 60],
    [4, 300],
    [50, 300],
  ])('after failed attempt %i + 1 the next is %i s later', (attempts, wait) => {
    const at = plus(created, 100);
    expect(afterMailAttempt(delivery(attempts), false, at)).toEqual({ id: 1, status: 'pending', attempts: attempts + 1, next_attempt_at: plus(at, wait) });
  });

  test('delivered when the server accepted it', () => {
    expect(afterMailAttempt(delivery(7), true, created)).toEqual({ id: 1, status: 'delivered', attempts: 8, next_attempt_at: null });
  });

  test('failed for good when the next attempt would be more than 24 hours after the mail was written', () => {
    expect(afterMailAttempt(delivery(200), false, plus(created, 86_400 - 300))).toMatchObject({ status: 'pending', next_attempt_at: plus(created, 86_400) });
    expect(afterMailAttempt(delivery(201), false, plus(created, 86_400 - 299))).toEqual({ id: 1, status: 'failed', attempts: 202, next_attempt_at: null });
  });
});
