import {
  computeCost,
  findContentKeys,
  fromScaled,
  modelMatches,
  priceInForce,
  toScaled,
  usageRuleViolations,
  type ModelPrice,
} from './usage.rules';

const price = (over: Partial<ModelPrice> = {}): ModelPrice => ({
  provider: 'anthropic',
  modelPattern: 'claude-*',
  effectiveFrom: '2026-01-01T00:00:00Z',
  input: '3',
  output: '15',
  ...over,
});

describe('usage rules (D-45 … D-47)', () => {
  it('scales decimals exactly, both ways', () => {
    expect(toScaled('1.5', 9)).toBe(1_500_000_000n);
    expect(toScaled('0.000000001', 9)).toBe(1n);
    expect(fromScaled(1n, 9)).toBe('0.000000001');
    expect(fromScaled(12_345_000_000n, 9)).toBe('12.345000000');
    expect(() => toScaled('0.0000000001', 9)).toThrow(RangeError);
  });

  it('prices each token once: cache inside input, reasoning inside output, own prices or the fallbacks (D-47)', () => {
    // 1,000 input of which 600 cache reads and 100 cache writes; 500 output of which 200 reasoning.
    const tokens = {
      inputTokens: 1000,
      cacheReadInputTokens: 600,
      cacheCreationInputTokens: 100,
      outputTokens: 500,
      reasoningOutputTokens: 200,
    };
    // 300 × 3 + 600 × 0.3 + 100 × 3.75 + 300 × 15 + 200 × 15 per million = 900 + 180 + 375 + 4500 + 3000 = 8955 / 1e6
    expect(computeCost(tokens, price({ cacheReadInput: '0.3', cacheCreationInput: '3.75' }))).toBe('0.008955000');
    // Without cache prices, cache tokens cost the input price: 1000 × 3 + 500 × 15 = 10500 / 1e6
    expect(computeCost(tokens, price())).toBe('0.010500000');
    expect(computeCost(tokens, price({ reasoningOutput: '60' }))).toBe('0.019500000');
  });

  it('rounds half-up to 9 decimals, exactly (no float)', () => {
    // 1 token at 0.0005 per million = 0.0000000005 → 0.000000001 (half-up)
    expect(computeCost({ inputTokens: 1 }, price({ input: '0.0005' }))).toBe('0.000000001');
    expect(computeCost({ inputTokens: 1 }, price({ input: '0.000499999999' }))).toBe('0.000000000');
    // 0.1 + 0.2 style sums stay exact
    expect(computeCost({ inputTokens: 100_000, outputTokens: 200_000 }, price({ input: '1', output: '1' }))).toBe('0.300000000');
    // the largest counts stay exact
    expect(computeCost({ inputTokens: 2_000_000_000 }, price({ input: '123456.123456789012' }))).toBe('246912246.913578024');
  });

  it('matches whole names with * and picks the most specific pattern, then the latest price in force (D-47)', () => {
    expect(modelMatches('claude-*', 'claude-sonnet-4-5')).toBe(true);
    expect(modelMatches('claude-*-4-5', 'claude-sonnet-4-5')).toBe(true);
    expect(modelMatches('claude', 'claude-sonnet')).toBe(false);
    expect(modelMatches('*sonnet*', 'claude-sonnet-4')).toBe(true);
    expect(modelMatches('a*a', 'a')).toBe(false);
    const list = [
      price({ modelPattern: '*', input: '1' }),
      price({ modelPattern: 'claude-*', input: '2' }),
      price({ modelPattern: 'claude-sonnet-*', input: '3' }),
      price({ modelPattern: 'claude-sonnet-*', input: '4', effectiveFrom: '2026-06-01T00:00:00Z' }),
      price({ modelPattern: 'claude-sonnet-4-5', input: '5', effectiveFrom: '2027-01-01T00:00:00Z' }),
      price({ provider: 'openai', modelPattern: 'claude-sonnet-4-5', input: '9' }),
    ];
    expect(priceInForce(list, 'anthropic', 'claude-sonnet-4-5', '2026-03-01T00:00:00Z')?.input).toBe('3');
    expect(priceInForce(list, 'anthropic', 'claude-sonnet-4-5', '2026-07-01T00:00:00Z')?.input).toBe('4');
    expect(priceInForce(list, 'anthropic', 'claude-sonnet-4-5', '2027-02-01T00:00:00Z')?.input).toBe('5');
    expect(priceInForce(list, 'anthropic', 'claude-haiku', '2026-07-01T00:00:00Z')?.input).toBe('2');
    expect(priceInForce(list, 'anthropic', 'gpt-5', '2026-07-01T00:00:00Z')?.input).toBe('1');
    expect(priceInForce(list, 'anthropic', 'gpt-5', '2025-07-01T00:00:00Z')).toBeUndefined();
    expect(priceInForce(list, 'google', 'gemini', '2026-07-01T00:00:00Z')).toBeUndefined();
  });

  it('names the rules across fields, per index', () => {
    const at = new Date('2026-06-01T12:00:00Z');
    const v = usageRuleViolations(
      [
        { model: 'm', inputTokens: 10, cacheReadInputTokens: 8, cacheCreationInputTokens: 3 },
        { model: 'm', outputTokens: 1, reasoningOutputTokens: 2 },
        { inputTokens: 1 },
        { operation: 'execute_tool' },
        { model: 'm', inputTokens: 1, occurredAt: '2026-06-01T12:10:00.001Z' },
        { model: 'm', inputTokens: 1, attributes: { a: { messages: [] }, ok: 1 } },
        { model: 'm', inputTokens: 1, attributes: { s: 'x'.repeat(9_000) } },
        { model: 'm', cacheReadInputTokens: 1 },
      ],
      at,
    );
    expect(v.map((x) => `${x.index}:${x.field}`)).toEqual([
      '0:input_tokens',
      '1:output_tokens',
      '2:model',
      '3:input_tokens',
      '4:occurred_at',
      '5:attributes.a.messages',
      '6:attributes',
      '7:input_tokens',
    ]);
    expect(usageRuleViolations([{ operation: 'execute_tool', cost: { amount: '0.1', currency: 'USD' } }], at)).toEqual([]);
  });

  it('finds content keys at any depth, and only keys', () => {
    expect(findContentKeys({ 'gen_ai.input.messages': [], list: [{ prompt: 'x' }], note: 'messages' })).toEqual([
      'attributes["gen_ai.input.messages"]',
      'attributes.list[0].prompt',
    ]);
  });
});
