/**
 * The HTTP contract: every route's request and 200-body schemas and the types inferred from them.
 * Routes validate and serialize with the schemas; the SDK imports only the types, the CLI also the
 * constants (report periods, demo limits, the default commission), from `constants.ts`.
 */
export * from './admin.js';
export * from './applications.js';
export * from './common.js';
export * from './constants.js';
export * from './demo.js';
export * from './exports.js';
export * from './media-types.js';
export * from './payouts.js';
export * from './portal.js';
export * from './links.js';
export * from './reports.js';
export * from './tracking.js';
export * from './webhooks.js';
export * from './outbound-webhooks.js';
export * from './promotion-codes.js';
export * from './groups.js';
export * from './fraud.js';
export * from './stripe-reconcile.js';
