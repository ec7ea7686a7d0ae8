import { describe, expect, test } from 'vitest';
import { readableLines } from '../../src/http/request-log.js';

describe('the request log on a terminal', () => {
  const format = (entry: object) => {
    const written: string[] = [];
    readableLines({ write: (text) => written.push(text) }).write(JSON.stringify(entry));
    return written;
  };
  const time = Date.parse('2026-03-01T12:00:01.234Z');

  test('a request entry is one line of text with its time, level, request id, method, route, status and duration', () => {
    expect(format({ level: 'info', time, pid: 1, hostname: 'h', requestId: 'req-1', method: 'POST', route: '/api/v1/track/sale', status: 200, durationMs: 3.2, msg: 'request' }))
      .toEqual(['12:00:01.234 INFO  req-1 POST /api/v1/track/sale 200 3.2 ms\n']);
  });

  test('an unmatched route and an unanswered request show as dashes', () => {
    expect(format({ level: 'info', time, requestId: 'req-2', method: 'GET', route: null, status: null, durationMs: 0.4, msg: 'request' }))
      .toEqual(['12:00:01.234 INFO  req-2 GET - - 0.4 ms\n']);
  });

  test('a failure shows its message and stack under its request id; a client error its status and code', () => {
    expect(format({ level: 'error', time, requestId: 'req-7', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' }, msg: 'request failed' }))
      .toEqual(['12:00:01.234 ERROR req-7 request failed Error: boom\n    at x\n']);
    expect(format({ level: 'info', time, status: 408, code: 'request_timeout', msg: 'client error' })).toEqual(['12:00:01.234 INFO  client error 408 request_timeout\n']);
  });
});
