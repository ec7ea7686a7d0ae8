import type {
  ApiKey, ApproveCommissionsRequest, ClickRequest, ClickResult, Commission, CommissionStatus, CreateApiKeyRequest, CreatedApiKey, CreatedProgram,
  CreateCodeRequest, CreatePartnerRequest, CreatePartnerSessionRequest, CreateProgramRequest, CreateSessionRequest, DataExportQuery, DemoProgress, DemoRequest, DemoResult, DemoStreamLine, EnrollPartnerRequest,
  EmailLinkAccepted, EmailLinkRequest, Enrollment, ExchangedSession, ExportFormat, Health, LeadRequest, LeadResult, LiveSaleResult, Me, MemberRequest, Membership, Partner, PartnerLinks, PartnerReport, PartnerSession,
  Payout, PayoutBatch, PayoutPreview, PayoutStatus, ProgramPartner, ProgramPartnersQuery, ProgramSettings, UpdateSettingsRequest, Member, Page, PerformanceQuery, PerformanceReport, PortalCommissions, PortalCommissionsQuery, PortalMe, PortalPayouts,
  PortalPerformance, ProductRule, ProductRuleRequest, Program, RefundRequest,
  RefundResult, RejectCommissionsRequest, RetiredApiKey, RevokedSessions, RevokeSessionsRequest, SaleRequest, SaleResult, Session, SkipReason,
  UpdatePartnerRequest, UpdateProgramRequest, WebhookEvent, WebhookEventsQuery, WebhookResult, WebhookSecret, WebhookSecretRequest,
  CreateEndpointRequest, DeliveryView, EndpointView, EndpointWithSecret, SentEvent, UpdateEndpointRequest, PromotionCodeView, FraudEvent, ResolveHeldRequest, ReconcileReport,
  ReconcileRequest, CreateGroupRequest, GroupMoveView, GroupView, PartnerGroupView, Preview, UpdateGroupRequest, Application, ApplicationList, ApplicationReceived, ApplicationRequest, ApplicationStatus, PublicProgram, RejectApplicationRequest,
} from '../api/index.js';
// The export's headers: constants of the API that load no schema (the SDK loads no zod).
import { EXPORT_ROWS_HEADER, EXPORTED_PAYOUTS_HEADER, SKIP_REASONS_HEADER, SKIPPED_PAYOUTS_HEADER, TOTAL_COUNT_HEADER } from '../api/constants.js';
import { NDJSON } from '../api/media-types.js';
import { PartnerkitError } from './errors.js';
import {
  alreadyRecordedRefundId, alreadyRecordedSaleId, fromClickResult, fromLeadResult, toClickRequest, toLeadRequest, toRefundRequest, toSaleRequest,
  type TrackClickInput, type TrackClickResult, type TrackLeadInput, type TrackLeadResult, type TrackRefundInput, type TrackRefundResult,
  type TrackSaleInput, type TrackSaleResult,
} from './tracking.js';
import { fetchTransport, NetworkError, type ApiRequest, type ApiResponse, type Transport } from './transport.js';

export type ClientOptions = {
  /** The server, e.g. https://partners.example.com; or give a transport. */
  baseUrl?: string;
  transport?: Transport;
  /** Program API key (pk_live_… / pk_test_…) for the tracking API. */
  apiKey?: string;
  /** Instance admin token or a dashboard session token, for the admin API and reports; a partner session token for the portal calls. */
  token?: string;
  /** Retries of a request that could not reach the server (default 2). */
  retries?: number;
  retryDelayMs?: number;
};

type Credential = 'apiKey' | 'token' | 'none';


/** A comma-separated header as its values. */
const headerList = (value: unknown) => (value === undefined || value === '' ? [] : String(value).split(','));

/** The path with the query's given values as its search string. */
function withQuery(path: string, query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.size > 0 ? `${path}?${params}` : path;
}

