import type {
  ApiKey, ClickRequest, ClickResult, CreateApiKeyRequest, CreatedApiKey, CreatedProgram, CreatePartnerRequest, CreateProgramRequest,
  CreateSessionRequest, DemoRequest, DemoResult, EnrollPartnerRequest, Enrollment, Health, LeadRequest, LeadResult, LiveSaleResult, MemberRequest,
  Membership, Partner, PartnerLinks, PartnerReport, PerformanceQuery, PerformanceReport, ProductRule, ProductRuleRequest, Program, RetiredApiKey, SaleRequest, SaleResult,
  Session, WebhookEvent, WebhookEventsQuery, WebhookResult, WebhookSecret, WebhookSecretRequest,
} from '../api/index.js';
import { PartnerkitError } from './errors.js';
import { toSaleRequest, type TrackSaleInput, type TrackSaleResult } from './track-sale.js';
import { fetchTransport, NetworkError, type ApiRequest, type Transport } from './transport.js';

export type ClientOptions = {
  /** The server, e.g. https://partners.example.com; or give a transport. */
  baseUrl?: string;
  transport?: Transport;
  /** Program API key (pk_live_… / pk_test_…) for the tracking API. */
  apiKey?: string;
  /** Instance admin token or a dashboard session token, for the admin API and reports. */
  token?: string;
  /** Retries of a request that could not reach the server (default 2). */
  retries?: number;
  retryDelayMs?: number;
};

type Credential = 'apiKey' | 'token' | 'none';

/** The path with the query's given values as its search string. */
function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.size > 0 ? `${path}?${params}` : path;
}

/**
 * A typed client for the partnerkit HTTP API, for merchants' Node or Deno backends and the CLI.
 * The tracking calls use the program API key; the resources (programs, keys, …, reports) the admin
 * token, and reports also a dashboard session token.
 */
export class PartnerkitClient {
  private readonly transport: Transport;

  constructor(private readonly options: ClientOptions) {
    if (!options.transport && !options.baseUrl) throw new Error('PartnerkitClient needs a baseUrl or a transport');
    this.transport = options.transport ?? fetchTransport(options.baseUrl!);
  }

