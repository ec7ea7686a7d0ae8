import { connect } from 'node:net';

export type RawResponse = { status: number; headers: Record<string, string>; body: string };

/**
 * Writes bytes exactly as given to 127.0.0.1:port (fetch would refuse to send malformed requests)
 * and reads one response until the server closes the connection or `timeoutMs` passes.
 */
export function rawRequest(port: number, bytes: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer in ${timeoutMs} ms: ${Buffer.concat(chunks).toString()}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may reset a connection it answered before reading the whole request.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? Number.NaN);
      if (Number.isNaN(status)) return reject(new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
  });
}