/** The filter and page of a program's commission list (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export type CommissionListQuery = { status?: CommissionStatus; partnerId?: number; limit?: number; offset?: number };

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
    return (await this.send(request, credential)).body as T;
  }

  /** Sends a request and returns the response; an error answer throws PartnerkitError. */
  private async send(request: ApiRequest, credential: Credential = 'token'): Promise<ApiResponse> {
    const secret = credential === 'none' ? undefined : this.options[credential];
    const headers = { ...request.headers, ...(secret ? { authorization: `Bearer ${secret}` } : {}) };
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.transport({ ...request, headers });
        if (response.status >= 400) throw PartnerkitError.fromResponse(response.status, response.body);
        return response;
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

  /** A GET of a paged list: its body and the number of matching rows its header carries. */
  private async getPage<T>(path: string): Promise<{ body: T; total: number }> {
    const response = await this.send({ method: 'GET', path });
    return { body: response.body as T, total: Number(response.headers[TOTAL_COUNT_HEADER]) };
  }

  private post<T>(path: string, body?: unknown, credential?: Credential): Promise<T> {
    return this.request({ method: 'POST', path, body }, credential);
  }

  private patch<T>(path: string, body: unknown): Promise<T> {
    return this.request({ method: 'PATCH', path, body });
  }

  // The track* calls take and answer camelCase; the send* calls post the endpoint's own body and
  // answer its own body (docs/sdk.md#names-on-each-surface-and-the-tracking-calls).

  /** Records a sale. A duplicate invoiceId resolves as already_recorded (the 409), never retried. */
  async trackSale(input: TrackSaleInput): Promise<TrackSaleResult> {
    try {
      const result = await this.sendSale(toSaleRequest(input));
      const live = result as LiveSaleResult;
      return { status: 'recorded', saleId: live.sale_id, commissionId: live.commission_id, message: live.message };
    } catch (error) {
      const saleId = alreadyRecordedSaleId(error);
      if (saleId === undefined) throw error;
      return { status: 'already_recorded', saleId, message: (error as PartnerkitError).message };
    }
  }

  /** POST /api/v1/track/sale with the endpoint's own field names (test mode included). */
  sendSale(body: SaleRequest): Promise<SaleResult> {
    return this.post('/api/v1/track/sale', body, 'apiKey');
  }

  /**
   * Records a refund of a sale tracked with `invoiceId`; its commission is adjusted. A duplicate
   * refundId resolves as already_recorded (the 409), never retried.
   */
  async trackRefund(input: TrackRefundInput): Promise<TrackRefundResult> {
    try {
      const r = await this.sendRefund(toRefundRequest(input));
      return {
        status: 'recorded', refundId: r.refund_id, saleId: r.sale_id, refundedCents: r.refunded_cents, remainingCents: r.remaining_cents,
        commissionId: r.commission_id, commissionStatus: r.commission_status, clawbackCommissionId: r.clawback_commission_id,
      };
    } catch (error) {
      const refundId = alreadyRecordedRefundId(error);
      if (refundId === undefined) throw error;
      return { status: 'already_recorded', refundId, message: (error as PartnerkitError).message };
    }
  }

  /** POST /api/v1/track/refund with the endpoint's own field names. */
  sendRefund(body: RefundRequest): Promise<RefundResult> {
    return this.post('/api/v1/track/refund', body, 'apiKey');
  }

  /**
   * Records a click. With the client's API key it is a server-side click, which may name the
   * visitor (`ip`, `userAgent`) for the unique-click check; without one it is public.
   */
  async trackClick(input: TrackClickInput): Promise<TrackClickResult> {
    return fromClickResult(await this.sendClick(toClickRequest(input)));
  }

  /** POST /api/v1/track/click with the endpoint's own field names. */
  sendClick(body: ClickRequest): Promise<ClickResult> {
    return this.post('/api/v1/track/click', body, 'apiKey');
  }

  /** Records a signup: binds your customer id to the click's partner. */
  async trackLead(input: TrackLeadInput): Promise<TrackLeadResult> {
    return fromLeadResult(await this.sendLead(toLeadRequest(input)));
  }

  /** POST /api/v1/track/lead with the endpoint's own field names. */
  sendLead(body: LeadRequest): Promise<LeadResult> {
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
    /** PATCH /api/admin/programs/:programId: changes the settings named, keeps the others. */
    update: (programId: number, body: UpdateProgramRequest) => this.patch<Program>(`/api/admin/programs/${programId}`, body),
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
    /** PATCH /api/admin/partners/:partnerId: name, e-mail, payout method and payout e-mail (null clears one), status. */
    update: (partnerId: number, body: UpdatePartnerRequest) => this.patch<Partner>(`/api/admin/partners/${partnerId}`, body),
    /** POST /api/admin/programs/:programId/partners: the enrollment carries the referral code. */
    enroll: (programId: number, body: EnrollPartnerRequest) => this.post<Enrollment>(`/api/admin/programs/${programId}/partners`, body),
    /** GET /api/admin/programs/:programId/partners/:partnerId: the referral code, the link's path on the server, the via link. */
    links: (programId: number, partnerId: number) => this.get<PartnerLinks>(`/api/admin/programs/${programId}/partners/${partnerId}`),
    /** POST /api/admin/partners/:partnerId/sessions: a partner portal session token and a sign-in code, shown once. */
    createSession: (partnerId: number, body: CreatePartnerSessionRequest = {}) =>
      this.post<PartnerSession>(`/api/admin/partners/${partnerId}/sessions`, body),
  };

  readonly members = {
    /** POST /api/admin/programs/:programId/members: adds or reactivates. */
    add: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/admin/programs/${programId}/members`, body),
    /** POST /api/admin/programs/:programId/members/remove: deactivates, and ends every session of the user. */
    remove: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/admin/programs/${programId}/members/remove`, body),
  };

  readonly sessions = {
    /** POST /api/admin/sessions: a dashboard session token and a sign-in code, shown once. */
    create: (body: CreateSessionRequest) => this.post<Session>('/api/admin/sessions', body),
    /** POST /api/admin/sessions/revoke: ends every session of a user (`email`) or a partner (`partnerId`). */
    revoke: (body: RevokeSessionsRequest) => this.post<RevokedSessions>('/api/admin/sessions/revoke', body),
    /** POST /api/sessions/exchange: a sign-in link's one-time code for a session token (no credential). */
    exchange: (code: string) => this.post<ExchangedSession>('/api/sessions/exchange', { code }, 'none'),
    /** POST /api/sessions/email-link: mails a sign-in link when the address may sign in on that page; the same answer whoever asks (no credential). */
    emailLink: (body: EmailLinkRequest) => this.post<EmailLinkAccepted>('/api/sessions/email-link', body, 'none'),
    /** GET /api/me: the session's user and the programs it is an active member of (every program, user null, for the admin token). */
    me: () => this.get<Me>('/api/me'),
    /** DELETE /api/session: signs the client's dashboard or partner session out; the token is refused afterwards. */
    signOut: async (): Promise<void> => {
      await this.request({ method: 'DELETE', path: '/api/session' });
    },
  };

  /** The partner portal's reads, with a partner session token: only that partner's rows. */
  readonly portal = {
    /** GET /api/portal/me: the partner and its programs with its links. */
    me: () => this.get<PortalMe>('/api/portal/me'),
    /** GET /api/portal/programs/:programId/performance: the partner's days and totals over the period (the report's query). */
    performance: (programId: number, query: PerformanceQuery = {}) =>
      this.get<PortalPerformance>(withQuery(`/api/portal/programs/${programId}/performance`, query)),
    /** GET /api/portal/programs/:programId/commissions: every one matching, or a page of them with `limit` and `offset`. */
    commissions: (programId: number, query: PortalCommissionsQuery = {}) =>
      this.get<PortalCommissions>(withQuery(`/api/portal/programs/${programId}/commissions`, query)),
    /** The same list: a page's rows and the number of matching rows (docs/pages.md#session-apis). */
    commissionsPage: async (programId: number, query: PortalCommissionsQuery = {}): Promise<Page<PortalCommissions['data'][number]>> => {
      const { body, total } = await this.getPage<PortalCommissions>(withQuery(`/api/portal/programs/${programId}/commissions`, query));
      return { data: body.data, total };
    },
    /** GET /api/portal/programs/:programId/payouts */
    payouts: (programId: number) => this.get<PortalPayouts>(`/api/portal/programs/${programId}/payouts`),
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
    /**
     * POST /api/admin/demo: a demo program with a generated history, loaded by the server. With
     * `onProgress`, the server streams the load's progress (NDJSON) and each step is passed on.
     */
    load: (body: DemoRequest = {}, options: { onProgress?: (progress: DemoProgress) => void } = {}) =>
      options.onProgress ? this.streamDemo(body, options.onProgress) : this.post<DemoResult>('/api/admin/demo', body),
  };

  /** Commission review (a member's session token or the admin token). */
  readonly commissions = {
    /** GET /api/programs/:programId/commissions: statuses as of now, by id; every one matching, or a page of them with `limit` and `offset`. */
    list: (programId: number, query: CommissionListQuery = {}) => this.get<Commission[]>(withQuery(`/api/programs/${programId}/commissions`, query)),
    /** The same list: a page's rows and the number of matching rows (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
    page: async (programId: number, query: CommissionListQuery = {}): Promise<Page<Commission>> => {
      const { body, total } = await this.getPage<Commission[]>(withQuery(`/api/programs/${programId}/commissions`, query));
      return { data: body, total };
    },
    /** POST /api/programs/:programId/commissions/approve: every id or none; the commissions after. */
    approve: (programId: number, body: ApproveCommissionsRequest) => this.post<Commission[]>(`/api/programs/${programId}/commissions/approve`, body),
    /** POST /api/programs/:programId/commissions/reject: every id or none; the commissions after. */
    reject: (programId: number, body: RejectCommissionsRequest) => this.post<Commission[]>(`/api/programs/${programId}/commissions/reject`, body),
  };

  /** A program's partners (a member's session token or the admin token). */
  readonly programPartners = {
    /** GET /api/programs/:programId/partners: names for the partner ids of commissions and payouts; `q` searches names and e-mails. */
    list: (programId: number, query: ProgramPartnersQuery = {}) => this.get<ProgramPartner[]>(withQuery(`/api/programs/${programId}/partners`, query)),
    /** GET /api/programs/:programId/partners/:partnerId: a partner's referral code and links. */
    links: (programId: number, partnerId: number) => this.get<PartnerLinks>(`/api/programs/${programId}/partners/${partnerId}`),
  };

  /** A program's settings, API keys and members (a member's session token or the admin token; docs/api.md#workspace-settings). */
  readonly workspace = {
    /** GET /api/programs/:programId/settings */
    settings: (programId: number) => this.get<ProgramSettings>(`/api/programs/${programId}/settings`),
    /** PATCH /api/programs/:programId/settings: the settings named change. */
    updateSettings: (programId: number, body: UpdateSettingsRequest) => this.patch<ProgramSettings>(`/api/programs/${programId}/settings`, body),
    /** GET /api/programs/:programId/keys */
    keys: (programId: number) => this.get<ApiKey[]>(`/api/programs/${programId}/keys`),
    /** POST /api/programs/:programId/keys: the key is in this answer only. */
    createKey: (programId: number, body: CreateApiKeyRequest = {}) => this.post<CreatedApiKey>(`/api/programs/${programId}/keys`, body),
    /** POST /api/programs/:programId/keys/:keyId/retire */
    retireKey: (programId: number, keyId: number) => this.post<RetiredApiKey>(`/api/programs/${programId}/keys/${keyId}/retire`),
    /** GET /api/programs/:programId/members */
    members: (programId: number) => this.get<Member[]>(`/api/programs/${programId}/members`),
    /** POST /api/programs/:programId/members */
    addMember: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/programs/${programId}/members`, body),
    /** POST /api/programs/:programId/members/remove: every session of the user ends. */
    removeMember: (programId: number, body: MemberRequest) => this.post<Membership>(`/api/programs/${programId}/members/remove`, body),
  };

  /** Payouts (a member's session token or the admin token). */
  readonly payouts = {
    /** GET /api/programs/:programId/payouts/preview */
    preview: (programId: number) => this.get<PayoutPreview>(`/api/programs/${programId}/payouts/preview`),
    /** POST /api/programs/:programId/payouts: batchId null when nothing was due. */
    create: (programId: number) => this.post<PayoutBatch>(`/api/programs/${programId}/payouts`),
    /** GET /api/programs/:programId/payouts */
    list: (programId: number, query: { status?: PayoutStatus } = {}) => this.get<Payout[]>(withQuery(`/api/programs/${programId}/payouts`, query)),
    /** GET /api/payouts/:payoutId */
    get: (payoutId: number) => this.get<Payout>(`/api/payouts/${payoutId}`),
    /** POST /api/payouts/:payoutId/mark-paid: a paid payout answers as it is. */
    markPaid: (payoutId: number) => this.post<Payout>(`/api/payouts/${payoutId}/mark-paid`),
    /** POST /api/payouts/:payoutId/cancel: a canceled payout answers as it is; a paid one is 409 invalid_status. */
    cancel: (payoutId: number) => this.post<Payout>(`/api/payouts/${payoutId}/cancel`),
    /** POST /api/payout-batches/:batchId/mark-paid */
    markBatchPaid: (batchId: number) => this.post<PayoutBatch>(`/api/payout-batches/${batchId}/mark-paid`),
    /** GET /api/payout-batches/:batchId/export: the CSV text, the payouts in it, and the ones it left out with the reason. */
    export: async (batchId: number, query: { format: ExportFormat; currency?: string }) => {
      const response = await this.send({ method: 'GET', path: withQuery(`/api/payout-batches/${batchId}/export`, query) });
      const reasons = headerList(response.headers[SKIP_REASONS_HEADER]);
      const skipped = headerList(response.headers[SKIPPED_PAYOUTS_HEADER]).map((id, i) => ({ payoutId: Number(id), reason: reasons[i] as SkipReason }));
      return { file: response.body as string, exportedPayoutIds: headerList(response.headers[EXPORTED_PAYOUTS_HEADER]).map(Number), skipped };
    },
  };
  /** Partner applications (docs/applications.md): applying needs no credential; the rest a member's session or the admin token. */
  readonly applications = {
    /** GET /api/public/programs/:programId: the program's name while its application page is open. */
    program: (programId: number) => this.request<PublicProgram>({ method: 'GET', path: `/api/public/programs/${programId}` }, 'none'),
    /** POST /api/public/programs/:programId/applications: the same answer whoever applies. */
    apply: (programId: number, body: ApplicationRequest) => this.post<ApplicationReceived>(`/api/public/programs/${programId}/applications`, body, 'none'),
    /** GET /api/programs/:programId/applications?status= */
    list: (programId: number, status?: ApplicationStatus) =>
      this.get<ApplicationList>(`/api/programs/${programId}/applications${status ? `?status=${status}` : ''}`),
    /** POST /api/applications/:applicationId/approve */
    approve: (applicationId: number) => this.post<Application>(`/api/applications/${applicationId}/approve`),
    /** POST /api/applications/:applicationId/reject */
    reject: (applicationId: number, body: RejectApplicationRequest) => this.post<Application>(`/api/applications/${applicationId}/reject`, body),
  };

  /** Outbound webhooks (a member's session token or the admin token; docs/outbound-webhooks.md#the-admin-api). */
  readonly stripe = {
    /** POST /api/programs/:programId/stripe/reconcile: the program's Stripe events recorded that were never delivered. */
    reconcile: (programId: number, body: ReconcileRequest = {}) => this.post<ReconcileReport>(`/api/programs/${programId}/stripe/reconcile`, body),
  };

  readonly fraud = {
    /** GET /api/programs/:programId/fraud-events: those of held commissions, or all. */
    events: (programId: number, status: 'held' | 'all' = 'held') => this.get<FraudEvent[]>(`/api/programs/${programId}/fraud-events?status=${status}`),
    /** POST /api/programs/:programId/fraud/release: held commissions back to pending. */
    release: (programId: number, body: ResolveHeldRequest) => this.post<Commission[]>(`/api/programs/${programId}/fraud/release`, body),
    /** POST /api/programs/:programId/fraud/reject */
    reject: (programId: number, body: ResolveHeldRequest) => this.post<Commission[]>(`/api/programs/${programId}/fraud/reject`, body),
  };

  readonly codes = {
    /** POST /api/programs/:programId/codes */
    add: (programId: number, body: CreateCodeRequest) => this.post<PromotionCodeView>(`/api/programs/${programId}/codes`, body),
    /** GET /api/programs/:programId/codes: those not removed, optionally of one partner. */
    list: (programId: number, partnerId?: number) =>
      this.get<PromotionCodeView[]>(`/api/programs/${programId}/codes${partnerId === undefined ? '' : `?partnerId=${partnerId}`}`),
    /** DELETE /api/programs/:programId/codes/:code */
    remove: (programId: number, code: string) =>
      this.request<PromotionCodeView>({ method: 'DELETE', path: `/api/programs/${programId}/codes/${encodeURIComponent(code)}` }),
  };

  readonly groups = {
    /** POST /api/programs/:programId/groups */
    add: (programId: number, body: CreateGroupRequest) => this.post<GroupView>(`/api/programs/${programId}/groups`, body),
    /** GET /api/programs/:programId/groups */
    list: (programId: number) => this.get<GroupView[]>(`/api/programs/${programId}/groups`),
    /** PATCH /api/programs/:programId/groups/:groupId */
    update: (programId: number, groupId: number, body: UpdateGroupRequest) => this.patch<GroupView>(`/api/programs/${programId}/groups/${groupId}`, body),
    /** DELETE /api/programs/:programId/groups/:groupId: its partners move to `moveTo`. */
    remove: (programId: number, groupId: number, moveTo?: number) =>
      this.request<GroupView>({ method: 'DELETE', path: `/api/programs/${programId}/groups/${groupId}${moveTo === undefined ? '' : `?moveTo=${moveTo}`}` }),
    /** PUT /api/programs/:programId/partners/:partnerId/group */
    setPartner: (programId: number, partnerId: number, groupId: number) =>
      this.request<PartnerGroupView>({ method: 'PUT', path: `/api/programs/${programId}/partners/${partnerId}/group`, body: { groupId } }),
    /** GET /api/programs/:programId/group-moves: newest first, optionally of one partner. */
    moves: (programId: number, partnerId?: number) =>
      this.get<GroupMoveView[]>(`/api/programs/${programId}/group-moves${partnerId === undefined ? '' : `?partnerId=${partnerId}`}`),
    /** GET /api/programs/:programId/preview: a reward over the period's sales, per partner; writes nothing. */
    preview: (
      programId: number,
      query: { period?: string; commissionPercent?: number; commissionFlatCents?: number; groupId?: number; recurringMonths?: number; everyRenewal?: boolean },
    ) => {
      const params = new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]])));
      return this.get<Preview>(`/api/programs/${programId}/preview?${params}`);
    },
  };

  readonly webhookEndpoints = {
    /** POST /api/programs/:programId/webhook-endpoints: the secret is in this answer only. */
    create: (programId: number, body: CreateEndpointRequest) => this.post<EndpointWithSecret>(`/api/programs/${programId}/webhook-endpoints`, body),
    /** GET /api/programs/:programId/webhook-endpoints */
    list: (programId: number) => this.get<EndpointView[]>(`/api/programs/${programId}/webhook-endpoints`),
    /** PATCH /api/webhook-endpoints/:endpointId */
    update: (endpointId: number, body: UpdateEndpointRequest) => this.patch<EndpointView>(`/api/webhook-endpoints/${endpointId}`, body),
    /** DELETE /api/webhook-endpoints/:endpointId */
    remove: (endpointId: number) => this.request<EndpointView>({ method: 'DELETE', path: `/api/webhook-endpoints/${endpointId}` }),
    /** POST /api/webhook-endpoints/:endpointId/rotate-secret: the new secret is in this answer only. */
    rotateSecret: (endpointId: number) => this.post<EndpointWithSecret>(`/api/webhook-endpoints/${endpointId}/rotate-secret`),
    /** POST /api/webhook-endpoints/:endpointId/test: one ping event. */
    test: (endpointId: number) => this.post<SentEvent>(`/api/webhook-endpoints/${endpointId}/test`),
    /** GET /api/webhook-endpoints/:endpointId/deliveries, newest first. */
    deliveries: (endpointId: number, query: { status?: DeliveryView['status']; limit?: number } = {}) =>
      this.get<DeliveryView[]>(withQuery(`/api/webhook-endpoints/${endpointId}/deliveries`, query)),
    /** POST /api/webhook-events/:eventId/redeliver: to one endpoint, or to every endpoint the event went to. */
    redeliver: (eventId: string, endpointId?: number) => this.post<SentEvent>(`/api/webhook-events/${encodeURIComponent(eventId)}/redeliver`, { endpointId }),
  };

  /** A program's data as files (a member's session token or the admin token). */
  /**
   * GET /api/admin/backup (the admin token): a consistent snapshot of a DuckDB data dir, handed to
   * `sink` as it arrives (docs/operations.md#backup-and-restore).
   */
  async backup(sink: NonNullable<ApiRequest['sink']>): Promise<void> {
    await this.send({ method: 'GET', path: '/api/admin/backup', sink });
  }

  readonly exports = {
    /**
     * GET /api/programs/:programId/export: one table as CSV, JSON or Parquet. The file is handed
     * to `sink` as it arrives (e.g. piped to a file); answers its rows and bytes.
     */
    download: async (programId: number, query: DataExportQuery, sink: NonNullable<ApiRequest['sink']>) => {
      const response = await this.send({ method: 'GET', path: withQuery(`/api/programs/${programId}/export`, query), sink });
      return { rows: Number(response.headers[EXPORT_ROWS_HEADER]), bytes: Number(response.headers['content-length']) };
    },
  };

  private async streamDemo(body: DemoRequest, onProgress: (progress: DemoProgress) => void): Promise<DemoResult> {
    const onLine = (line: unknown) => {
      if (typeof line === 'object' && line !== null && 'progress' in line) onProgress((line as { progress: DemoProgress }).progress);
    };
    const last = await this.request<DemoStreamLine>({ method: 'POST', path: '/api/admin/demo', body, headers: { accept: NDJSON }, onLine });
    if ('result' in last) return last.result;
    // The load failed after the answer's status was sent: the error is the last line.
    if ('error' in last) throw PartnerkitError.fromResponse(last.error.status, last);
    throw PartnerkitError.fromResponse(200, last);
  }

  readonly reports = {
    /** GET /api/tracking/performance/:programId with a dashboard session token (or the admin token). */
    performance: (programId: number, query: PerformanceQuery = {}) =>
      this.get<PerformanceReport>(withQuery(`/api/tracking/performance/${programId}`, query)),
    /** GET /api/tracking/performance/:programId/partners: a row per partner, by revenue; the same credentials and query. */
    partners: (programId: number, query: PerformanceQuery = {}) =>
      this.get<PartnerReport>(withQuery(`/api/tracking/performance/${programId}/partners`, query)),
  };
}
