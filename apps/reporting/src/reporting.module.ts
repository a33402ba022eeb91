import { Module } from '@nestjs/common';
import { ProjectionConsumer } from './projection/projection.consumer';
import { ProjectionRepository } from './projection/projection.repository';
import { ProjectionService } from './projection/projection.service';
import { ReportsConsumer } from './reports/reports.consumer';
import { ReportsService } from './reports/reports.service';
import { SummaryCache } from './reports/summary-cache';

@Module({
  controllers: [ProjectionConsumer, ReportsConsumer],
  providers: [ProjectionRepository, ProjectionService, ReportsService, SummaryCache],
})
export class ReportingModule {}
