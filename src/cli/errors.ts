import { stripVTControlCharacters } from 'node:util';
import { Errors } from '@oclif/core';
import { DataDirError, ListenError } from '../config.js';
import { AppError } from '../errors.js';
import { PartnerkitError } from '../sdk/errors.js';
import { NetworkError } from '../sdk/transport.js';

/** The exit status of a command line that cannot run as written (docs/cli.md#how-commands-reach-the-service). */
export const USAGE_EXIT = 2;

/** What a failed command reports (docs/cli.md#how-commands-reach-the-service): the API's error, or one of the CLI's own. */
export type CliFailure = {
  code: string;
  message: string;
  /** The HTTP status when the API answered; null for the CLI's own failures. */
  status: number | null;
  details: unknown;
  exit: number;
};

/** The one JSON document a failed command prints with --json. */
export type ErrorDocument = { error: Omit<CliFailure, 'exit'> };

export function errorDocument({ code, message, status, details }: CliFailure): ErrorDocument {
  return { error: { code, message, status, details } };
}

/** Any error a command can end with, as the CLI reports it. */
export function describeFailure(error: unknown): CliFailure {
  if (error instanceof PartnerkitError) return { code: error.code, message: error.message, status: error.status, details: error.details, exit: 1 };
  // The domain's own error, from a command that ran it in-process: reported as the API answers it.
  if (error instanceof AppError) return { code: error.code, message: error.message, status: error.status, details: error.details, exit: 1 };
  if (error instanceof NetworkError) return own('network_error', error.message, 1);
  if (error instanceof DataDirError || error instanceof ListenError) return own(error.code, error.message, USAGE_EXIT);
  if (error instanceof Errors.CLIError) {
    // oclif's parser raises its errors with exit 2; a command's own this.error() names its exit and code.
    const exit = error.oclif.exit ?? USAGE_EXIT;
    return own(error.code ?? (exit === USAGE_EXIT ? 'invalid_usage' : 'command_failed'), tidy(error.message), exit);
  }
  return own('command_failed', error instanceof Error ? error.message : String(error), 1);
}

function own(code: string, message: string, exit: number): CliFailure {
  return { code, message, status: null, details: null, exit };
}

/**
 * oclif's parser messages on one line: without colours, the "See more help" line (the caller says
 * where help is) and the "The following error occurred:" heading; list items joined with "; ", an
 * argument's `name  description` line as `name (description)`.
 */
function tidy(message: string): string {
  const lines = stripVTControlCharacters(message)
    .split('\n')
    .map((line) => line.trim().replace(/^(\S+)\s{2,}(.+)$/, '$1 ($2)').replace(/\s+/g, ' ').replace(/^(Parsing --\S+)$/, '$1:'))
    .filter((line) => line !== '' && line !== 'See more help with --help' && !/^The following errors? occurred:$/.test(line));
  return lines.reduce((text, line) => (text === '' ? line : `${text}${text.endsWith(':') ? ' ' : '; '}${line}`), '');
}
