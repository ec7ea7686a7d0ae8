import { z } from 'zod';
import { pathId } from './common.js';

export const partnerLinkParams = z.object({ refCode: z.string().min(1).max(255) });

export const partnerLinkQuerySchema = z.object({
  to: z.string().max(2048).optional().describe("A path or URL on the landing URL's origin to send the visitor to instead; anything else is ignored"),
});

/** The tracking script names its program: the cookie lives as long as that program's attribution window. */
export const trackingScriptQuerySchema = z.object({ program: pathId });

export const enrollmentParams = z.object({ programId: pathId, partnerId: pathId });

export const partnerLinksSchema = z.object({
  programId: z.int(),
  partnerId: z.int(),
  refCode: z.string(),
  status: z.enum(['active', 'inactive']),
  linkPath: z.string().describe('The partner link on this server, /r/<refCode>: it records a click and redirects to the landing URL'),
  landingUrl: z.string().nullable().describe("The program's landing URL; null until it is set"),
  viaUrl: z.string().nullable().describe('The landing URL with ?via=<refCode>, for pages that load the tracking script'),
});

export type PartnerLinks = z.output<typeof partnerLinksSchema>;
