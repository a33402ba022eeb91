// Readiness probe for a Kafka broker: exits 0 once an admin describeCluster
// succeeds. Used by scripts/infra.sh. Usage: node kafka-ready.mjs host:port [min brokers]
// (with min brokers, the cluster must list at least that many: a KRaft cluster is ready once every node joined).
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;
const brokers = (process.argv[2] ?? '127.0.0.1:9092').split(',');
const admin = new Kafka({ clientId: 'kafka-ready', brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  const minBrokers = Number(process.argv[3] ?? 1);
  if (cluster.brokers.length < minBrokers) throw new Error(`${cluster.brokers.length} of ${minBrokers} brokers in the cluster`);
  await admin.disconnect();
  process.exit(0);
} catch (err) {
  console.error(String(err));
  process.exit(1);
}
