import { Type } from 'class-transformer';
import { IsArray, IsString, Matches, ValidateIf, ValidateNested } from 'class-validator';
import { checkPlain, ContractViolation, parsePayload } from './validate';
import { StatusResultV1 } from './system/status.query';

class Item {
  @Matches(/^[a-z]+$/) kind!: string;
}
class Batch {
  @IsString() owner!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
}

describe('parsePayload', () => {
  it('returns a valid payload as parsed, without instances', () => {
    const plain = { owner: 'm', items: [{ kind: 'a' }] };
    expect(parsePayload(Batch, plain)).toBe(plain);
  });

  it('returns instances for a valid payload of a class the compiled check cannot express', () => {
    class Conditional {
      @IsString() kind!: string;
      @ValidateIf((o: Conditional) => o.kind === 'x') @IsString() extra?: string;
    }
    expect(parsePayload(Conditional, { kind: 'y' })).toBeInstanceOf(Conditional);
    expect(() => parsePayload(Conditional, { kind: 'x', extra: 3 })).toThrow(ContractViolation);
  });

  it('names every violation with a D-1 path, unknown fields included', () => {
    const error = (() => {
      try {
        parsePayload(Batch, { owner: 3, items: [{ kind: 'ok' }, { kind: 'NO', extra: 1 }], stray: true }, 'batch.v1');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ContractViolation);
    const paths = (error as ContractViolation).details.map((d) => d.path).sort();
    expect(paths).toEqual(['items[1].extra', 'items[1].kind', 'owner', 'stray']);
    expect((error as ContractViolation).contract).toBe('batch.v1');
  });

  it.each([null, 'text', 42, [1, 2]])('rejects a non-object payload (%p)', (value) => {
    expect(() => parsePayload(Batch, value)).toThrow(ContractViolation);
  });

  it('validates nested results (the status reply)', () => {
    expect(() =>
      parsePayload(StatusResultV1, {
        service: 'identity',
        instanceId: 'i',
        version: '1',
        schema: 'identity',
        migrations: [{ name: 'Init', timestamp: 'yesterday' }],
        databaseLatencyMs: 1,
      }),
    ).toThrow(/migrations\[0\]\.timestamp/);
  });
});

describe('checkPlain', () => {
  it('answers a valid plain value as it is, without instances', () => {
    const plain = { owner: 'm', items: [{ kind: 'a' }] };
    const { value, errors } = checkPlain(Batch, plain);
    expect(errors).toEqual([]);
    expect(value).toBe(plain);
  });

  it('names what it refuses as class-validator does, on the hydrated instance', () => {
    const { value, errors } = checkPlain(Batch, { owner: 'm', items: [{ kind: 'a' }, { kind: 'NO' }], stray: 1 });
    expect(value).toBeInstanceOf(Batch);
    expect(value.items[1]).toBeInstanceOf(Item);
    expect(errors.map((e) => e.property).sort()).toEqual(['items', 'stray']);
  });
});
