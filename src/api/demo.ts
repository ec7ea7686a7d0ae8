import { z } from 'zod';
import { instant, platformError } from './common.js';
import { DEMO_DEFAULTS, DEMO_LIMITS } from './constants.js';

export const demoRequestSchema = z.object({
  days: z.int().min(DEMO_LIMITS.days.min).max(DEMO_LIMITS.days.max).default(DEMO_DEFAULTS.days),
  clicks: z.int().min(DEMO_LIMITS.clicks.min).max(DEMO_LIMITS.clicks.max).default(DEMO_DEFAULTS.clicks),
  seed: z.int().min(DEMO_LIMITS.seed.min).max(DEMO_LIMITS.seed.max).default(DEMO_DEFAULTS.seed),
});

export const demoResultSchema = z.object({
  programId: z.int(),
  name: z.string(),
  apiKey: z.string(),
  testApiKey: z.string(),
  memberEmail: z.string(),
  sessionToken: z.string(),
  sessionExpiresAt: instant,
  partnerId: z.int().describe('The first partner, whose portal session this is'),
  partnerSessionToken: z.string(),
  partnerSessionExpiresAt: instant,
  signInCode: z.string().describe("The member's one-time sign-in code, for the dashboard's link"),
  partnerSignInCode: z.string().describe("The partner's one-time sign-in code, for the portal's link"),
  signInCodesExpireAt: instant,
  from: instant.describe('Start of the generated history'),
  to: instant.describe('End of the generated history: now'),
  counts: z.object({
    partners: z.int(),
    clicks: z.int(),
    leads: z.int(),
    conversions: z.int(),
    sales: z.int(),
    renewals: z.int(),
    commissions: z.int(),
  }),
});

/**
 * The steps of a load, in order: writing the clicks day by day; generating and writing the leads,
 * sales and commissions; committing the one transaction.
 */
export const DEMO_PHASES = ['clicks', 'sales', 'commit'] as const;

export const demoProgressSchema = z.object({
  phase: z.enum(DEMO_PHASES),
  done: z.int().describe('Clicks written so far'),
  total: z.int().describe('Clicks to write'),
});

/** A line of the streamed answer: progress lines, then the result or the error (the platform envelope). */
export const demoStreamLineSchema = z.union([
  z.object({ progress: demoProgressSchema }),
  z.object({ result: demoResultSchema }),
  platformError,
]);

export type DemoRequest = z.input<typeof demoRequestSchema>;
/** The options with their defaults filled in, as the loader takes them. */
export type DemoOptions = z.output<typeof demoRequestSchema>;
export type DemoResult = z.output<typeof demoResultSchema>;
export type DemoPhase = (typeof DEMO_PHASES)[number];
export type DemoProgress = z.output<typeof demoProgressSchema>;
export type DemoStreamLine = z.output<typeof demoStreamLineSchema>;
