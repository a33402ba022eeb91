import * as contracts from '@worktrack/contracts';
import type { CommandContract, MessageContract, TopicKey } from '@worktrack/contracts';

let all: MessageContract[] | undefined;

/** Every message and command contract `@worktrack/contracts` exports (a contract is a frozen `{ type, version, topic, payload }`). */
export function allContracts(): readonly MessageContract[] {
  all ??= (Object.values(contracts) as unknown[]).filter((value): value is MessageContract => {
    const c = value as Partial<MessageContract> | null;
    return (
      c !== null &&
      typeof c === 'object' &&
      typeof c.type === 'string' &&
      typeof c.version === 'number' &&
      typeof c.topic === 'string' &&
      typeof c.payload === 'function'
    );
  });
  return all;
}

/** The command contracts (those with a `result`) carried by `topic`. */
export function commandContractsOf(topic: TopicKey): CommandContract[] {
  return allContracts().filter(
    (c): c is CommandContract => c.topic === topic && typeof (c as Partial<CommandContract>).result === 'function',
  );
}
