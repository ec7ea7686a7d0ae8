// Ceiling (a): bare Fastify routes in their own process, answering what a sale and a click answer.
import Fastify from 'fastify';

const app = Fastify();
app.post('/api/v1/track/sale', async () => ({ success: true, sale_id: 1, commission_id: 1, message: 'Sale and commission recorded' }));
app.post('/api/v1/track/click', async () => ({ click_id: 'ck_1_AAAAAAAAAAAAAAAAAAAAAA' }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
