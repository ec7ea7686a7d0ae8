import { z } from 'zod';
import { instant, pathId } from './common.js';
import { APPLICATION_STATUSES } from './constants.js';

/** The longest text each field of an application takes (docs/applications.md#the-application-page). */
export const APPLICATION_LIMITS = { name: 200, email: 255, website: 2048, message: 2000, reason: 1000 } as const;

export const applicationParams = z.object({ applicationId: pathId });

/** What the public application page posts: a name, an e-mail, optionally a website and a message. */
export const applicationRequestSchema = z.object({
  name: z.string().trim().min(1, 'a name').max(APPLICATION_LIMITS.name, `at most ${APPLICATION_LIMITS.name} characters`),
  email: z.email('an e-mail address').max(APPLICATION_LIMITS.email, `at most ${APPLICATION_LIMITS.email} characters`),
  website: z
    .url({ protocol: /^https?$/, error: 'an http or https URL' })
    .max(APPLICATION_LIMITS.website, `at most ${APPLICATION_LIMITS.website} characters`)
    .optional(),
  message: z.string().max(APPLICATION_LIMITS.message, `at most ${APPLICATION_LIMITS.message} characters`).optional(),
});

/** The one answer to an application, whoever applied and however often. */
export const applicationReceivedSchema = z.object({ message: z.string() });

/** What the application page shows of a program that takes applications. */
export const publicProgramSchema = z.object({ id: z.int(), name: z.string() });

export const applicationsQuerySchema = z.object({ status: z.enum(APPLICATION_STATUSES).optional() });

export const rejectApplicationRequestSchema = z.object({
  reason: z.string().trim().min(1, 'a reason').max(APPLICATION_LIMITS.reason, `at most ${APPLICATION_LIMITS.reason} characters`),
});

export const applicationSchema = z.object({
  id: z.int(),
  programId: z.int(),
  name: z.string(),
  email: z.string(),
  website: z.string().nullable(),
  message: z.string().nullable(),
  status: z.enum(APPLICATION_STATUSES),
  reason: z.string().nullable().describe('Why it was rejected'),
  partnerId: z.int().nullable().describe('The partner an approval enrolled'),
  createdAt: instant,
  decidedAt: instant.nullable(),
});
export const applicationListSchema = z.object({ data: z.array(applicationSchema) });

export type ApplicationRequest = z.input<typeof applicationRequestSchema>;
export type ApplicationReceived = z.output<typeof applicationReceivedSchema>;
export type PublicProgram = z.output<typeof publicProgramSchema>;
export type Application = z.output<typeof applicationSchema>;
export type ApplicationList = z.output<typeof applicationListSchema>;
export type RejectApplicationRequest = z.input<typeof rejectApplicationRequestSchema>;
