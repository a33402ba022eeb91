import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// The native CRC-32C replaces kafkajs' module in Node's require cache, which
// Jest's module registry does not use: so it is checked in a Node process of
// its own, from the build (this tier runs after it), against the real broker.
const root = join(__dirname, '../../..');
const built = join(root, 'dist/libs/platform/src/kafka/kafkajs-crc32c.js');

const script = `
const { randomBytes } = require('node:crypto');
const { useNativeCrc32c } = require(${JSON.stringify(built)});
const installed = useNativeCrc32c();
const checksum = require('kafkajs/src/protocol/recordBatch/crc32C');
const javascript = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C');
const mismatches = [0, 1, 7, 300, 4096, 40000, 1048576].filter((n) => {
  const b = randomBytes(n);
  return checksum(b) !== javascript(b) >>> 0;
});
const { Kafka, logLevel } = require('kafkajs');
(async () => {
  const kafka = new Kafka({ clientId: 'crc-check', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
  const topic = process.env.CRC_TOPIC;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  const value = randomBytes(40000).toString('base64');
  await producer.send({ topic, messages: [{ key: 'k', value }, { key: 'k', value: 'small' }] });
  const consumer = kafka.consumer({ groupId: topic });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve) => consumer.run({ eachMessage: async ({ message }) => { got.push(message.value.toString()); if (got.length === 2) resolve(); } }));
  await consumer.disconnect();
  await producer.disconnect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  console.log(JSON.stringify({ installed, native: checksum.toString().includes('crc32c('), mismatches, check: checksum(Buffer.from('123456789')), roundTrip: got[0] === value && got[1] === 'small' }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('kafkajs record batches checksummed by the native CRC-32C', () => {
  it('checksums as kafkajs does, and the broker accepts what is produced with it', () => {
    expect(existsSync(built)).toBe(true);
    const run = spawnSync(process.execPath, ['-e', script], {
      cwd: root,
      env: { ...process.env, CRC_TOPIC: `${process.env.KAFKA_TOPIC_PREFIX ?? ''}crc32c-${randomUUID().slice(0, 8)}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`the check failed: ${run.stderr}`);
    expect(JSON.parse(run.stdout)).toEqual({
      installed: true,
      native: true,
      mismatches: [],
      check: 0xe3069283, // CRC-32C's check value (RFC 3720, B.4)
      roundTrip: true,
    });
  });
});
