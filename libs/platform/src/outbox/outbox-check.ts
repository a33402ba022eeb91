import { parsePayload, type MessageContract } from '@worktrack/contracts';
import { allContracts } from '../contracts/contract-registry';

/** A relayed outbox row that does not match its contract: what the relay read, and why. */
export interface OutboxViolation {
  topic: string;
  type: string;
  version: number;
  messageId: string;
  reason: string;
}

let registry: Map<string, MessageContract> | undefined;

/** Every exported contract by `<type>@v<version>`. */
function contractsByType(): Map<string, MessageContract> {
  registry ??= new Map(allContracts().map((c) => [`${c.type}@v${c.version}`, c]));
  return registry;
}

/**
 * Why an outbox row does not match its contract (its type and version
 * registered, its topic the contract's, its payload valid), or undefined when
 * it does. The relay asks this of every row it reads when verifying
 * (`OUTBOX_VERIFY_ROWS=true`, which the test tiers set).
 */
export function outboxRowViolation(row: { topic: string; type: string; version: number; payload: unknown }): string | undefined {
  const contract = contractsByType().get(`${row.type}@v${row.version}`);
  if (!contract) return `no contract ${row.type} v${row.version}`;
  if (contract.topic !== row.topic) return `topic ${row.topic}, the contract's is ${contract.topic}`;
  try {
    parsePayload(contract.payload, row.payload, `${row.type}.v${row.version}`);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const violations: OutboxViolation[] = [];

/** Records a violation found by a relay of this process. */
export function recordOutboxViolation(violation: OutboxViolation): void {
  violations.push(violation);
}

/** The violations the relays of this process found since the last call, and forgets them (the integration tier fails a spec file that has any). */
export function takeOutboxViolations(): OutboxViolation[] {
  return violations.splice(0);
}
