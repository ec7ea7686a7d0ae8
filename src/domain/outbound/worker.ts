import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import * as outbox from '../../store/outbox.js';
import type { AttemptRow, DeliveryRow, DeliveryUpdate, EndpointRow, MessageRow } from '../../store/outbox.js';
import type { Sql } from '../../store/db.js';
import type { Deps } from '../deps.js';
import { endpointsChanged, onOutboxWrites, writeLeftDeliveries, type FreshDelivery } from './events.js';
import { signatureHeader } from './signing.js';
import { notifyWebhookTrouble } from '../mail/notifications.js';

/** After each failed attempt, the wait before the next one; the 8th failure is final (docs/outbound-webhooks.md#retries). */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;
/** How long an attempt may take before it counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Bytes of an answer kept in the delivery log. */
export const RESPONSE_BYTES = 1024;
/** How long after a rotation the previous secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export type WorkerSettings = {
  /** How long a claimed delivery is this instance's; longer than an attempt may take. */
  leaseSeconds: number;
  /** How often the worker looks for due deliveries when it found none, on a database other instances write. */
  pollMs: number;
  /**
   * The same where this process alone writes the database: what it writes is announced to the
   * worker and retries wake it when due, so the poll only finds what nothing announced (an attempt
   * that could not be recorded, a mail's retry).
   */
  alonePollMs: number;
};

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = { leaseSeconds: 60, pollMs: 200, alonePollMs: 5000 };

/** Attempts in flight per endpoint at most: a slow endpoint holds only its own (docs/outbound-webhooks.md#delivery). */
const PER_ENDPOINT = 32;
/** Deliveries one claim takes at most. */
const CLAIM_LIMIT = 256;
/**
 * How long a finished attempt waits to be recorded with the others that finish meanwhile: one
 * transaction a second for all of them, so the deliveries take the store's one writer from the
 * sales as little as may be (docs/outbound-webhooks.md#delivery); RECORD_AT_MOST are recorded at once.
 */
const RECORD_EVERY_MS = 1000;
const RECORD_AT_MOST = 4096;
/**
 * Deliveries announced as due (a ping, a redelivery, a mail) are claimed within this: one look
 * serves every announcement meanwhile, so a mail queued by every sale batch costs one look per
 * interval, not one per batch.
 */
const ANNOUNCED_WITHIN_MS = 200;
/** How long after a retry is due its wake-up fires. */
const TIMER_SLACK_MS = 10;

/**
 * Another kind of outbox message this loop delivers (mail: docs/mail.md#delivery): at each claim it
 * claims its own due deliveries through `claimIn`, as the worker claims (with its lease where there
 * is one, past what it holds), and answers each delivery's send, settled once its attempt is recorded.
 */
export type OutboxChannel = {
  claim(
    base: Pick<outbox.Claim, 'now' | 'held' | 'lease'>,
    claimIn: (claim: outbox.Claim) => Promise<DeliveryRow[]>,
  ): Promise<Array<{ id: number; sent: Promise<void> }>>;
};

/** What one attempt came to, ready to be recorded. */
type Result = { delivery: DeliveryRow; attempt: Omit<AttemptRow, 'id'>; update: DeliveryUpdate; gone: EndpointRow | null };

/** The delivery after an attempt that began at `at` (docs/outbound-webhooks.md#retries). */
export function afterAttempt(delivery: DeliveryRow, ok: boolean, at: Date): DeliveryUpdate {
  const attempts = delivery.attempts + 1;
  if (ok) return { id: delivery.id, status: 'delivered', attempts, next_attempt_at: null };
  if (attempts > RETRY_DELAYS_SECONDS.length) return { id: delivery.id, status: 'failed', attempts, next_attempt_at: null };
  return { id: delivery.id, status: 'pending', attempts, next_attempt_at: new Date(at.getTime() + RETRY_DELAYS_SECONDS[attempts - 1] * 1000) };
}

/**
 * Records in one transaction: the fresh deliveries handed over (with their attempt's outcome when it
 * finished), the attempts, their deliveries' new state, and endpoints that answered 410. Answers the
 * deliveries it wrote.
 */
