import { createHmac } from 'node:crypto';
import type { Sql } from '../store/db.js';
import { findSetting, insertSetting } from '../store/settings.js';
import { findVisitorClicks, latestVisitorClickAt, lockVisitors, type ClickRow } from '../store/tracking.js';
import type { Deps } from './deps.js';
import { randomToken } from './secrets.js';
import { perStore } from './store-cache.js';
import type { BatchRun } from './write-batcher.js';

/** What recording clicks needs beyond the store and the clock: the unique-click window (0 turns the check off). */
export type ClickDeps = Deps & { clicks: { dedupMinutes: number } };

/** Who followed a link: the client address and User-Agent the click came with (docs/tracking.md#unique-clicks). */
export type Visitor = { ip: string; userAgent: string };

/** A visitor following one enrollment's referral link. */
export type Visit = { enrollmentId: number; hash: number };

const SALT_SETTING = 'visitor_salt';

/** Visits kept in memory at most; beyond it the oldest are left to the store (docs/architecture.md#recent-visits-unique-clicks). */
export const MAX_REMEMBERED_VISITS = 200_000;

/**
 * A visitor's salted hash: HMAC-SHA-256 of the address and the User-Agent under the
 * installation's salt, its first 53 bits, so the stored BIGINT is an exact JS number. The address
 * itself is never stored, and without the salt the hash cannot be matched to one.
 */
export function visitorHash(salt: string, visitor: Visitor): number {
  // An IPv4 client seen on an IPv6 socket (::ffff:a.b.c.d) is the same visitor as a.b.c.d.
  const ip = visitor.ip.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  const digest = createHmac('sha256', salt).update(`${ip}\n${visitor.userAgent}`).digest();
  return Number(digest.readBigUInt64BE(0) >> 11n);
}

const visitKey = (visit: Visit) => `${visit.enrollmentId}:${visit.hash}`;

type Remembered = { id: number; clickId: string; at: number };

/**
 * What this process knows of recent visits (one per store). Every click with a visitor that this
 * process writes is remembered after its COMMIT, so the store needs asking only about clicks below
 * `fromId`: those stored before the process started and those forgotten since. `latestBefore` is
 * the newest of them, so once it is outside the window the store is not read at all.
 */
type VisitMemory = {
  salt?: string;
  coverage?: { fromId: number; latestBefore: number };
  visits: Map<string, Remembered>;
};

const memoryOf = perStore((): VisitMemory => ({ visits: new Map() }));

/**
 * The unique-click check of one batch of clicks (docs/tracking.md#unique-clicks): which visits already got
 * a click within the window — remembered, in the store, or earlier in this batch — and, after the
 * batch's COMMIT, the new clicks remembered. Built inside the writer's transaction.
 */
export class UniqueClicks {
  private readonly found = new Map<string, string>();
  private readonly fresh: Array<[string, Remembered]> = [];

  private constructor(
    private readonly memory: VisitMemory,
    private readonly salt: string,
    /** Clicks after this instant (ms) are within the window; null when the check is off. */
    private readonly windowStart: number | null,
  ) {}

  /**
   * Reads (or, for the installation's first click, creates) the salt, and once per process what the
   * store held before: the next click id and the newest click with a visitor.
   */
  static async open({ store, clock, clicks }: ClickDeps, sql: Sql, run: BatchRun): Promise<UniqueClicks> {
    const memory = memoryOf(store);
    let salt = memory.salt ?? (await findSetting(sql, SALT_SETTING));
    if (salt === undefined) {
      const created = randomToken('', 32);
      await insertSetting(sql, SALT_SETTING, created);
      run.afterCommit(() => (memory.salt = created));
      salt = created;
    } else {
      memory.salt = salt;
    }
    const windowStart = clicks.dedupMinutes > 0 ? clock.now().getTime() - clicks.dedupMinutes * 60_000 : null;
    if (windowStart !== null && memory.coverage === undefined) {
      memory.coverage = store.shared
        ? // Other instances store clicks too: memory covers nothing, every visit it does not hold is looked up.
          { fromId: Number.MAX_SAFE_INTEGER, latestBefore: Infinity }
        : { fromId: await store.nextId(sql, 'clicks', 0), latestBefore: (await latestVisitorClickAt(sql))?.getTime() ?? -Infinity };
    }
    const check = new UniqueClicks(memory, salt, windowStart);
    run.afterCommit(() => check.remember());
    return check;
  }

  hash(visitor: Visitor): number {
    return visitorHash(this.salt, visitor);
  }

  /**
   * Finds the click each visit got within the window: in memory, else in one statement over the
   * window's rows, once the visitors it reads are locked against other instances.
   */
  async load(sql: Sql, visits: Visit[]): Promise<void> {
    const { windowStart } = this;
    if (windowStart === null) return;
    const unknown = new Set<number>();
    for (const visit of visits) {
      const remembered = this.memory.visits.get(visitKey(visit));
      if (remembered && remembered.at > windowStart) this.found.set(visitKey(visit), remembered.clickId);
      else unknown.add(visit.hash);
    }
    const { fromId, latestBefore } = this.memory.coverage!;
    if (unknown.size === 0 || latestBefore <= windowStart) return;
    await lockVisitors(sql, [...unknown]);
    for (const click of await findVisitorClicks(sql, [...unknown], new Date(windowStart), fromId)) {
      const key = visitKey({ enrollmentId: click.partner_program_id, hash: click.visitor_hash! });
      if (!this.found.has(key)) this.found.set(key, click.click_id);
    }
  }

  /** The click id a visit got within the window (before this batch or earlier in it), if any. */
  earlierClick(visit: Visit): string | undefined {
    return this.found.get(visitKey(visit));
  }

  /** A visit's new click: later visits of this batch get its id; memory learns it once the batch committed. */
  recorded(visit: Visit, click: ClickRow): void {
    if (this.windowStart === null) return;
    const key = visitKey(visit);
    this.found.set(key, click.click_id);
    this.fresh.push([key, { id: click.id, clickId: click.click_id, at: click.created_at.getTime() }]);
  }

  /**
   * Remembers the batch's new clicks, then forgets the oldest visits — those out of the window, and
   * any beyond MAX_REMEMBERED_VISITS — handing them over to the store. Visits are kept in id order
   * (a visit clicked again moves to the end), so forgetting from the front keeps `fromId` exact.
   */
  private remember(): void {
    const { windowStart, memory } = this;
    if (windowStart === null) return;
    for (const [key, visit] of this.fresh) {
      memory.visits.delete(key);
      memory.visits.set(key, visit);
    }
    const coverage = memory.coverage!;
    for (const [key, visit] of memory.visits) {
      if (visit.at > windowStart && memory.visits.size <= MAX_REMEMBERED_VISITS) break;
      memory.visits.delete(key);
      coverage.fromId = Math.max(coverage.fromId, visit.id + 1);
      coverage.latestBefore = Math.max(coverage.latestBefore, visit.at);
    }
  }
}
