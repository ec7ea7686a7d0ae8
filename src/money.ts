/** Integer cents as an amount with two decimals, exact at any size: 123456 → "1234.56", -5 → "-0.05". */
export function centsText(cents: bigint | number): string {
  const value = BigInt(cents);
  const digits = String(value < 0n ? -value : value).padStart(3, '0');
  return `${value < 0n ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
