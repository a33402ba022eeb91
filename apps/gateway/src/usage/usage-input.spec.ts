import { DomainError } from '@worktrack/platform';
import { foreignSessionDetails, parseUsageInput } from './usage-input';

const now = new Date('2026-06-01T12:00:00.000Z');
const fail = (body: unknown): DomainError => {
  try {
    parseUsageInput(body, now);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('expected a failure');
};
const ok = { external_id: 'msg_1', provider: 'anthropic', model: 'claude-sonnet-4-5', input_tokens: 10, output_tokens: 2 };

describe('parseUsageInput (D-45)', () => {
  it('takes one record and applies the defaults', () => {
    expect(parseUsageInput(ok, now)).toEqual([
      {
        externalId: 'msg_1',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        operation: 'chat',
        occurredAt: '2026-06-01T12:00:00.000Z',
        inputTokens: 10,
        outputTokens: 2,
        attributes: {},
      },
    ]);
  });

  it('takes a batch with every field, a tool call without a model, and a cost as an exact decimal string', () => {
    const records = parseUsageInput(
      {
        usage: [
          {
            ...ok,
            operation: 'chat',
            occurred_at: '2026-06-01T14:00:00+02:00',
            duration_ms: 1200,
            cache_read_input_tokens: 6,
            cache_creation_input_tokens: 4,
            reasoning_output_tokens: 2,
            cost: { amount: '0.000000001', currency: 'USD' },
            session_id: '0D9C5A52-1E57-4F0B-9C62-6B0C1E3A1B2C',
            conversation_id: 'conv_1',
            tool_name: 'search',
            attributes: { agent: 'bot', 'gen_ai.request.temperature': 0.2 },
          },
          { external_id: 't1', provider: 'local', operation: 'execute_tool', tool_name: 'grep', cost: { amount: '0', currency: 'USD' } },
        ],
      },
      now,
    );
    expect(records[0]).toMatchObject({
      cost: { amount: '0.000000001', currency: 'USD' },
      sessionId: '0d9c5a52-1e57-4f0b-9c62-6b0c1e3a1b2c',
    });
    expect(records[1]).toMatchObject({ operation: 'execute_tool', toolName: 'grep' });
    expect(records[1].model).toBeUndefined();
  });

  it.each([
    ['negative tokens', { input_tokens: -1 }, 'usage[1].input_tokens', 'VALIDATION_FAILED'],
    ['non-integer tokens', { output_tokens: 2.5 }, 'usage[1].output_tokens', 'VALIDATION_FAILED'],
    ['more than 2,000,000,000 tokens', { input_tokens: 2_000_000_001 }, 'usage[1].input_tokens', 'VALIDATION_FAILED'],
    ['cache over input', { input_tokens: 5, cache_read_input_tokens: 6 }, 'usage[1].input_tokens', 'VALIDATION_FAILED'],
    ['reasoning over output', { output_tokens: 1, reasoning_output_tokens: 2 }, 'usage[1].output_tokens', 'VALIDATION_FAILED'],
    ['a float cost', { cost: { amount: 0.5, currency: 'USD' } }, 'usage[1].cost.amount', 'VALIDATION_FAILED'],
    ['a 10-decimal cost', { cost: { amount: '0.0000000001', currency: 'USD' } }, 'usage[1].cost.amount', 'VALIDATION_FAILED'],
    ['an exponent cost', { cost: { amount: '1e-3', currency: 'USD' } }, 'usage[1].cost.amount', 'VALIDATION_FAILED'],
    ['another currency', { cost: { amount: '1', currency: 'EUR' } }, 'usage[1].cost.currency', 'VALIDATION_FAILED'],
    ['no model for a chat', { model: undefined }, 'usage[1].model', 'VALIDATION_FAILED'],
    ['no count and no cost', { input_tokens: undefined, output_tokens: undefined }, 'usage[1].input_tokens', 'VALIDATION_FAILED'],
    ['an unknown field', { prompt_text: 'x' }, 'usage[1].prompt_text', 'VALIDATION_FAILED'],
    [
      'prompt content',
      { attributes: { nested: { 'gen_ai.output.messages': [] } } },
      'usage[1].attributes.nested["gen_ai.output.messages"]',
      'VALIDATION_FAILED',
    ],
    [
      'prompt content inside a list',
      { attributes: { steps: [{ ok: 1 }, { prompt: 'x' }] } },
      'usage[1].attributes.steps[1].prompt',
      'VALIDATION_FAILED',
    ],
    ['9 KB of attributes', { attributes: { s: 'x'.repeat(9_216) } }, 'usage[1].attributes', 'VALIDATION_FAILED'],
    ['a future time', { occurred_at: '2026-06-01T12:10:00.001Z' }, 'usage[1].occurred_at', 'VALIDATION_FAILED'],
    ['a secret', { attributes: { k: 'sk_live_0123456789abcdef' } }, 'usage[1].attributes.k', 'PAYLOAD_CONTAINS_SECRET'],
    [
      'a secret as a key',
      { attributes: { ghp_0123456789abcdef: 1 } },
      'usage[1].attributes.ghp_0123456789abcdef',
      'PAYLOAD_CONTAINS_SECRET',
    ],
    [
      'a secret deep in a list',
      { attributes: { a: [{ b: ['x', 'AKIA0123456789ABCDEF'] }] } },
      'usage[1].attributes.a[0].b[1]',
      'PAYLOAD_CONTAINS_SECRET',
    ],
    ['a foreign field inside cost', { cost: { amount: '1', currency: 'USD', rate: 1 } }, 'usage[1].cost.rate', 'VALIDATION_FAILED'],
  ])('refuses the whole batch for %s, naming it', (_name, over, path, code) => {
    const err = fail({ usage: [ok, { ...ok, ...over }] });
    expect(err.code).toBe(code);
    expect(err.details?.map((d) => d.path)).toContain(path);
  });

  it('refuses more than 100 records and an empty batch', () => {
    expect(fail({ usage: Array.from({ length: 101 }, () => ok) }).details?.map((d) => d.path)).toContain('usage');
    expect(fail({ usage: [] }).details?.map((d) => d.path)).toContain('usage');
  });

  it('names every record whose session is not the caller’s own', () => {
    const records = parseUsageInput({ usage: [ok, { ...ok, session_id: '0d9c5a52-1e57-4f0b-9c62-6b0c1e3a1b2c' }] }, now);
    expect(foreignSessionDetails(records, new Set(), true)).toEqual([
      { path: 'usage[1].session_id', issue: 'session_id is not one of your sessions' },
    ]);
    expect(foreignSessionDetails(records, new Set(['0d9c5a52-1e57-4f0b-9c62-6b0c1e3a1b2c']), true)).toEqual([]);
  });
});
