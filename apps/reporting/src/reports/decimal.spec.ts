import { addDecimal, decimal, DecimalSum } from './decimal';

describe('exact cost sums (D-47)', () => {
  it('DecimalSum equals the pairwise BigInt sum for many values of up to 9 decimals, signs and trailing zeros mixed', () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    const values = Array.from({ length: 5_000 }, () => {
      const whole = String(next() % 100_000);
      const digits = next() % 10;
      const frac = digits === 0 ? '' : `.${String(next()).padStart(10, '0').slice(0, digits)}`;
      return `${next() % 7 === 0 ? '-' : ''}${whole}${frac}`;
    });
    const sum = new DecimalSum();
    let pairwise = '0';
    for (const v of values) {
      sum.add(v);
      pairwise = addDecimal(pairwise, v);
    }
    expect(sum.value).toBe(pairwise);
    expect(new DecimalSum().value).toBe('0');
  });

  it('writes whole numbers and drops trailing zeros', () => {
    const sum = new DecimalSum();
    for (const v of ['0.100000000', '0.2', '2', '-0.3']) sum.add(v);
    expect(sum.value).toBe('2');
    expect(decimal('1.500')).toBe('1.5');
    expect(addDecimal('0.000000001', '0.999999999')).toBe('1');
  });
});
