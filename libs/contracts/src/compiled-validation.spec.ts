import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateIf, ValidateNested, validateSync } from 'class-validator';
import * as contracts from './index';
import { compiledCheck, validateWhitelisted } from './compiled-validation';
import { hydrate } from './validate';
import { IngestEventsV1 } from './ingestion/ingestion.commands';
import { StartSessionV1 } from './sessions/sessions.commands';

type Ctor = new () => object;

/** Every payload and result class of the contract registry. */
const contractClasses = (): Array<[string, Ctor]> =>
  Object.values(contracts as Record<string, unknown>)
    .filter(
      (v): v is { type: string; payload: Ctor; result?: Ctor } => typeof v === 'object' && v !== null && 'type' in v && 'payload' in v,
    )
    .flatMap((c) => [[c.type, c.payload] as [string, Ctor], ...(c.result ? [[`${c.type}.result`, c.result] as [string, Ctor]] : [])]);

const classValidatorAccepts = (instance: object): boolean =>
  validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }).length === 0;

const actor = () => ({ memberId: randomUUID(), workspaceId: randomUUID(), scope: 'full', credential: 'api_token' });
const ingest = () => ({
  actor: actor(),
  receivedAt: '2026-11-24T07:00:00.000Z',
  events: Array.from({ length: 3 }, (_, i) => ({
    sourceType: 'custom',
    eventType: 'note.added',
    occurredAt: '2026-11-24T06:59:00Z',
    payload: { n: i, nested: { deep: [1, 'two'] } },
    ...(i === 1 ? { externalId: `ext-${i}` } : {}),
  })),
});
const start = () => ({
  actor: actor(),
  requestedAt: '2026-11-24T07:00:00.000Z',
  intentText: 'write the ADR',
  source: 'timer',
  estimatedDurationMin: 30,
  idempotencyKey: 'k-1',
});

/** One change to a valid body: a field set to any JSON value, removed, or a stray field added (anywhere in the tree). */
const mutation = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('set', 'delete', 'add'),
  value: fc.oneof(fc.jsonValue(), fc.constantFrom('', 'x'.repeat(300), randomUUID(), '2026-13-01T00:00:00Z', -1, 1.5, 101, null)),
});

function mutate(body: Record<string, unknown>, m: { pick: number; action: string; value: unknown }): void {
  const objects: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) {
      objects.push(v as Record<string, unknown>);
      Object.values(v).forEach(walk);
    }
  };
  walk(body);
  const target = objects[m.pick % objects.length];
  const keys = Object.keys(target);
  if (m.action === 'add' || keys.length === 0) target.stray = m.value;
  else if (m.action === 'delete') delete target[keys[m.pick % keys.length]];
  else target[keys[m.pick % keys.length]] = m.value;
}

describe('compiled validation', () => {
  it('compiles the hot contracts (events batch, session commands) and their results', () => {
    for (const cls of [IngestEventsV1, StartSessionV1, contracts.IngestResultV1, contracts.SessionV1, contracts.ActorV1]) {
      expect(compiledCheck(cls)).not.toBeNull();
    }
  });

  it('compiles most contract classes; any that does not still validates through class-validator', () => {
    const classes = contractClasses();
    const compiled = classes.filter(([, cls]) => compiledCheck(cls) !== null);
    expect(classes.length).toBeGreaterThan(40);
    expect(compiled.length / classes.length).toBeGreaterThan(0.8);
  });

  it.each([
    ['IngestEventsV1', IngestEventsV1, ingest],
    ['StartSessionV1', StartSessionV1, start],
  ] as const)('accepts a valid %s on the compiled path, and never accepts what class-validator refuses', (_name, cls, valid) => {
    const check = compiledCheck(cls)!;
    expect(check(hydrate(cls as Ctor, valid()))).toBe(true);
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const body = valid() as Record<string, unknown>;
        for (const m of mutations) mutate(body, m);
        const instance = hydrate(cls as Ctor, body);
        if (check(instance)) expect(classValidatorAccepts(instance)).toBe(true);
        // Whatever the compiled check says, the result is class-validator's.
        expect(validateWhitelisted(instance).length === 0).toBe(classValidatorAccepts(instance));
      }),
      { numRuns: 400 },
    );
  });

  it('leaves classes it cannot express to class-validator', () => {
    class Conditional {
      @IsString() kind!: string;
      @ValidateIf((o: Conditional) => o.kind === 'x') @IsString() extra?: string;
    }
    class Untyped {
      @IsOptional() @ValidateNested() child?: object;
    }
    class Nested {
      @ValidateNested() @Type(() => Conditional) inner!: Conditional;
    }
    expect(compiledCheck(Conditional)).toBeNull();
    expect(compiledCheck(Untyped)).toBeNull();
    expect(compiledCheck(Nested)).toBeNull();
    expect(validateWhitelisted(hydrate(Conditional, { kind: 'x', extra: 3 }))).toHaveLength(1);
  });
});
