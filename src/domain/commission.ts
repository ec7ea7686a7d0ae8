import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import type { CommissionRule } from '../store/programs.js';
import type { CommissionStatus } from '../store/sales.js';

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

/** A commission as a refund of its sale sees it; `clawedBackCents` sums its sale's clawbacks so far (≤ 0). */
export type RefundedCommission = { status: CommissionStatus; amountCents: number; percentBp: number | null; clawedBackCents: number };

/**
 * What a sale's commission becomes once the sale has `remainingCents` left after a refund
 * (docs/behaviour.md §12.4): the commission's new status and amount, and the clawback to create
 * (a negative amount, or 0 for none). What is due on the rest is the percentage of it, rounded half
 * up, or the flat amount until nothing is left.
 */
export function commissionAfterRefund(
  commission: RefundedCommission,
  remainingCents: number,
): { status: CommissionStatus; amountCents: number; clawbackCents: number } {
  const { status, amountCents, percentBp } = commission;
  const due = remainingCents === 0 ? 0 : percentBp === null ? amountCents : commissionCents(remainingCents, { type: 'percent', value: percentBp });
  switch (status) {
    case 'pending':
    case 'approved':
      return remainingCents === 0 ? { status: 'reversed', amountCents, clawbackCents: 0 } : { status, amountCents: due, clawbackCents: 0 };
    case 'processing':
    case 'paid':
      // Never a positive clawback: a commission is only ever taken back.
      return { status, amountCents, clawbackCents: Math.min(0, due - (amountCents + commission.clawedBackCents)) };
    case 'rejected':
    case 'reversed':
      return { status, amountCents, clawbackCents: 0 };
  }
}
