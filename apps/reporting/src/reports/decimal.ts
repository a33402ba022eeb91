/** Exact sums of costs (D-47: decimal strings of 9 decimals at most). */

/** A decimal string without trailing zeros ("0" when none). */
export function decimal(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '0';
  const text = String(value);
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '' || trimmed === '-0' ? '0' : trimmed;
}

/** Costs carry 9 decimals at most (D-47): a decimal string as a count of 10^-9. */
const SCALE = 9;
const UNIT = 10n ** BigInt(SCALE);

function nanos(x: string): bigint {
  const negative = x.startsWith('-');
  const [whole, frac = ''] = (negative ? x.slice(1) : x).split('.');
  const v = BigInt(whole || '0') * UNIT + BigInt((frac + '0'.repeat(SCALE)).slice(0, SCALE) || '0');
  return negative ? -v : v;
}

function decimalOfNanos(v: bigint): string {
  const negative = v < 0n;
  const abs = negative ? -v : v;
  return decimal(`${negative ? '-' : ''}${abs / UNIT}.${(abs % UNIT).toString().padStart(SCALE, '0')}`);
}

/**
 * Sums many decimal strings exactly: the whole units and the 10^-9 apart, each an integer in a double (exact far
 * beyond any cost a report sums), made one decimal at the end — no BigInt per value.
 */
export class DecimalSum {
  private whole = 0;
  private nanos = 0;

  add(text: string): void {
    const negative = text.charCodeAt(0) === 45; // '-'
    const body = negative ? text.slice(1) : text;
    const dot = body.indexOf('.');
    const whole = Number(dot < 0 ? body : body.slice(0, dot));
    const frac = dot < 0 ? 0 : Number((body.slice(dot + 1) + '000000000').slice(0, SCALE));
    this.whole += negative ? -whole : whole;
    this.nanos += negative ? -frac : frac;
  }

  get value(): string {
    return decimalOfNanos(BigInt(this.whole) * UNIT + BigInt(this.nanos));
  }
}

/** Sums two decimal strings exactly (9 decimals at most, D-47). */
export function addDecimal(a: string, b: string): string {
  return decimalOfNanos(nanos(a) + nanos(b));
}
