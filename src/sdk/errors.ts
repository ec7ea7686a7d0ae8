/** An error answer of the API, carrying its `error.code` whichever envelope it came in. */
export class PartnerkitError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: unknown;
  readonly body: unknown;

  constructor(status: number, code: string, message: string, details: unknown = null, body: unknown = null) {
    super(message);
    this.name = 'PartnerkitError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.body = body;
  }

  static fromResponse(status: number, body: unknown): PartnerkitError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
    if (error && typeof error.code === 'string') {
      return new PartnerkitError(status, error.code, String(error.message ?? error.code), error.details ?? null, body);
    }
    return new PartnerkitError(status, 'unexpected_response', `HTTP ${status}: ${typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body)}`, null, body);
  }
}
