import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { defineCommand } from '../message';
import type { TopicKey } from '../topics';

export const SERVICE_NAMES = ['identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The command topic of each service (for commands every service answers). */
export const ServiceCommandTopic: Record<ServiceName, TopicKey> = {
  identity: 'identityCommands',
  ingestion: 'ingestionCommands',
  correlation: 'correlationCommands',
  sessions: 'sessionsCommands',
  plate: 'plateCommands',
  connectors: 'connectorsCommands',
  webhooks: 'webhooksCommands',
  reporting: 'reportingCommands',
};

/** Asks a service for its status; the service answers from its own database. */
export class StatusQueryV1 {
  @IsString()
  @IsNotEmpty()
  requestedBy!: string;
}

export class AppliedMigration {
  @IsString()
  name!: string;

  @IsInt()
  timestamp!: number;
}

export class StatusResultV1 {
  @IsIn(SERVICE_NAMES)
  service!: ServiceName;

  @IsString()
  instanceId!: string;

  @IsString()
  version!: string;

  /** The Postgres schema the service owns. */
  @IsString()
  schema!: string;

  /** Migrations applied in that schema, newest first (read from Postgres). */
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => AppliedMigration)
  migrations!: AppliedMigration[];

  @IsInt()
  @Min(0)
  databaseLatencyMs!: number;

  @IsOptional()
  @IsString()
  databaseVersion?: string;
}

/** One contract per service command topic: same shape, routed by topic. */
export const StatusQuery = Object.fromEntries(
  SERVICE_NAMES.map((service) => [
    service,
    defineCommand({
      type: 'system.status.query',
      version: 1,
      topic: ServiceCommandTopic[service],
      payload: StatusQueryV1,
      result: StatusResultV1,
    }),
  ]),
) as Record<ServiceName, ReturnType<typeof defineCommand<StatusQueryV1, StatusResultV1>>>;
