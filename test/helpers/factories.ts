/**
 * Factories for the rows tests set up: each starts from fixed values that a test may override, and
 * goes through the HTTP API like a merchant would, so the store holds exactly what the service writes.
 */

/** The calls a factory needs: the admin API (throws unless 200) and the tracking API. */
export type FactoryApi = {
  admin<T = any>(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T>;
  track(url: string, payload: unknown, apiKey?: string, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
};

export type ProgramFixture = {
  id: number;
  apiKey: string;
  testApiKey: string;
  webhookSecret: string;
  partnerId: number;
  partnerProgramId: number;
  refCode: string;
};

export type Fields = Record<string, unknown>;

/** Texts a spreadsheet would run as a formula (or whose first character it would hide), one per leading character: = + - @ tab CR. */
export const FORMULAS = ['=HYPERLINK("https://evil.example","x")', '+1+2', '-2+3', '@SUM(A1)', '\tTab', '\rCR'];

export const programFields = (overrides: Fields = {}): Fields => ({ name: 'Test program', ...overrides });

/** Partner e-mails are unique per instance: the n-th partner a test creates gets partner<n>@example.com. */
export const partnerFields = (n: number, overrides: Fields = {}): Fields => ({ name: 'Partner', email: `partner${n}@example.com`, ...overrides });

/** A live sale of 49.99 USD by customer cust_1; an override of undefined leaves the field out. */
export const saleFields = (overrides: Fields = {}): Fields => ({ transaction_id: 'in_1', amount_cents: 4999, customer_key: 'cust_1', ...overrides });

async function expectOk(what: string, call: Promise<{ status: number; body: any }>): Promise<any> {
  const { status, body } = await call;
  if (status !== 200) throw new Error(`${what} → ${status} ${JSON.stringify(body)}`);
  return body;
}

export type Factories = ReturnType<typeof factories>;

export function factories(api: FactoryApi) {
  let partners = 0;
  let visitors = 0;
  const self = {
    /** A partner of the instance. */
    partner: (overrides: Fields = {}): Promise<{ id: number; name: string; email: string }> =>
      api.admin('POST', '/partners', partnerFields(++partners, overrides)),

    /** Enrolls a partner in a program: its partner-program record and referral code. */
    enroll: (programId: number, partnerId: number): Promise<{ id: number; refCode: string }> =>
      api.admin('POST', `/programs/${programId}/partners`, { partnerId }),

    /** A program (20 %, 90-day window, 30 hold days unless overridden) with one enrolled partner. */
    async program(overrides: Fields = {}): Promise<ProgramFixture> {
      const program = await api.admin('POST', '/programs', programFields(overrides));
      const partner = await self.partner();
      const enrollment = await self.enroll(program.id, partner.id);
      return {
        id: program.id,
        apiKey: program.apiKey,
        testApiKey: program.testApiKey,
        webhookSecret: program.webhookSecret,
        partnerId: partner.id,
        partnerProgramId: enrollment.id,
        refCode: enrollment.refCode,
      };
    },

    /** A click on the program's referral link by a new visitor (a User-Agent of its own); its click id. */
    async click(program: Pick<ProgramFixture, 'refCode'>, overrides: Fields = {}): Promise<string> {
      const visitor = { 'user-agent': `factory-visitor-${++visitors}` };
      const body = await expectOk('click', api.track('/api/v1/track/click', { ref: program.refCode, ...overrides }, undefined, visitor));
      return body.click_id as string;
    },

    /** A lead (customer cust_1 unless named) bound to a new click, or to `click_id` when given. */
    async lead(program: Pick<ProgramFixture, 'refCode' | 'apiKey'>, customerKey = 'cust_1', overrides: Fields = {}): Promise<{ clickId: string; customerId: number }> {
      const clickId = (overrides.click_id as string | undefined) ?? (await self.click(program));
      const body = await expectOk('lead', api.track('/api/v1/track/lead', { customer_key: customerKey, click_id: clickId, ...overrides }, program.apiKey));
      return { clickId, customerId: body.customer_id };
    },

    /** A sale (saleFields with the overrides) sent with the program's live key unless another is given; its answer. */
    sale: (program: Pick<ProgramFixture, 'apiKey'>, overrides: Fields = {}, apiKey = program.apiKey): Promise<any> =>
      expectOk('sale', api.track('/api/v1/track/sale', saleFields(overrides), apiKey)),
  };
  return self;
}

/** The factories' calls to a server listening at `baseUrl` (a `partnerkit serve` process). */
export function httpFactoryApi(baseUrl: string, adminToken: string): FactoryApi {
  const request = async (method: string, url: string, payload: unknown, token: string | undefined, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      body: payload === undefined ? undefined : JSON.stringify(payload),
      headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    return { status: response.status, body: await response.json() };
  };
  return {
    admin: (method, url, payload) => expectOk(`${method} ${url}`, request(method, `/api/admin${url}`, payload, adminToken)),
    track: (url, payload, apiKey, headers) => request('POST', url, payload, apiKey, headers),
  };
}
