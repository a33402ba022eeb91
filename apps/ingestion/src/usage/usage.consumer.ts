import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { GetModelPrices, IngestUsage, ListUsage, PutModelPrices, UsageLinked, type PayloadOf } from '@worktrack/contracts';
import { ContractContext, HandleCommand, HandleEvents } from '@worktrack/platform';
import { UsageService } from './usage.service';

/**
 * `ingestion.usage.*` and `ingestion.prices.*` on `ingestion.commands`, and
 * correlation's usage links from `correlation.links` (group `ingestion.links`).
 */
@Controller()
export class UsageConsumer {
  constructor(private readonly usage: UsageService) {}

  @HandleCommand(IngestUsage)
  ingest(@Payload() command: PayloadOf<typeof IngestUsage>, @Ctx() ctx: ContractContext) {
    return this.usage.ingest(command, ctx.messageId);
  }

  @HandleCommand(ListUsage)
  list(@Payload() query: PayloadOf<typeof ListUsage>) {
    return this.usage.list(query);
  }

  @HandleCommand(GetModelPrices)
  prices(@Payload() query: PayloadOf<typeof GetModelPrices>) {
    return this.usage.prices(query.actor.workspaceId);
  }

  @HandleCommand(PutModelPrices)
  replacePrices(@Payload() command: PayloadOf<typeof PutModelPrices>) {
    return this.usage.replacePrices(command);
  }

  /** The links of one fetched partition batch in one statement. */
  @HandleEvents(UsageLinked, { group: 'ingestion.links', concurrency: 12, reportLag: true })
  linked(@Payload() messages: Array<PayloadOf<typeof UsageLinked>>) {
    return this.usage.applyLinks(messages);
  }
}