async function recordBatch(deps: Deps, sql: Sql, fresh: readonly FreshDelivery[], results: readonly Result[]): Promise<DeliveryRow[]> {
  const taken = await outbox.takeTargets(sql, [...new Set(fresh.map((f) => f.message.id))]);
  const outcomes = new Map(results.map((r) => [r.delivery.id, r.update]));
  const written = fresh.filter((f) => taken.has(f.message.id)).map(({ delivery }) => ({ ...delivery, ...outcomes.get(delivery.id) }));
  await outbox.appendDeliveries(sql, written);
  const writtenIds = new Set(written.map((d) => d.id));
  if (results.length > 0) {
    const nextId = await deps.store.idAllocator(sql, { outbox_attempts: results.length });
    const attempts = results.map((r) => ({ id: nextId('outbox_attempts'), ...r.attempt }));
    await outbox.recordAttempts(sql, attempts, results.filter((r) => !writtenIds.has(r.delivery.id)).map((r) => r.update));
  }
  const answered410 = [...new Map(results.flatMap((r) => (r.gone ? [[r.gone.id, r.gone] as const] : []))).values()];
  // An endpoint an earlier recording disabled already is neither disabled nor announced again.
  const disabled = await outbox.disableEndpoints(sql, answered410.map((e) => e.id), 'The endpoint answered 410 Gone');
  const gone = answered410.filter((e) => disabled.has(e.id));
  // Members hear of a disabled endpoint and of events whose last attempt failed (docs/mail.md#notifications-and-unsubscribing).
  await notifyWebhookTrouble(deps, sql, gone, results.filter((r) => r.gone === null && r.update.status === 'failed' && r.update.attempts > r.delivery.attempts).map((r) => r.delivery));
  for (const endpoint of gone) sql.afterCommit(() => endpointsChanged(deps.store, endpoint.program_id));
  return written;
}

/** Attempts finished and not yet recorded, each with the caller waiting for its recording. */
type Unrecorded = Array<{ result: Result; recorded: (done: Promise<unknown>) => void }>;

/** partnerkit's version, from its package.json (the sender's user-agent). */
function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'partnerkit') return pkg.version ?? '0.0.0';
    }
  }
  return '0.0.0';
}

const USER_AGENT = `partnerkit/${packageVersion()}`;

/**
 * The outbox's delivery loop (docs/outbound-webhooks.md#delivery): claims due webhook deliveries
 * (with a lease where other instances claim too), sends each with its own timeout, at most
 * PER_ENDPOINT at a time per endpoint, and records the attempts in batches. Sending never holds the
 * store's writer; what a stopped or killed worker held is claimed again once its lease expires, or
 * at once by the next worker of a database no other process writes.
 */
export class DeliveryWorker {
  private readonly owner = randomUUID();
  private readonly inFlight = new Map<number, number>(); // endpoint id → attempts in flight
  private readonly held = new Set<number>(); // deliveries claimed and not yet recorded: no claim takes them again
  private unrecorded: Unrecorded = [];
  private unwritten: FreshDelivery[] = []; // handed over fresh, not yet written
  private toListen = false; // started, where this process alone writes: listens from its first claim on
  private recordTimer: NodeJS.Timeout | undefined;
  private readonly sends = new Set<Promise<void>>();
  // One pool of kept-alive connections per endpoint origin, as many as its attempts in flight; no redirect is followed.
  private readonly agent = new Agent({ connections: PER_ENDPOINT });
  private readonly requests = new Set<AbortController>();
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY; // when the timer fires (epoch ms)
  private running: Promise<number> | undefined;
  private following: Promise<number> | undefined; // the claim asked for while `running` runs
  private stopped = false;
  private stopListening = () => {};

  constructor(
    private readonly deps: Deps,
    private readonly settings: WorkerSettings = DEFAULT_WORKER_SETTINGS,
    private readonly channels: readonly OutboxChannel[] = [],
  ) {}

  /** Starts polling; from its first claim on, each delivery committed is sent as soon as it is. */
  start(): this {
    this.toListen = !this.deps.store.shared;
    this.schedule(0);
    return this;
  }

