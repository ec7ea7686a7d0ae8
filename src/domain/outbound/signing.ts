import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes (docs/outbound-webhooks.md#secrets). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks signature header: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
 * keyed with each secret's decoded bytes, space-separated (two during a rotation).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
