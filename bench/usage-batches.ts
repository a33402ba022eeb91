// The two batch bodies the usage benches compare: 100 activity events and 100
// usage records of the same size class, as an agent reports them.
import { randomUUID } from 'node:crypto';

/** Records per batch: the API's batch limit. */
export const BATCH = 100;

export function eventsBody(seq: number): string {
  const now = Date.now();
  return JSON.stringify({
    events: Array.from({ length: BATCH }, (_, i) => ({
      source_type: 'bench',
      event_type: i % 3 === 0 ? 'test.run' : 'tool.call',
      occurred_at: new Date(now - i).toISOString(),
      external_id: `b${seq}-${i}-${randomUUID().slice(0, 8)}`,
      payload: { tool: 'pytest', duration_ms: 1234 + i, ok: i % 7 !== 0, args: ['-q', `tests/unit/test_${i}.py`], host: 'runner-12' },
    })),
  });
}

export function usageBody(seq: number): string {
  const now = Date.now();
  return JSON.stringify({
    usage: Array.from({ length: BATCH }, (_, i) => ({
      external_id: `msg_${seq}_${i}_${randomUUID().slice(0, 8)}`,
      provider: 'anthropic',
      model: i % 2 === 0 ? 'claude-sonnet-4-5' : 'claude-haiku-4-5',
      occurred_at: new Date(now - i).toISOString(),
      duration_ms: 900 + i,
      input_tokens: 12_000 + i,
      cache_read_input_tokens: 8_000,
      output_tokens: 700 + i,
      ...(i % 2 === 0 ? { cost: { amount: `0.0${1000 + i}`, currency: 'USD' } } : {}),
      conversation_id: `conv_${seq}`,
      attributes: { agent: 'bench-bot', 'gen_ai.request.temperature': 0.2, step: i },
    })),
  });
}
