import type { Migration } from './index.js';

/**
 * The click id a customer was attributed from, as the merchant sends it (clicks.click_id): a sale
 * or a payment webhook naming a click finds its customer by the embedded row id and checks the
 * whole value on the customer, in one statement instead of reading the click first.
 */
export const customerClickRef: Migration = {
  version: 4,
  name: 'customer-click-ref',
  sql: `
ALTER TABLE customers ADD COLUMN click_ref VARCHAR;
UPDATE customers SET click_ref = clicks.click_id FROM clicks WHERE clicks.id = customers.click_id;
`,
};
