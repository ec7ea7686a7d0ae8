export { PartnerkitClient, type ClientOptions } from './client.js';
export { PartnerkitError } from './errors.js';
export { toSaleRequest, type TrackSaleInput, type TrackSaleResult } from './track-sale.js';
export { fetchTransport, NetworkError, type ApiRequest, type ApiResponse, type Transport } from './transport.js';
export type {
  ApiKey, ClickRequest, ClickResult, CommissionTerms, CreateApiKeyRequest, CreatedApiKey, CreatedProgram, CreatePartnerRequest,
  CreateProgramRequest, CreateSessionRequest, DemoRequest, DemoResult, EnrollPartnerRequest, Enrollment, LeadRequest, LeadResult,
  LiveSaleResult, MemberRequest, Membership, Partner, PartnerLinks, PartnerReport, PartnerReportRow, PerformanceDay, PerformanceQuery, PerformanceReport, Period, ProductRule,
  ProductRuleRequest, Program, RetiredApiKey, SaleRequest, SaleResult, Session, TestSaleResult, Trend, WebhookEvent, WebhookEventsQuery,
  WebhookResult, WebhookSecret, WebhookSecretRequest,
} from '../api/index.js';
export { trackSaleFromInvoice, type InvoiceSale, type InvoiceSkipReason, type StripeInvoice } from './invoice.js';