  /**
   * Writes the deliveries a stopped or killed process left unwritten, then listens for what the
   * process writes: every delivery it is handed from then on is its own to write, so none is written twice.
   */
  private async listen(): Promise<void> {
    await this.deps.store.transaction((sql) => writeLeftDeliveries(this.deps, sql));
    this.toListen = false;
    if (this.stopped) return;
    this.stopListening = onOutboxWrites(this.deps.store, { fresh: (fresh) => this.takeFresh(fresh), due: () => this.schedule(ANNOUNCED_WITHIN_MS) });
  }

  /**
   * Takes deliveries handed over as their transaction committed: they are written with the next
   * recording, and sent once the sales that caused them are answered, without a claim. One to an
   * endpoint with its attempts all in flight is left for a claim once written.
   */
  private takeFresh(fresh: readonly FreshDelivery[]): void {
    if (this.stopped) return; // written by the next worker
    for (const each of fresh) this.unwritten.push(each);
    this.recordWithin(this.unwritten.length >= RECORD_AT_MOST ? 0 : RECORD_EVERY_MS);
    setImmediate(() => {
      for (const { delivery, message, endpoint } of fresh) {
        if (this.stopped || this.held.has(delivery.id) || (this.inFlight.get(endpoint.id) ?? 0) >= PER_ENDPOINT) continue;
        this.held.add(delivery.id);
        this.startSend(delivery, message, endpoint);
      }
    });
  }

  /** Claims in `ms`, unless a claim is set for sooner. */
  private schedule(ms: number): void {
    const at = Date.now() + ms;
    if (this.stopped || at >= this.wakeAt) return;
    clearTimeout(this.timer);
    this.wakeAt = at;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    this.wakeAt = Number.POSITIVE_INFINITY;
    const claimed = await this.claimOnce().catch(() => 0); // a store that failed or closed: try again at the next poll
    // A look that found something looks again soon (more may wait behind a claim's limit); an empty one waits for the poll.
    if (claimed === CLAIM_LIMIT) this.schedule(0);
    else this.schedule(claimed > 0 || this.deps.store.shared ? this.settings.pollMs : this.settings.alonePollMs);
  }

  /**
   * Claims what is due and starts sending it; answers how many it claimed. One claim at a time:
   * one asked for while another runs follows it, as that one may have looked before what it is
   * asked for committed.
   */
  private claimOnce(): Promise<number> {
    if (this.running !== undefined) {
      this.following ??= this.running
        .catch(() => 0)
        .then(() => {
          this.following = undefined;
          return this.claimOnce();
        });
      return this.following;
    }
    this.running = this.claim().finally(() => (this.running = undefined));
    return this.running;
  }

  private async claim(): Promise<number> {
    if (this.stopped) return 0;
    const { store, clock } = this.deps;
    if (this.toListen) await this.listen();
    const now = clock.now();
    const base = {
      now,
      held: [...this.held],
      lease: store.shared ? { owner: this.owner, until: new Date(now.getTime() + this.settings.leaseSeconds * 1000) } : null,
    };
    const claimIn = (claim: outbox.Claim) => (claim.lease ? store.transaction((sql) => outbox.claimDue(sql, claim)) : store.read((sql) => outbox.claimDue(sql, claim)));
    const others = (await Promise.all(this.channels.map((c) => c.claim(base, claimIn)))).flat();
    for (const { id, sent } of others) this.hold(id, sent.catch(() => undefined)); // not recorded: due again (after its lease, where there is one)
    const busyTargets = [...this.inFlight].filter(([, n]) => n >= PER_ENDPOINT).map(([id]) => id);
    // Deliveries handed over fresh while the claim ran are this worker's already.
    const deliveries = (await claimIn({ ...base, limit: CLAIM_LIMIT, channel: 'webhook', busyTargets })).filter((d) => !this.held.has(d.id));
    if (deliveries.length === 0) return others.length;
    for (const delivery of deliveries) this.held.add(delivery.id);
    const { messages, endpoints } = await store.read(async (sql) => ({
      messages: new Map((await outbox.findMessages(sql, [...new Set(deliveries.map((d) => d.message_id))])).map((m) => [m.id, m])),
      endpoints: new Map((await outbox.findEndpoints(sql, [...new Set(deliveries.map((d) => d.target_id))])).map((e) => [e.id, e])),
    })).catch((error: unknown) => {
      for (const delivery of deliveries) this.held.delete(delivery.id);
      throw error;
    });
    for (const delivery of deliveries) {
      if (this.stopped) this.held.delete(delivery.id); // due again: a stopping worker sends nothing more
      else this.startSend(delivery, messages.get(delivery.message_id)!, endpoints.get(delivery.target_id)!);
    }
    return deliveries.length + others.length;
  }

