import { IsString } from 'class-validator';
import { codePointLength, findUnsafeInput, MAX_JSON_DEPTH, MaxCodePoints } from './input-safety';
import { ContractViolation, parsePayload } from './validate';

const nest = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

class Named {
  @IsString() @MaxCodePoints(3) name!: string;
}

describe('findUnsafeInput', () => {
  it('names NUL and lone surrogates in values and keys, with D-1 paths', () => {
    const found = findUnsafeInput({
      events: [{ external_id: 'a\u0000b' }, { payload: { 'k\u0000': 1, ok: 'x\uD800', pair: '\uD83D\uDE00' } }],
    });
    expect(found.map(({ kind, path }) => [kind, path])).toEqual([
      ['text', 'events[0].external_id'],
      ['text', 'events[1].payload.k\\u0000'],
      ['text', 'events[1].payload.ok'],
    ]);
  });

  it('accepts well-formed text, surrogate pairs and variation selectors included', () => {
    expect(findUnsafeInput({ a: ['\uD83D\uDE00', 'x\uFE0F', 'é'], b: { c: null, d: 1.5 } })).toEqual([]);
  });

  it('bounds the depth without recursing (a million levels)', () => {
    expect(findUnsafeInput(nest(MAX_JSON_DEPTH))).toEqual([]);
    expect(findUnsafeInput(nest(MAX_JSON_DEPTH + 1)).map((f) => f.kind)).toEqual(['depth']);
    let deep: unknown = [];
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(findUnsafeInput(deep).map((f) => f.kind)).toEqual(['depth']);
  });

  it('refuses __proto__ and constructor.prototype keys, not a plain constructor key', () => {
    const parsed = JSON.parse('{"p":{"__proto__":{"x":1}},"c":{"constructor":{"prototype":{}}},"ok":{"constructor":"x"}}') as unknown;
    expect(findUnsafeInput(parsed).map(({ kind, path }) => [kind, path])).toEqual([
      ['prototype', 'p.__proto__'],
      ['prototype', 'c.constructor'],
    ]);
  });

  it('is part of every contract: parsePayload refuses what no column can hold', () => {
    expect(() => parsePayload(Named, { name: 'a\u0000' })).toThrow(ContractViolation);
    expect(() => parsePayload(Named, { name: '\uDC00' })).toThrow(/unpaired UTF-16 surrogate/);
  });
});

describe('MaxCodePoints', () => {
  it('counts code points as Postgres does, variation selectors included', () => {
    expect(codePointLength('\uD83D\uDE00x\uFE0F')).toBe(3);
    expect(parsePayload(Named, { name: '\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00' }).name).toHaveLength(6);
    // class-validator's MaxLength(3) counts this as 2 (it leaves U+FE0F out); the column counts 4.
    expect(() => parsePayload(Named, { name: 'a\uFE0Fb\uFE0F' })).toThrow(/at most 3 characters/);
  });
});
