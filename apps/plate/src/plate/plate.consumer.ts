import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AssignPlateItem, CompletePlateItem, GetPlate, type PayloadOf } from '@worktrack/contracts';
import { ContractContext, HandleCommand } from '@worktrack/platform';
import { PlateService } from './plate.service';

/** The plate commands on `plate.commands`. */
@Controller()
export class PlateConsumer {
  constructor(private readonly plate: PlateService) {}

  @HandleCommand(AssignPlateItem)
  assign(@Payload() command: PayloadOf<typeof AssignPlateItem>, @Ctx() ctx: ContractContext) {
    return this.plate.assign(command, ctx.messageId);
  }

  @HandleCommand(GetPlate)
  day(@Payload() query: PayloadOf<typeof GetPlate>) {
    return this.plate.day(query);
  }

  @HandleCommand(CompletePlateItem)
  complete(@Payload() { actor, plateItemId }: PayloadOf<typeof CompletePlateItem>) {
    return this.plate.complete(actor, plateItemId);
  }
}