  /** Holds another channel's delivery until its send settles (recorded, or due again). */
  private hold(id: number, send: Promise<void>): void {
    this.held.add(id);
    this.sends.add(send);
    void send.finally(() => {
      this.held.delete(id);
      this.sends.delete(send);
    });
  }

  /**
   * Sends one delivery and records its attempt. The endpoint's place is free once the answer is in;
   * the delivery is held until its attempt is recorded (or could not be: it is then due again).
   */
  private startSend(delivery: DeliveryRow, message: MessageRow, endpoint: EndpointRow): void {
    this.inFlight.set(endpoint.id, (this.inFlight.get(endpoint.id) ?? 0) + 1);
    const send = this.attempt(delivery, message, endpoint)
      .finally(() => {
        this.inFlight.set(endpoint.id, this.inFlight.get(endpoint.id)! - 1);
        if (this.inFlight.get(endpoint.id) === PER_ENDPOINT - 1) this.schedule(0);
      })
      .then(async (result) => {
        if (this.stopped) return;
        await this.recordSoon(result);
        // A retry wakes the worker when it is due, whatever the poll (a little after: a timer may fire a millisecond early).
        if (result.update.next_attempt_at) this.schedule(result.update.next_attempt_at.getTime() - this.deps.clock.now().getTime() + TIMER_SLACK_MS);
      })
      .catch(() => undefined) // not recorded: due again (after its lease, where there is one)
      .finally(() => {
        this.held.delete(delivery.id);
        this.sends.delete(send);
      });
    this.sends.add(send);
  }

  /** Records an attempt with the others finished within RECORD_EVERY_MS (or RECORD_AT_MOST of them, sooner). */
  private recordSoon(result: Result): Promise<unknown> {
    return new Promise((recorded) => {
      this.unrecorded.push({ result, recorded });
      this.recordWithin(this.unrecorded.length >= RECORD_AT_MOST ? 0 : RECORD_EVERY_MS);
    });
  }

  /** Records within `ms`, unless a recording is set for sooner. */
  private recordWithin(ms: number): void {
    if (ms === 0) this.recordNow();
    else this.recordTimer ??= setTimeout(() => this.recordNow(), ms);
  }

  /**
   * Records finished attempts and writes fresh deliveries (RECORD_AT_MOST of each) in one
   * transaction. What a failed recording held is recorded again a second later, its deliveries
   * held meanwhile, so none is sent twice; once stopped, they are left as they are (due again, or
   * written by the next worker). A fresh delivery written as pending and not in flight is claimed at once.
   */
  private recordNow(): void {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const fresh = this.unwritten.splice(0, RECORD_AT_MOST);
    let waiting = this.unrecorded.splice(0, RECORD_AT_MOST);
    if (this.unwritten.length > 0) {
      // An attempt whose delivery a later recording writes is recorded with it.
      const later = new Set(this.unwritten.map((f) => f.delivery.id));
      this.unrecorded = waiting.filter((w) => later.has(w.result.delivery.id)).concat(this.unrecorded);
      waiting = waiting.filter((w) => !later.has(w.result.delivery.id));
    }
    if (fresh.length === 0 && waiting.length === 0) return;
    const results = waiting.map((w) => w.result);
    // Started on the next tick (after this one, before the next recording's): a store closed meanwhile rejects instead of throwing in a timer.
    const recording = Promise.resolve().then(() => this.deps.store.transaction((sql) => recordBatch(this.deps, sql, fresh, results)));
    if (this.unwritten.length > 0 || this.unrecorded.length > 0) this.recordWithin(0);
    const settled = recording.then(
      (written) => {
        for (const { recorded } of waiting) recorded(Promise.resolve());
        if (written.some((d) => d.status === 'pending' && !this.held.has(d.id))) this.schedule(0);
      },
      (error: unknown) => {
        if (this.stopped) {
          for (const { recorded } of waiting) recorded(Promise.reject(error));
          return;
        }
        this.unwritten = fresh.concat(this.unwritten);
        this.unrecorded = waiting.concat(this.unrecorded);
        this.recordWithin(RECORD_EVERY_MS);
      },
    );
    this.sends.add(settled);
    void settled.finally(() => this.sends.delete(settled));
  }

