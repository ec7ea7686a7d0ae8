import { Flags } from '@oclif/core';
import { DELIVERY_STATUSES } from '../../src/api/constants.js';
import type { DeliveryView } from '../../src/api/index.js';
import { PartnerkitCommand, sessionTokenFlag } from '../../src/cli/base.js';
import { endpointFlag, renderDeliveries } from '../../src/cli/webhook-endpoints.js';
import { clockFromEnv } from '../../src/clock.js';

export default class WebhookDeliveries extends PartnerkitCommand {
  static override description = "List a webhook endpoint's deliveries, newest first, with their last answer";
  static override examples = ['<%= config.bin %> webhook deliveries --endpoint 1', '<%= config.bin %> webhook deliveries --endpoint 1 --status failed'];
  static override flags = {
    endpoint: endpointFlag,
    status: Flags.string({ description: 'only deliveries of this status', options: [...DELIVERY_STATUSES] }),
    limit: Flags.integer({ description: 'at most this many', min: 1, max: 1000, default: 50 }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { flags } = await this.parse(WebhookDeliveries);
    const status = flags.status as DeliveryView['status'] | undefined;
    const deliveries = await this.withClient(flags, { token: flags['session-token'] }, (client) =>
      client.webhookEndpoints.deliveries(flags.endpoint, { status, limit: flags.limit }),
    );
    this.log(renderDeliveries(deliveries, clockFromEnv().now(), status === undefined ? 'No deliveries yet.' : `No ${status} deliveries.`));
    return deliveries;
  }
}
