export { PartnerkitClient, type ClientOptions } from './client.js';
export { PartnerkitError } from './errors.js';
export { toSaleRequest, type TrackSaleInput, type TrackSaleResult } from './track-sale.js';
export { fetchTransport, NetworkError, type ApiRequest, type ApiResponse, type Transport } from './transport.js';
export type { LiveSaleResult, SaleRequest, TestSaleResult, WebhookEvent, WebhookResult } from '../api/index.js';
export { trackSaleFromInvoice, type InvoiceSale, type InvoiceSkipReason, type StripeInvoice } from './invoice.js';
