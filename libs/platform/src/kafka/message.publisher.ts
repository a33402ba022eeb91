import { parsePayload, toWire, type MessageContract, Topics } from '@worktrack/contracts';
import type { KafkaClient } from './kafka.client';
import { contractHeaders, type HeaderMap } from './message';

export interface PublishOptions {
  /** Partition key; one member's messages share a key (their id) to keep order. */
  key: string;
  messageId?: string;
  requestId?: string;
  headers?: HeaderMap;
}

/**
 * Publishes contract messages. The payload is validated against its contract
 * before it leaves (producer side of the contract test); the broker confirms
 * with acks=all before `publish` resolves.
 */
export class MessagePublisher {
  constructor(private readonly client: KafkaClient) {}

  async publish<T extends object>(contract: MessageContract<T>, payload: T, opts: PublishOptions): Promise<void> {
    await this.publishMany(contract, [{ payload, ...opts }]);
  }

  async publishMany<T extends object>(contract: MessageContract<T>, messages: Array<PublishOptions & { payload: T }>): Promise<void> {
    if (messages.length === 0) return;
    await this.client.send(
      this.client.topic(Topics[contract.topic]),
      messages.map((m) => {
        const wire = toWire(m.payload);
        parsePayload(contract.payload, wire.plain, `${contract.type}.v${contract.version}`);
        return {
          key: m.key,
          value: wire.text,
          headers: { ...contractHeaders(contract, m), ...m.headers },
        };
      }),
    );
  }
}
