/** How `serve` mails (docs/mail.md#configuration): absent, nothing is mailed and everything else works as before. */
export type MailSettings = {
  /** The From header, e.g. `Acme Partners <partners@acme.example>`. */
  from: string;
  /** Where links in mails point: --public-url, else the address `serve` listens on; no trailing slash. */
  publicUrl: string;
  /** Signs unsubscribe links (docs/mail.md#notifications-and-unsubscribing): derived from the admin token, the same on every instance. */
  unsubscribeKey: string;
};

/** A base URL without its trailing slashes, so paths can be appended. */
export const baseUrl = (url: string): string => url.replace(/\/+$/, '');
