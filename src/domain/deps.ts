import type { Clock } from '../clock.js';
import type { Store } from '../store/db.js';

/** What every domain function receives: the store and the one clock. */
export type Deps = { store: Store; clock: Clock };
