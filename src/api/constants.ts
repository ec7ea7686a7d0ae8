/**
 * The contract's constants, apart from the schemas: commands read them for their flags without
 * loading zod and every schema (docs/architecture.md §15). The schema modules build on them.
 */

/** The program's commission when POST /api/admin/programs names none. */
export const DEFAULT_COMMISSION_PERCENT = 20;

export const PERIODS = ['7d', '30d', '90d', 'all'] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = '7d';

export const DEMO_DEFAULTS = { days: 90, clicks: 200_000, seed: 42 };
/** Accepted ranges of the options, the same for the CLI and the admin route. */
export const DEMO_LIMITS = { days: { min: 1, max: 3650 }, clicks: { min: 0, max: 100_000_000 }, seed: { min: 0, max: 2 ** 32 - 1 } } as const;
