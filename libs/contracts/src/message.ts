import type { TopicKey } from './topics';

/** A class whose instances are validated with class-validator. */
export type PayloadClass<T extends object = object> = new () => T;

/**
 * A message contract: one file per message, naming its topic (from the
 * registry), its type, its version and its validated payload class.
 * Entities never travel; only these payloads do.
 */
export interface MessageContract<T extends object = object> {
  readonly type: string;
  readonly version: number;
  readonly topic: TopicKey;
  readonly payload: PayloadClass<T>;
}

/**
 * A command contract: a message that expects one reply, whose data is also
 * a validated class.
 */
export interface CommandContract<T extends object = object, R extends object = object> extends MessageContract<T> {
  readonly result: PayloadClass<R>;
}

export function defineMessage<T extends object>(contract: MessageContract<T>): MessageContract<T> {
  return Object.freeze(contract);
}

export function defineCommand<T extends object, R extends object>(contract: CommandContract<T, R>): CommandContract<T, R> {
  return Object.freeze(contract);
}

export type PayloadOf<C> = C extends MessageContract<infer T> ? T : never;
export type ResultOf<C> = C extends CommandContract<object, infer R> ? R : never;
