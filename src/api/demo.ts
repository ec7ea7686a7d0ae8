import { z } from 'zod';
import { instant } from './common.js';
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

export type DemoRequest = z.input<typeof demoRequestSchema>;
/** The options with their defaults filled in, as the loader takes them. */
export type DemoOptions = z.output<typeof demoRequestSchema>;
export type DemoResult = z.output<typeof demoResultSchema>;
