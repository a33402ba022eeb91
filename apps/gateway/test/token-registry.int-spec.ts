import { createHash, randomBytes } from 'node:crypto';
import { TokenState, Topics, type TokenStateV1 } from '@worktrack/contracts';
import { ensureTopics, loadConfig } from '@worktrack/platform';
import { eventually, MessagePublisher, testKafka, type TestKafka } from '@worktrack/testing';
import { TokenRegistry } from '../src/auth/token-registry';
import { GatewayConfig } from '../src/gateway.config';

// D-37 on the real broker: the registry reads identity.tokens from the start, refuses what it knows to be
// wrong, waits briefly for an id it does not know yet, and leaves everything to identity until it is complete.

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const base32 = (n: number): string => Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz234567'[b % 32]).join('');

function token(revoked = false, expiresAt: string | null = null): { state: TokenStateV1; secretSha256: string } {
  const secretSha256 = sha(randomBytes(16).toString('hex'));
  return { state: { tokenId: base32(8), secretCheck: secretSha256.slice(0, 16), revoked, expiresAt }, secretSha256 };
}

describe('TokenRegistry (D-37)', () => {
  const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}registry-it-${randomBytes(3).toString('hex')}.`;
  let kafka: TestKafka;
  let publisher: MessagePublisher;
  const registries: Array<{ registry: TokenRegistry; kafka: TestKafka }> = [];

  const start = async (graceMs = 1_000): Promise<TokenRegistry> => {
    const own = testKafka('registry', { KAFKA_TOPIC_PREFIX: prefix });
    const config = loadConfig(GatewayConfig, { ...process.env, KAFKA_TOPIC_PREFIX: prefix, TOKEN_REGISTRY_GRACE_MS: String(graceMs) });
    const registry = new TokenRegistry(own.client, config, own.logger, own.metrics);
    await registry.onApplicationBootstrap();
    registries.push({ registry, kafka: own });
    return registry;
  };

  beforeAll(async () => {
    kafka = testKafka('registry-producer', { KAFKA_TOPIC_PREFIX: prefix });
    await ensureTopics(await kafka.client.admin(), [Topics.identityTokens], prefix);
    publisher = new MessagePublisher(kafka.client);
  }, 60_000);

  afterAll(async () => {
    for (const { registry, kafka: own } of registries) {
      await registry.onApplicationShutdown();
      await own.close();
    }
    await kafka.close();
  });

  it('knows every token the topic held before it started, and judges by id, state and secret check', async () => {
    const valid = token();
    const revoked = token(true);
    const expired = token(false, '2020-01-01T00:00:00.000Z');
    const later = token(false, '2999-01-01T00:00:00.000Z');
    for (const t of [valid, revoked, expired, later]) await publisher.publish(TokenState, t.state, { key: t.state.tokenId });
    const registry = await start();
    await eventually(() => registry.live, 'the registry to be complete and live', 30_000);
    expect(registry.verdict(valid.state.tokenId, valid.secretSha256)).toBe('plausible');
    expect(registry.verdict(later.state.tokenId, later.secretSha256)).toBe('plausible');
    expect(registry.verdict(valid.state.tokenId, sha('another secret'))).toBe('refused');
    expect(registry.verdict(revoked.state.tokenId, revoked.secretSha256)).toBe('refused');
    expect(registry.verdict(expired.state.tokenId, expired.secretSha256)).toBe('refused');
    expect(registry.verdict(base32(8), sha('x'))).toBe('unknown');
    // A revocation arriving later replaces the state.
    await publisher.publish(TokenState, { ...valid.state, revoked: true }, { key: valid.state.tokenId });
    await eventually(() => registry.verdict(valid.state.tokenId, valid.secretSha256) === 'refused', 'the revocation to arrive');
  }, 60_000);

  it('refuses an unknown id after the grace period, and serves one that arrives within it at once', async () => {
    const registry = await start(1_500);
    await eventually(() => registry.live, 'the registry to be complete and live', 30_000);
    let started = Date.now();
    expect(await registry.awaitVerdict(base32(8), sha('guess'))).toBe('refused');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);

    const minted = token();
    started = Date.now();
    const verdict = registry.awaitVerdict(minted.state.tokenId, minted.secretSha256);
    await publisher.publish(TokenState, minted.state, { key: minted.state.tokenId });
    expect(await verdict).toBe('plausible');
    expect(Date.now() - started).toBeLessThan(1_400);
  }, 60_000);

  it('is undecided (identity answers) until it has read the whole topic', async () => {
    const own = testKafka('registry-cold', { KAFKA_TOPIC_PREFIX: prefix });
    const config = loadConfig(GatewayConfig, { ...process.env, KAFKA_TOPIC_PREFIX: prefix });
    const registry = new TokenRegistry(own.client, config, own.logger, own.metrics);
    registries.push({ registry, kafka: own });
    expect(registry.live).toBe(false);
    expect(registry.verdict(base32(8), sha('x'))).toBe('undecided');
    expect(await registry.awaitVerdict(base32(8), sha('x'))).toBe('undecided');
  }, 30_000);
});
