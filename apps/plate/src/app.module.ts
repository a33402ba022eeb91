import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { plateDatabase } from './database/data-source';
import { PlateMembersModule } from './members/members.module';
import { PlateModule } from './plate/plate.module';

/**
 * The plate service: daily plates, capacity and overflow (D-32 … D-35). Owns
 * schema `plate`, answers `plate.commands`, keeps a projection of members from
 * `identity.members`.
 */
@Module({})
export class PlateAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: PlateAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'plate', ...runtime, database: plateDatabase }),
        StatusModule.forService('plate'),
        PlateMembersModule,
        PlateModule,
      ],
    };
  }
}
