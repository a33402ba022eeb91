import { usageFromAnthropicMessage, usageFromOpenAIResponse } from './usage-records';

describe('usage records from provider responses (D-45)', () => {
  it('adds Anthropic cache reads and writes into input, the message id as external_id', () => {
    const record = usageFromAnthropicMessage(
      {
        id: 'msg_01',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 },
      },
      { session_id: '0d9c5a52-1e57-4f0b-9c62-6b0c1e3a1b2c' },
    );
    expect(record).toEqual({
      external_id: 'msg_01',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      operation: 'chat',
      input_tokens: 2400,
      output_tokens: 50,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 300,
      session_id: '0d9c5a52-1e57-4f0b-9c62-6b0c1e3a1b2c',
    });
    expect(usageFromAnthropicMessage({ id: 'm', model: 'x', usage: { input_tokens: 1, output_tokens: 2 } })).toEqual({
      external_id: 'm',
      provider: 'anthropic',
      model: 'x',
      operation: 'chat',
      input_tokens: 1,
      output_tokens: 2,
    });
  });

  it('keeps OpenAI counts (cached inside input, reasoning inside output), Responses and Chat Completions alike', () => {
    expect(
      usageFromOpenAIResponse({
        id: 'resp_1',
        model: 'gpt-5',
        usage: {
          input_tokens: 900,
          output_tokens: 400,
          input_tokens_details: { cached_tokens: 600 },
          output_tokens_details: { reasoning_tokens: 250 },
        },
      }),
    ).toEqual({
      external_id: 'resp_1',
      provider: 'openai',
      model: 'gpt-5',
      operation: 'chat',
      input_tokens: 900,
      output_tokens: 400,
      cache_read_input_tokens: 600,
      reasoning_output_tokens: 250,
    });
    expect(
      usageFromOpenAIResponse({
        id: 'chatcmpl-1',
        model: 'gpt-4o',
        usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } },
      }),
    ).toEqual({ external_id: 'chatcmpl-1', provider: 'openai', model: 'gpt-4o', operation: 'chat', input_tokens: 10, output_tokens: 5 });
  });
});
