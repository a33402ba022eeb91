import { ReportingTables1765100000000 } from './migrations/1765100000000-ReportingTables';
import { ReportingWeekBuckets1765300000000 } from './migrations/1765300000000-ReportingWeekBuckets';
import { ReportingPlateOutcomes1765400000000 } from './migrations/1765400000000-ReportingPlateOutcomes';
import { ReportingWorkspaceRevisions1765500000000 } from './migrations/1765500000000-ReportingWorkspaceRevisions';

/** The reporting service owns exactly this Postgres schema. */
export const reportingDatabase = {
  schema: 'reporting',
  entities: [],
  migrations: [
    ReportingTables1765100000000,
    ReportingWeekBuckets1765300000000,
    ReportingPlateOutcomes1765400000000,
    ReportingWorkspaceRevisions1765500000000,
  ],
};
