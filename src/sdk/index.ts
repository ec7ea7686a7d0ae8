export { PartnerkitClient, type ClientOptions, type CommissionListQuery } from './client.js';
export { PartnerkitError } from './errors.js';
export {
  toRefundRequest, toSaleRequest, type TrackClickInput, type TrackClickResult, type TrackLeadInput, type TrackLeadResult, type TrackRefundInput,
  type TrackRefundResult, type TrackSaleInput, type TrackSaleResult,
} from './tracking.js';
export { fetchTransport, NetworkError, type ApiRequest, type ApiResponse, type Transport } from './transport.js';
export type {
  ApiKey, ClickRequest, ClickResult, CommissionStatus, CommissionTerms, CreateApiKeyRequest, CreatedApiKey, CreatedProgram, CreatePartnerRequest,
  CreatePartnerSessionRequest, CreateProgramRequest, CreateSessionRequest, DemoRequest, DemoResult, EnrollPartnerRequest, Enrollment, LeadRequest, LeadResult,
  LiveSaleResult, Me, MemberRequest, Membership, Partner, PartnerLinks, PartnerReport, PartnerReportRow, PartnerSession, PerformanceDay,
  Page, PerformanceQuery, PerformanceReport, Period, PortalCommissions, PortalCommissionsQuery, PortalMe, PortalPayouts, PortalPerformance, ProductRule, ProductRuleRequest, Program, RefundRequest, RefundResult, RetiredApiKey, SaleRequest, SaleResult,
  Session, TestSaleResult, Trend, WebhookEvent, WebhookEventsQuery,
  WebhookResult, WebhookSecret, WebhookSecretRequest,
} from '../api/index.js';
export { trackSaleFromInvoice, type InvoiceSale, type InvoiceSkipReason, type StripeInvoice } from './invoice.js';
