/**
 * Benchmark (not a test): the CPU one validation costs, class-validator
 * against the compiled check (ADR 0012 decision 4), in this process
 * after a warm-up. No infrastructure.
 *
 *   npm run bench:validation [-- --iterations 2000]
 *
 * Cases: a 100-event IngestEventsV1 command (what the command client, the
 * command server and the outbox validate), a StartSessionV1 command, and the
 * gateway's body pipe for POST /sessions (Nest's ValidationPipe with
 * class-transformer against CompiledValidationPipe).
 */
import { randomUUID } from 'node:crypto';
import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { validateSync } from 'class-validator';
import { hydrate, IngestEventsV1, parsePayload, StartSessionV1 } from '@worktrack/contracts';
import { gatewayValidationPipe } from '../apps/gateway/src/http/validation.pipe';
import { StartSessionDto } from '../apps/gateway/src/sessions/sessions.dto';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ITERATIONS = arg('iterations', 2000);

const actor = { memberId: randomUUID(), workspaceId: randomUUID(), scope: 'full', credential: 'api_token' };
const batch = {
  actor,
  receivedAt: new Date().toISOString(),
  events: Array.from({ length: 100 }, (_, i) => ({
    sourceType: 'ci',
    eventType: 'ci.step',
    occurredAt: new Date(Date.now() - i * 1000).toISOString(),
    payload: { host: 'build-runner-17', pipeline: 'release', commit: 'a'.repeat(40), note: 'x'.repeat(80) },
    externalId: randomUUID(),
  })),
};
const start = { actor, requestedAt: new Date().toISOString(), intentText: 'cpu bench', source: 'timer', idempotencyKey: randomUUID() };
const startBody = { intent_text: 'cpu bench', source: 'timer', idempotency_key: randomUUID() };

/** The pre-issue-17 contract check: hydrate, then class-validator. */
function classValidatorOnly(cls: new () => object, plain: object): void {
  const errors = validateSync(hydrate(cls, plain), { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new Error('invalid');
}

async function cpuPerCall(label: string, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(200, ITERATIONS); i++) await fn();
  const before = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) await fn();
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000 / ITERATIONS;
  console.log(`  ${label.padEnd(58)} ${ms.toFixed(3).padStart(8)} ms CPU per call`);
  return ms;
}

async function main(): Promise<void> {
  console.log(`bench:validation: ${ITERATIONS} calls each after a warm-up`);
  const pairs: Array<[string, () => unknown, () => unknown]> = [
    ['IngestEventsV1, 100 events', () => classValidatorOnly(IngestEventsV1, batch), () => parsePayload(IngestEventsV1, batch)],
    ['StartSessionV1', () => classValidatorOnly(StartSessionV1, start), () => parsePayload(StartSessionV1, start)],
  ];
  const metadata: ArgumentMetadata = { type: 'body', metatype: StartSessionDto };
  const reference = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });
  const compiled = gatewayValidationPipe();
  pairs.push([
    'gateway body pipe, POST /sessions',
    () => reference.transform({ ...startBody }, metadata),
    () => compiled.transform({ ...startBody }, metadata),
  ]);
  for (const [label, before, after] of pairs) {
    const a = await cpuPerCall(`${label}: class-validator`, before);
    const b = await cpuPerCall(`${label}: compiled (parsePayload incl. input-safety walk)`, after);
    console.log(`  ${label}: ${(a / b).toFixed(1)}× less CPU`);
  }
}

void main();
