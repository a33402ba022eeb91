import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { ContractViolation, parsePayload, type MessageContract } from '@worktrack/contracts';

/**
 * Turns a message's decoded JSON into the contract's payload class, or throws
 * ContractViolation (a command answers INTERNAL with the request id: the
 * requester built it from a request it had validated, so a violation is a bug
 * on its side, not the client's; an event goes to the dead-letter topic).
 * Applies to the `@Payload()` parameter only.
 */
export class ContractValidationPipe implements PipeTransform {
  private readonly name: string;

  /** `many`: the payload is an array of messages (`@HandleEvents`), each validated. */
  constructor(
    private readonly contract: Pick<MessageContract, 'type' | 'version' | 'payload'>,
    private readonly opts: { many?: boolean } = {},
  ) {
    this.name = `${contract.type}.v${contract.version}`;
  }

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Nest reports @Payload() as 'body' to pipes (and @Ctx() as 'custom').
    if (metadata.type !== 'body') return value;
    if (!this.opts.many) return parsePayload(this.contract.payload, value, this.name);
    if (!Array.isArray(value)) throw new ContractViolation(this.name, [{ path: '', issue: 'expected a batch of messages' }]);
    return value.map((one) => parsePayload(this.contract.payload, one, this.name));
  }
}
