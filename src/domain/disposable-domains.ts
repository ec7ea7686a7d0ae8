import { createRequire } from 'node:module';

/*
 * The disposable-mail domains of the fraud rule disposable_email (docs/fraud.md#the-rules): the list
 * of the `disposable-email-domains` package, a maintained list that updates with its releases, read
 * once, on the first check.
 */

let domains: ReadonlySet<string> | undefined;

function list(): ReadonlySet<string> {
  domains ??= new Set(createRequire(import.meta.url)('disposable-email-domains') as string[]);
  return domains;
}

/** The listed domain that `domain` is or is under (`a.mailinator.com` is under `mailinator.com`); undefined when none. */
export function disposableDomain(domain: string): string | undefined {
  const parts = domain.toLowerCase().split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    const candidate = parts.slice(i).join('.');
    if (list().has(candidate)) return candidate;
  }
  return undefined;
}
