import type {
  LeadResult, LiveSaleResult, PerformanceQuery, PerformanceReport, SaleRequest, TestSaleResult, WebhookEvent, WebhookResult,
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

/** A typed client for the partnerkit HTTP API, for merchants' Node or Deno backends and the CLI. */
export class PartnerkitClient {
  private readonly transport: Transport;

  constructor(private readonly options: ClientOptions) {
    if (!options.transport && !options.baseUrl) throw new Error('PartnerkitClient needs a baseUrl or a transport');
    this.transport = options.transport ?? fetchTransport(options.baseUrl!);
  }

  /** Sends a request and returns its JSON body; an error answer throws PartnerkitError. */
  async request<T>(request: ApiRequest, credential: 'apiKey' | 'token' | 'none' = 'token'): Promise<T> {
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
  sendSale(body: SaleRequest): Promise<LiveSaleResult | TestSaleResult> {
    return this.request({ method: 'POST', path: '/api/v1/track/sale', body }, 'apiKey');
  }

  trackClick(body: { ref: string; landing_url?: string; referrer?: string; test?: boolean }): Promise<{ click_id: string }> {
    return this.request({ method: 'POST', path: '/api/v1/track/click', body }, 'none');
  }

  trackLead(body: { customer_key: string; click_id: string; email?: string; name?: string }): Promise<LeadResult> {
    return this.request({ method: 'POST', path: '/api/v1/track/lead', body }, 'apiKey');
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

  /** The received webhook events of a program with their outcome, newest first (admin token). */
  webhookEvents(programId: number, limit = 50): Promise<WebhookEvent[]> {
    return this.admin('GET', `/programs/${programId}/webhook-events?limit=${limit}`);
  }

  /** GET /api/tracking/performance/:programId with a dashboard session token (or the admin token). */
  performance(programId: number, query: PerformanceQuery = {}): Promise<PerformanceReport> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
    const search = params.size > 0 ? `?${params}` : '';
    return this.request({ method: 'GET', path: `/api/tracking/performance/${programId}${search}` });
  }

  /** The provisioning API (admin token): path under /api/admin. */
  admin<T>(method: ApiRequest['method'], path: string, body?: unknown): Promise<T> {
    return this.request({ method, path: `/api/admin${path}`, body });
  }
}
