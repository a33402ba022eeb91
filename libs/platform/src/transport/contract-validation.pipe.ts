import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { parsePayload, type MessageContract } from '@worktrack/contracts';

/**
 * Turns a message's decoded JSON into the contract's payload class, or throws
 * ContractViolation (a command answers INTERNAL with the request id, as the
 * requester validated before sending; an event goes to the dead-letter topic).
 * Applies to the `@Payload()` parameter only.
 */
export class ContractValidationPipe implements PipeTransform {
  private readonly name: string;

  constructor(private readonly contract: Pick<MessageContract, 'type' | 'version' | 'payload'>) {
    this.name = `${contract.type}.v${contract.version}`;
  }

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Nest reports @Payload() as 'body' to pipes (and @Ctx() as 'custom').
    if (metadata.type !== 'body') return value;
    return parsePayload(this.contract.payload, value, this.name);
  }
}
