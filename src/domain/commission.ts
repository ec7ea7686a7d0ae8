import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import type { CommissionRule } from '../store/programs.js';
import type { CommissionStatus } from '../store/sales.js';

/** Percentage input (e.g. 12.5) to basis points; at most two decimals, 0 < p ≤ 100. */
export function percentToBasisPoints(percent: number): number {
  return Math.round(percent * 100);
}

/** Commission in cents: percentages round half up to whole cents, computed in integers (docs/sales.md#commission). */
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

/**
 * A sale commission as a refund of its sale sees it, with the sale's clawbacks that count (neither
 * rejected nor reversed), each ≤ 0: `openCents` those no payout holds yet (approved), which undoing
 * the commission reverses; `lockedCents` those in a processing or paid payout, which stay.
 */
export type RefundedCommission = { status: CommissionStatus; amountCents: number; percentBp: number | null; openCents: number; lockedCents: number };

/**
 * What a sale's commission becomes once the sale has `remainingCents` left after a refund: its new
 * status and amount, the clawback to create (a negative amount, or 0 for none), and whether its
 * open clawbacks are reversed. What the rest earns is the percentage of it, rounded half up, or the
 * flat amount until nothing is left; what is due is that less what was already clawed back, so the
 * commission and its clawbacks always add up to what the rest earns
 * (docs/books.md#what-a-refund-does-to-a-commission).
 */
export function commissionAfterRefund(
  commission: RefundedCommission,
  remainingCents: number,
): { status: CommissionStatus; amountCents: number; clawbackCents: number; reverseOpen: boolean } {
  const { status, amountCents, percentBp, openCents, lockedCents } = commission;
  const earns = remainingCents === 0 ? 0 : percentBp === null ? amountCents + openCents + lockedCents : commissionCents(remainingCents, { type: 'percent', value: percentBp });
  const unchanged = { status, amountCents, clawbackCents: 0, reverseOpen: false };
  switch (status) {
    case 'pending':
    case 'on_hold':
    case 'approved':
      if (remainingCents > 0) return { ...unchanged, amountCents: earns - openCents - lockedCents };
      // Nothing left: the open clawbacks go with the commission. Clawbacks a payout already took
      // stay, so the commission stays too, at what they took, until it is paid back to the partner.
      return lockedCents === 0 ? { ...unchanged, status: 'reversed', reverseOpen: true } : { ...unchanged, amountCents: -lockedCents, reverseOpen: true };
    case 'processing':
    case 'paid':
      // Never a positive clawback: a commission is only ever taken back.
      return { ...unchanged, clawbackCents: Math.min(0, earns - (amountCents + openCents + lockedCents)) };
    case 'rejected':
    case 'reversed':
      return unchanged;
  }
}
