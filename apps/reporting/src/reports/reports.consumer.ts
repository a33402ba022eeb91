import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GetReport, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { ReportsService } from './reports.service';

/** The report command on `reporting.commands` (D-50 … D-52). */
@Controller()
export class ReportsConsumer {
  constructor(private readonly reports: ReportsService) {}

  @HandleCommand(GetReport)
  report(@Payload() query: PayloadOf<typeof GetReport>) {
    return this.reports.report(query);
  }
}
