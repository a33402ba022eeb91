import { ConnectorEntity } from '../store/entities/connector.entity';
import { DeliveryEntity } from '../deliveries/entities/delivery.entity';
import { ConnectorsInit1763900000000 } from './migrations/1763900000000-ConnectorsInit';
import { ConnectorsTables1763900000001 } from './migrations/1763900000001-ConnectorsTables';

/** The connectors service owns exactly this Postgres schema. */
export const connectorsDatabase = {
  schema: 'connectors',
  entities: [ConnectorEntity, DeliveryEntity],
  migrations: [ConnectorsInit1763900000000, ConnectorsTables1763900000001],
};
