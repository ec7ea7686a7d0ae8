import { describe, expect, test } from 'vitest';
import { shiftEventTimes } from '../../src/cli/stripe-fixtures.js';

describe('shiftEventTimes (webhook replay)', () => {
  test("moves every instant by the same amount so that created is the given now; other numbers stay", () => {
    const event = {
      id: 'evt_1',
      created: 1_772_366_400, // 2026-03-01T12:00:00Z
      data: {
        object: {
          created: 1_772_366_100,
          amount_paid: 1_999_999_999,
          period_start: 1_769_688_000,
          period_end: 1_772_366_400,
          status_transitions: { paid_at: 1_772_366_390, voided_at: null },
          lines: { data: [{ period: { start: 1_772_366_400, end: 1_775_044_800 } }] },
          subscription_details: { metadata: { started_at: 'yesterday', end: 12 } },
        },
      },
    };
    shiftEventTimes(event, new Date('2026-11-22T12:00:00.500Z'));
    const delta = 1_795_348_800 - 1_772_366_400;
    expect(event).toEqual({
      id: 'evt_1',
      created: 1_795_348_800,
      data: {
        object: {
          created: 1_772_366_100 + delta,
          amount_paid: 1_999_999_999,
          period_start: 1_769_688_000 + delta,
          period_end: 1_772_366_400 + delta,
          status_transitions: { paid_at: 1_772_366_390 + delta, voided_at: null },
          lines: { data: [{ period: { start: 1_772_366_400 + delta, end: 1_775_044_800 + delta } }] },
          subscription_details: { metadata: { started_at: 'yesterday', end: 12 } },
        },
      },
    });
  });

  test('an event without a numeric created is left as written', () => {
    const event = { id: 'evt_2', created: 'soon', data: { object: { paid_at: 1_772_366_390 } } };
    shiftEventTimes(event, new Date('2026-11-22T12:00:00Z'));
    expect(event).toEqual({ id: 'evt_2', created: 'soon', data: { object: { paid_at: 1_772_366_390 } } });
  });
});
