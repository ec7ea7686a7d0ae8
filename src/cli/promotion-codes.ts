import type { PromotionCodeView } from '../api/index.js';
import { renderTable } from './output.js';

/** Promotion codes, one line each. */
export function renderCodes(codes: PromotionCodeView[], empty: string): string {
  return renderTable(
    [
      { header: 'code', value: (c) => c.code, shrink: 'end' },
      { header: 'partner', value: (c) => `${c.partnerName} (#${c.partnerId})`, shrink: 'end' },
      { header: 'stripe promotion code', value: (c) => c.stripePromotionCode, shrink: 'middle' },
    ],
    codes,
    { empty },
  );
}
