import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Endpoints {
  /** A server URL; each test run creates its own database on it. */
  databaseUrl: string;
  kafkaBrokers: string;
  redisUrl: string;
  /** How each endpoint was obtained: env, testcontainers or local. */
  sources: { postgres: string; kafka: string; redis: string };
  /** Containers to stop at teardown (testcontainers path only). */
  stop: () => Promise<void>;
}

/** The workspace root (the folder holding nx.json), from source or from dist/. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no nx.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

const dockerAvailable = (): boolean =>
  Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock') || existsSync(`${process.env.HOME ?? ''}/.docker/run/docker.sock`);

/**
 * Where the test run's Postgres, Kafka and Redis are: endpoints named by
 * DATABASE_URL / KAFKA_BROKERS / REDIS_URL are used as they are; what is still
 * missing comes from testcontainers when a Docker engine answers, else from the
 * project's own local processes (scripts/infra.sh: the machine's Postgres and
 * Redis, a KRaft broker resolved from Maven Central).
 */
export async function resolveEndpoints(env: NodeJS.ProcessEnv = process.env): Promise<Endpoints> {
  const given = { postgres: env.DATABASE_URL, kafka: env.KAFKA_BROKERS, redis: env.REDIS_URL };
  if (given.postgres && given.kafka && given.redis) {
    return {
      databaseUrl: given.postgres,
      kafkaBrokers: given.kafka,
      redisUrl: given.redis,
      sources: { postgres: 'env', kafka: 'env', redis: 'env' },
      stop: () => Promise.resolve(),
    };
  }
  if (dockerAvailable()) {
    const fromContainers = await tryContainers(given);
    if (fromContainers) return fromContainers;
  }
  const result = spawnSync('bash', [join(repoRoot(), 'scripts', 'infra.sh'), 'up'], { stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`scripts/infra.sh up failed (exit ${result.status ?? 'signal'}); see its output above`);
  return {
    databaseUrl: given.postgres ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    kafkaBrokers: given.kafka ?? `127.0.0.1:${env.KAFKA_PORT ?? '9092'}`,
    redisUrl: given.redis ?? 'redis://127.0.0.1:6379',
    sources: { postgres: given.postgres ? 'env' : 'local', kafka: given.kafka ? 'env' : 'local', redis: given.redis ? 'env' : 'local' },
    stop: () => Promise.resolve(),
  };
}

async function tryContainers(given: { postgres?: string; kafka?: string; redis?: string }): Promise<Endpoints | undefined> {
  const tc = await import('testcontainers');
  try {
    await tc.getContainerRuntimeClient();
  } catch {
    return undefined; // a socket but no engine behind it
  }
  const started: Array<{ stop: () => Promise<unknown> }> = [];
  let databaseUrl = given.postgres;
  let kafkaBrokers = given.kafka;
  let redisUrl = given.redis;
  if (!databaseUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:16-alpine')
      .withCommand(['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
      .start();
    started.push(pg);
    databaseUrl = pg.getConnectionUri();
  }
  if (!kafkaBrokers) {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const kafka = await new KafkaContainer('confluentinc/cp-kafka:7.7.1')
      .withKraft()
      .withEnvironment({ KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false' })
      .start();
    started.push(kafka);
    kafkaBrokers = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
  }
  if (!redisUrl) {
    const redis = await new tc.GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    started.push(redis);
    redisUrl = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  }
  return {
    databaseUrl,
    kafkaBrokers,
    redisUrl,
    sources: {
      postgres: given.postgres ? 'env' : 'testcontainers',
      kafka: given.kafka ? 'env' : 'testcontainers',
      redis: given.redis ? 'env' : 'testcontainers',
    },
    stop: async () => {
      await Promise.allSettled(started.map((c) => c.stop()));
    },
  };
}
