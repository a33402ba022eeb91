import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import fc from 'fast-check';
import { compiledCheck, ErrorCode, flattenValidationErrors } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { ActivityBatchDto } from '../activity/activity.dto';
import { CloseSessionDto, ListSessionsQueryDto, PauseSessionDto, SessionIdParam, StartSessionDto } from '../sessions/sessions.dto';
import { gatewayValidationPipe } from './validation.pipe';

/** The reference: Nest's pipe with class-transformer and class-validator only. */
const reference = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: false,
  exceptionFactory: (errors) => new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', flattenValidationErrors(errors)),
});
const pipe = gatewayValidationPipe();

const outcome = async (p: ValidationPipe, value: unknown, metadata: ArgumentMetadata): Promise<unknown> => {
  try {
    return { ok: JSON.parse(JSON.stringify(await p.transform(value, metadata))) as unknown };
  } catch (err) {
    return err instanceof DomainError ? { code: err.code, details: err.details } : { thrown: String(err) };
  }
};

type Input = [new () => object, () => Record<string, unknown>, ArgumentMetadata['type']];
const bodies: Input[] = [
  [StartSessionDto, () => ({ intent_text: 'write the ADR', source: 'timer', estimated_duration_min: 30, goal_id: null }), 'body'],
  [PauseSessionDto, () => ({ pause_reason: 'lunch' }), 'body'],
  [CloseSessionDto, () => ({ closing_note: 'done', closed_at: '2026-11-24T07:00:00Z' }), 'body'],
  [
    ActivityBatchDto,
    () => ({ events: [{ event_type: 'note.added', payload: { a: [1, { b: 2 }] }, external_id: 'x-1' }, { event_type: 'n' }] }),
    'body',
  ],
  [SessionIdParam, () => ({ session_id: '0190f3c4-1a2b-7c3d-8e4f-0123456789ab' }), 'param'],
];
/** Converts `limit` with `@Type(() => Number)`: not compiled, ValidationPipe answers. */
const queries: Input[] = [[ListSessionsQueryDto, () => ({ state: 'active', limit: '20', from: '2026-11-01' }), 'query']];

describe('the gateway validation pipe (compiled check first)', () => {
  it.each(bodies)('answers a valid %p with a DTO instance on the compiled path, as ValidationPipe does', async (dto, body, type) => {
    expect(compiledCheck(dto)).not.toBeNull();
    const metadata: ArgumentMetadata = { type, metatype: dto };
    const result: unknown = await pipe.transform(body(), metadata);
    expect(result).toBeInstanceOf(dto);
    expect(await outcome(pipe, body(), metadata)).toEqual(await outcome(reference, body(), metadata));
  });

  it('leaves a DTO that converts (a query with a numeric limit) to ValidationPipe', async () => {
    expect(compiledCheck(ListSessionsQueryDto)).toBeNull();
    const metadata: ArgumentMetadata = { type: 'query', metatype: ListSessionsQueryDto };
    expect(await pipe.transform({ limit: '20' }, metadata)).toMatchObject({ limit: 20 });
  });

  it('refuses exactly what ValidationPipe refuses, with the same details', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bodies, ...queries),
        fc.constantFrom('set', 'delete', 'add'),
        fc.nat(),
        fc.oneof(fc.jsonValue(), fc.constantFrom('', 'x'.repeat(600), '2026-02-30T00:00:00Z', 0, 1.5, null)),
        async ([dto, body, type], action, pick, value) => {
          const b = body();
          const target = Array.isArray(b.events) ? (b.events[pick % b.events.length] as Record<string, unknown>) : b;
          const keys = Object.keys(target);
          if (action === 'add') target[`stray${pick % 3}`] = value;
          else if (action === 'delete') delete target[keys[pick % keys.length]];
          else target[keys[pick % keys.length]] = value;
          const metadata: ArgumentMetadata = { type, metatype: dto };
          expect(await outcome(pipe, b, metadata)).toEqual(await outcome(reference, structuredClone(b), metadata));
        },
      ),
      { numRuns: 300 },
    );
  });
});
