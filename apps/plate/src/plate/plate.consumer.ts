import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AssignPlateItem, CompletePlateItem, GetPlate } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { PlateService } from './plate.service';

/** Handles the plate commands on `plate.commands`. */
@Injectable()
export class PlateConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly plate: PlateService,
  ) {}

  onModuleInit(): void {
    this.commands
      .handle(AssignPlateItem, (command) => this.plate.assign(command))
      .handle(GetPlate, ({ actor, date }) => this.plate.day(actor, date))
      .handle(CompletePlateItem, ({ actor, plateItemId }) => this.plate.complete(actor, plateItemId));
  }
}