  /** One attempt; an endpoint removed or disabled since the claim settles its delivery as failed without a request. */
  private async attempt(delivery: DeliveryRow, message: MessageRow, endpoint: EndpointRow): Promise<Result> {
    const at = this.deps.clock.now();
    if (endpoint.removed_at !== null || !endpoint.enabled) {
      const reason = endpoint.removed_at !== null ? 'endpoint removed' : 'endpoint disabled';
      return { delivery, attempt: { delivery_id: delivery.id, attempted_at: at, status_code: null, error: reason, duration_ms: 0, response: null }, update: { id: delivery.id, status: 'failed', attempts: delivery.attempts, next_attempt_at: null }, gone: null };
    }
    const started = performance.now();
    const answer = await this.post(endpoint, message, at);
    const durationMs = Math.round(performance.now() - started);
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
    return {
      delivery,
      attempt: { delivery_id: delivery.id, attempted_at: at, status_code: answer.status, error: answer.error, duration_ms: durationMs, response: answer.body },
      update: answer.status === 410 ? { id: delivery.id, status: 'failed', attempts: delivery.attempts + 1, next_attempt_at: null } : afterAttempt(delivery, ok, at),
      gone: answer.status === 410 ? endpoint : null,
    };
  }

  /** The signed POST (docs/outbound-webhooks.md#headers-and-signature); no redirect is followed, nothing waits past the timeout. */
  private post(endpoint: EndpointRow, message: MessageRow, at: Date): Promise<{ status: number | null; error: string | null; body: string | null }> {
    const timestamp = Math.floor(at.getTime() / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > at) secrets.push(endpoint.previous_secret);
    const url = new URL(endpoint.url);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': message.ref,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, message.ref, timestamp, message.body),
    };
    if (url.username !== '' || url.password !== '') {
      // The URL's credentials go as basic authentication, never in the request line (docs/outbound-webhooks.md#secrets).
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    const abort = new AbortController();
    this.requests.add(abort);
    const deadline = setTimeout(() => abort.abort(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)), ATTEMPT_TIMEOUT_MS);
    return this.send(url, headers, message.body, abort.signal).finally(() => {
      clearTimeout(deadline);
      this.requests.delete(abort);
    });
  }

  /** One POST through the worker's pool: the status and the first RESPONSE_BYTES of the answer, or the network error. */
  private async send(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number | null; error: string | null; body: string | null }> {
    try {
      const response = await request(url, { method: 'POST', headers, body, signal, dispatcher: this.agent });
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BYTES) break;
        }
      } catch {
        // An answer cut short keeps its status and what arrived of it.
      }
      if (size >= RESPONSE_BYTES) response.body.destroy();
      return { status: response.statusCode, error: null, body: Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8') };
    } catch (error) {
      // The system error with its address (connect ECONNREFUSED …), "other side closed", or the timeout.
      return { status: null, error: error instanceof Error ? error.message : String(error), body: null };
    }
  }

  /** Sends everything due now and waits until each attempt is recorded (tests, after moving the clock). */
  async runDue(): Promise<void> {
    for (;;) {
      const inFlight = this.sends.size; // a claim made while attempts were in flight may have skipped their busy endpoints
      if ((await this.claimOnce()) === 0 && inFlight === 0 && this.unwritten.length === 0) return;
      await Promise.race([...this.sends, new Promise((r) => setTimeout(r, 5))]);
      // What is sent is recorded, and what is handed over written, before runDue answers, without the wait.
      if (this.unrecorded.length > 0 || this.unwritten.length > 0) this.recordNow();
    }
  }

  /**
   * Stops claiming, records the attempts that finished, and drops those in flight unrecorded: they
   * are due again (after their lease, where there is one).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopListening();
    clearTimeout(this.timer);
    this.recordNow();
    for (const abort of this.requests) abort.abort(new Error('partnerkit is stopping'));
    await this.running?.catch(() => undefined);
    await Promise.all(this.sends);
    await this.agent.close();
  }
}
