import type { FastifyServerOptions } from 'fastify';
import { z } from 'zod';

/**
 * Which connections are proxies whose `X-Forwarded-For` names the client
 * (docs/api.md#rate-limits): none (false); the nearest hop, whatever its address (true:
 * the bare `serve --trust-proxy`); or only peers at these addresses and CIDR ranges.
 */
export type TrustProxy = boolean | readonly string[];

const proxyAddress = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);

/** `serve --trust-proxy`'s value: `true`, `false`, or a comma-separated list of addresses and CIDR ranges. */
export function parseTrustProxy(value: string): TrustProxy {
  const trimmed = value.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  const entries = trimmed.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !proxyAddress.safeParse(entry).success);
  if (bad.length > 0) {
    throw new Error(`${bad.map((entry) => JSON.stringify(entry)).join(', ')}: not an IP address or CIDR range (give true, false, or addresses and ranges such as 10.0.0.0/8,127.0.0.1)`);
  }
  return entries;
}

/**
 * Fastify's `trustProxy` for it: a list goes to proxy-addr, which walks `X-Forwarded-For` from the
 * right while the hop is one of the proxies; `true` trusts one hop, the address the nearest proxy
 * appended, so whatever a client wrote before it is its own claim.
 */
export function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (trust === true) return (_address: string, hop: number) => hop === 0;
  return trust === false ? false : [...trust];
}
