import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A random token with a readable prefix, e.g. pk_live_…; 24 bytes of entropy by default. */
export function randomToken(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** A short, unambiguous lowercase code for referral links (32^10 ≈ 10^15 values). */
export function randomCode(length = 10): string {
  let code = '';
  for (let i = 0; i < length; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}
