import { BaseRpcContext } from '@nestjs/microservices';
import type { MessageMeta } from '../kafka/message';

/** What a handler gets besides its payload (`@Ctx() ctx: ContractContext`): the message's headers, ids and position. */
export class ContractContext extends BaseRpcContext<[MessageMeta, 'command' | 'event', MessageMeta[]?]> {
  /** The message's meta; for `@HandleEvents`, the first message's. */
  get meta(): MessageMeta {
    return this.args[0];
  }

  /** Every message of the call, in offset order (one for `@HandleCommand` and `@HandleEvent`). */
  get metas(): MessageMeta[] {
    return this.args[2] ?? [this.args[0]];
  }

  get kind(): 'command' | 'event' {
    return this.args[1];
  }

  /** The message id (a command's correlation id): the idempotency key of handlers that create something. */
  get messageId(): string {
    return this.args[0].messageId;
  }
}
