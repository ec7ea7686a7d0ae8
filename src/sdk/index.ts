export { PartnerkitClient, type ClientOptions } from './client.js';
export { PartnerkitError } from './errors.js';
export { toSaleRequest, type TrackSaleInput, type TrackSaleResult } from './track-sale.js';
export { fetchTransport, NetworkError, type ApiRequest, type ApiResponse, type Transport } from './transport.js';
export type { SaleRequest } from '../domain/sale-request.js';
export type { LiveSaleResult, TestSaleResult } from './client.js';
export type { WebhookEventView } from '../domain/stripe/admin.js';
export type { WebhookResult } from '../domain/stripe/receive.js';
export { trackSaleFromInvoice, type InvoiceSale, type InvoiceSkipReason, type StripeInvoice } from './invoice.js';
