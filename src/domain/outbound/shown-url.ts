/** An endpoint's URL as lists and mails show it: without the user name and password it may carry (docs/outbound-webhooks.md#secrets). */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}
