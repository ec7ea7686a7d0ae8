import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import type { CommissionRule } from '../store/programs.js';

/** Percentage input (e.g. 12.5) to basis points; at most two decimals, 0 < p ≤ 100. */
export function percentToBasisPoints(percent: number): number {
  return Math.round(percent * 100);
}

/** Commission in cents: percentages round half up to whole cents, computed in integers (docs/behaviour.md §4.8). */
export function commissionCents(amountCents: number, rule: CommissionRule): number {
  if (rule.type === 'flat') return rule.value;
  return Number((BigInt(amountCents) * BigInt(rule.value) + 5000n) / 10000n);
}

/** Pending until receipt + hold days. */
export function holdUntil(receivedAt: Date, holdDays: number): Date {
  return addDays(receivedAt, holdDays, { in: utc });
}

/**
 * Whether a renewal still earns commission: null months = every renewal, 0 = first payment only,
 * N = renewals received before first sale + N months.
 */
export function renewalEarnsCommission(recurringMonths: number | null, firstSaleAt: Date | undefined, receivedAt: Date): boolean {
  if (recurringMonths === null) return true;
  if (recurringMonths === 0) return false;
  if (firstSaleAt === undefined) return true;
  return receivedAt < addMonths(firstSaleAt, recurringMonths, { in: utc });
}

/** The attribution window runs from the click (or the signup without one) for the program's days. */
export function withinAttributionWindow(startedAt: Date, windowDays: number, receivedAt: Date): boolean {
  return receivedAt <= addDays(startedAt, windowDays, { in: utc });
}