  /** Sends a request and returns its JSON body; an error answer throws PartnerkitError. */
  private async request<T>(request: ApiRequest, credential: Credential = 'token'): Promise<T> {
    const secret = credential === 'none' ? undefined : this.options[credential];
    const headers = { ...request.headers, ...(secret ? { authorization: `Bearer ${secret}` } : {}) };
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.transport({ ...request, headers });
        if (response.status >= 400) throw PartnerkitError.fromResponse(response.status, response.body);
        return response.body as T;
      } catch (error) {
        // Only a request that never reached the server is retried; it is idempotent by design.
        if (!(error instanceof NetworkError) || attempt >= retries) throw error;
        await new Promise((resolve) => setTimeout(resolve, (this.options.retryDelayMs ?? 200) * 2 ** attempt));
      }
    }
  }

  private get<T>(path: string): Promise<T> {
    return this.request({ method: 'GET', path });
  }

  private post<T>(path: string, body?: unknown, credential?: Credential): Promise<T> {
    return this.request({ method: 'POST', path, body }, credential);
  }

  /** Records a sale. A duplicate invoiceId resolves as already_recorded (the 409), never retried. */
  async trackSale(input: TrackSaleInput): Promise<TrackSaleResult> {
    try {
      const result = await this.sendSale(toSaleRequest(input));
      const live = result as LiveSaleResult;
      return { status: 'recorded', saleId: live.sale_id, commissionId: live.commission_id, message: live.message };
    } catch (error) {
      if (error instanceof PartnerkitError && error.code === 'duplicate_transaction') {
        const saleId = (error.details as { sale_id?: number | null } | null)?.sale_id ?? null;
        return { status: 'already_recorded', saleId, message: error.message };
      }
      throw error;
    }
  }

  /** POST /api/v1/track/sale with the endpoint's own field names (test mode included). */
  sendSale(body: SaleRequest): Promise<SaleResult> {
    return this.post('/api/v1/track/sale', body, 'apiKey');
  }

  /**
   * POST /api/v1/track/click. With the client's API key it is a server-side click, which may name
   * the visitor (`ip`, `user_agent`) for the unique-click check; without one it is public.
   */
  trackClick(body: ClickRequest): Promise<ClickResult> {
    return this.post('/api/v1/track/click', body, 'apiKey');
  }

  /** POST /api/v1/track/lead. */
  trackLead(body: LeadRequest): Promise<LeadResult> {
    return this.post('/api/v1/track/lead', body, 'apiKey');
  }

  /** GET /healthz: whether the server answers, and its clock (pinned by PARTNERKIT_NOW, or the system's). */
  health(): Promise<Health> {
    return this.request({ method: 'GET', path: '/healthz' }, 'none');
  }

  /**
   * POST /api/v1/webhooks/stripe/:programId: a Stripe event signed by the caller, sent byte for
   * byte as signed (fixture replay, tests).
   */
  postStripeEvent(programId: number, payload: string, signature: string): Promise<WebhookResult> {
    return this.request(
      {
        method: 'POST',
        path: `/api/v1/webhooks/stripe/${programId}`,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      },
      'none',
    );
  }

  readonly programs = {
    /** POST /api/admin/programs: the API keys are in this answer only. */
    create: (body: CreateProgramRequest) => this.post<CreatedProgram>('/api/admin/programs', body),
    /** GET /api/admin/programs */
    list: () => this.get<Program[]>('/api/admin/programs'),
    /** GET /api/admin/programs/:programId: with its product rules. */
    get: (programId: number) => this.get<Program>(`/api/admin/programs/${programId}`),
    /** POST /api/admin/programs/:programId/rules: adds or replaces the product's rule. */
    addRule: (programId: number, body: ProductRuleRequest) => this.post<ProductRule>(`/api/admin/programs/${programId}/rules`, body),
  };

  readonly keys = {
    /** POST /api/admin/programs/:programId/keys: the key is in this answer only. */
    create: (programId: number, body: CreateApiKeyRequest = {}) => this.post<CreatedApiKey>(`/api/admin/programs/${programId}/keys`, body),
    /** GET /api/admin/programs/:programId/keys: prefixes, never the secrets. */
    list: (programId: number) => this.get<ApiKey[]>(`/api/admin/programs/${programId}/keys`),
    /** POST /api/admin/programs/:programId/keys/:keyId/retire */
    retire: (programId: number, keyId: number) => this.post<RetiredApiKey>(`/api/admin/programs/${programId}/keys/${keyId}/retire`),
  };

  readonly partners = {
    /** POST /api/admin/partners */
    create: (body: CreatePartnerRequest) => this.post<Partner>('/api/admin/partners', body),
    /** POST /api/admin/programs/:programId/partners: the enrollment carries the referral code. */
    enroll: (programId: number, body: EnrollPartnerRequest) => this.post<Enrollment>(`/api/admin/programs/${programId}/partners`, body),
    /** GET /api/admin/programs/:programId/partners/:partnerId: the referral code, the link's path on the server, the via link. */
    links: (programId: number, partnerId: number) => this.get<PartnerLinks>(`/api/admin/programs/${programId}/partners/${partnerId}`),
  };

  readonly members = {
    /** POST /api/admin/programs/:programId/members: adds or reactivates. */
    add: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/admin/programs/${programId}/members`, body),
    /** POST /api/admin/programs/:programId/members/remove: deactivates. */
    remove: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/admin/programs/${programId}/members/remove`, body),
  };

  readonly sessions = {
    /** POST /api/admin/sessions: a dashboard session token, shown once. */
    create: (body: CreateSessionRequest) => this.post<Session>('/api/admin/sessions', body),
  };

  readonly webhooks = {
    /** GET /api/admin/programs/:programId/webhook-events: received events with their outcome, newest first. */
    events: (programId: number, query: WebhookEventsQuery = {}) =>
      this.get<WebhookEvent[]>(withQuery(`/api/admin/programs/${programId}/webhook-events`, query)),
    /** POST /api/admin/programs/:programId/webhook-secret: the signing secret Stripe shows for the endpoint. */
    setSecret: (programId: number, body: WebhookSecretRequest) =>
      this.post<WebhookSecret>(`/api/admin/programs/${programId}/webhook-secret`, body),
  };

  readonly demo = {
    /** POST /api/admin/demo: a demo program with a generated history, loaded by the server. */
    load: (body: DemoRequest = {}) => this.post<DemoResult>('/api/admin/demo', body),
  };

  readonly reports = {
    /** GET /api/tracking/performance/:programId with a dashboard session token (or the admin token). */
    performance: (programId: number, query: PerformanceQuery = {}) =>
      this.get<PerformanceReport>(withQuery(`/api/tracking/performance/${programId}`, query)),
    /** GET /api/tracking/performance/:programId/partners: a row per partner, by revenue; the same credentials and query. */
    partners: (programId: number, query: PerformanceQuery = {}) =>
      this.get<PartnerReport>(withQuery(`/api/tracking/performance/${programId}/partners`, query)),
  };
}
