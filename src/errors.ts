/**
 * Every error the service answers with, in one table (docs/api.md#the-error-table).
 * Domain code throws `AppError(code, …)`; src/http/errors.ts turns it into a response.
 */
type Envelope = 'platform' | 'typed';

export const errorCodes = {
  invalid_request: { status: 400, name: 'ValidationError', envelope: 'platform' },
  no_attribution: { status: 400, name: 'AttributionError', envelope: 'platform' },
  invalid_signature: { status: 400, name: 'SignatureError', envelope: 'platform' },
  invalid_sign_in_code: { status: 400, name: 'SignInCodeError', envelope: 'platform' },
  unauthorized: { status: 401, name: 'UnauthorizedError', envelope: 'platform' },
  api_key_rotation_required: { status: 401, name: 'ApiKeyRotationRequired', envelope: 'typed' },
  forbidden: { status: 403, name: 'ForbiddenError', envelope: 'platform' },
  not_found: { status: 404, name: 'NotFoundError', envelope: 'platform' },
  sale_not_found: { status: 404, name: 'NotFoundError', envelope: 'platform' },
  request_timeout: { status: 408, name: 'RequestTimeoutError', envelope: 'platform' },
  duplicate_transaction: { status: 409, name: 'ConflictError', envelope: 'platform' },
  duplicate_refund: { status: 409, name: 'ConflictError', envelope: 'platform' },
  conflict: { status: 409, name: 'ConflictError', envelope: 'platform' },
  invalid_status: { status: 409, name: 'ConflictError', envelope: 'platform' },
  payload_too_large: { status: 413, name: 'PayloadTooLargeError', envelope: 'platform' },
  range_not_satisfiable: { status: 416, name: 'RangeNotSatisfiableError', envelope: 'platform' },
  unsupported_currency: { status: 422, name: 'UnprocessableEntityError', envelope: 'platform' },
  refund_exceeds_sale: { status: 422, name: 'UnprocessableEntityError', envelope: 'platform' },
  amount_too_large: { status: 422, name: 'UnprocessableEntityError', envelope: 'platform' },
  rate_limited: { status: 429, name: 'RateLimitError', envelope: 'typed' },
  headers_too_large: { status: 431, name: 'RequestHeaderFieldsTooLargeError', envelope: 'platform' },
  internal_error: { status: 500, name: 'InternalServerError', envelope: 'platform' },
  not_implemented: { status: 501, name: 'NotImplementedError', envelope: 'platform' },
  upstream_error: { status: 502, name: 'BadGatewayError', envelope: 'platform' },
  service_unavailable: { status: 503, name: 'ServiceUnavailableError', envelope: 'platform' },
} as const satisfies Record<string, { status: number; name: string; envelope: Envelope }>;

export type ErrorCode = keyof typeof errorCodes;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  /** Extra top-level fields of the typed envelope (hint, docs_url, retry_after_seconds). */
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: unknown = null, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.extra = extra;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

export type PlatformErrorBody = {
  data: null;
  error: { status: number; name: string; message: string; details: unknown; code: ErrorCode };
};
export type TypedErrorBody = { error: { code: ErrorCode; message: string } & Record<string, unknown> };
export type ErrorBody = PlatformErrorBody | TypedErrorBody;

/** The response body for an error, in the envelope its code uses. */
export function errorBody(error: AppError): ErrorBody {
  const spec = errorCodes[error.code];
  if (spec.envelope === 'typed') {
    return { error: { code: error.code, message: error.message, ...error.extra } };
  }
  return {
    data: null,
    error: { status: spec.status, name: spec.name, message: error.message, details: error.details, code: error.code },
  };
}

/** A field-level validation failure, reported as 400 invalid_request with the fields in details. */
export function invalidRequest(issues: Array<{ field: string; message: string }>): AppError {
  // One entry per field: a value can break several rules at once (e.g. not a date and out of range).
  const byField = new Map<string, string[]>();
  for (const { field, message } of issues) byField.set(field, [...(byField.get(field) ?? []), message]);
  const fields = [...byField].map(([field, messages]) => ({ field, message: messages.join('; ') }));
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  return new AppError('invalid_request', `Invalid request: ${summary}`, { fields });
}

/**
 * 429 rate_limited in the typed envelope, `retry_after_seconds` at least 1; the error handler adds
 * Retry-After (docs/api.md#rate-limits). Made without a stack trace: under a flood it is made
 * thousands of times a second (capturing the stack was 5 % of the server's time) and nothing reads it.
 */
export function rateLimited(reason: string, ttlMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new AppError('rate_limited', `${reason}; retry in ${seconds} s`, null, { retry_after_seconds: seconds });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
