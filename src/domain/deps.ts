import type { Clock } from '../clock.js';
import type { Store } from '../store/db.js';
import type { MailSettings } from './mail/settings.js';

/** What every domain function receives: the store, the one clock, and how to mail when `serve` mails (docs/mail.md#configuration). */
export type Deps = { store: Store; clock: Clock; mail?: MailSettings };
