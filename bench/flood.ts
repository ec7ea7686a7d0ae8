// The flood of `npm run bench -- flood`, in a process of its own so the measuring client's event
// loop is not the flood's: 128 connections of random API keys and 512 connections of clicks from
// one client address, for the given seconds; prints the answers' rates and status counts as JSON.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

const [url, refCode, seconds] = process.argv.slice(2);

async function flood(path: string, connections: number, body: string, headers: () => Record<string, string>) {
  const result = await autocannon({
    url: url + path,
    connections,
    duration: Number(seconds),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body, headers: { ...request.headers, ...headers() } }) }],
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count ?? 0]));
  return { rps: result.requests.average, statuses };
}

const [randomKeys, oneAddressClicks] = await Promise.all([
  flood('/api/v1/track/sale', 128, JSON.stringify({ transaction_id: 'flood', amount_cents: 100, customer_key: 'c0' }), () => ({
    authorization: `Bearer pk_live_${randomBytes(24).toString('base64url')}`,
  })),
  flood('/api/v1/track/click', 512, JSON.stringify({ ref: refCode }), () => ({})),
]);
process.stdout.write(JSON.stringify({ randomKeys, oneAddressClicks }));
