import { ErrorCode, type VerifiedTokenV1 } from '@worktrack/contracts';
import { createLogger, DomainError, Metrics, type KafkaClient } from '@worktrack/platform';
import type { GatewayConfig } from '../gateway.config';
import type { CommandClientHost } from '../rpc/command-client.host';
import { ApiTokenVerifier } from './api-token.verifier';

// The cache logic alone: identity's answers are scripted here; the real round
// trip, the revocation feed and D-10 across replicas are in e2e/identity.e2e-spec.ts.

const TTL = 2_000; // below the 4 s a cached entry is trusted without a live revocation feed
const TOKEN = `wt_${'a'.repeat(8)}_${'s'.repeat(43)}`;
const OTHER = `wt_${'b'.repeat(8)}_${'s'.repeat(43)}`;

interface Call {
  tokenId: string;
  answer: (result: VerifiedTokenV1 | DomainError) => void;
}

function setup() {
  const calls: Call[] = [];
  const send = jest.fn(
    (_contract: unknown, payload: { tokenId: string }) =>
      new Promise<VerifiedTokenV1>((resolve, reject) => {
        calls.push({ tokenId: payload.tokenId, answer: (r) => (r instanceof DomainError ? reject(r) : resolve(r)) });
      }),
  );
  const verifier = new ApiTokenVerifier(
    { client: { send } } as unknown as CommandClientHost,
    {} as KafkaClient,
    { TOKEN_CACHE_TTL_MS: TTL } as GatewayConfig,
    createLogger('verifier-spec', 'error', 'test'),
    new Metrics('verifier-spec'),
  );
  const ok = (tokenId: string): VerifiedTokenV1 => ({
    actor: { memberId: `m-${tokenId}`, workspaceId: 'w-1', scope: 'full', credential: 'api_token' },
  });
  const settle = () => new Promise((r) => setImmediate(r));
  /** A verified token, used again at 80 % of its TTL: past its refresh point, so that use sent calls[1]. */
  const usedPastRefreshPoint = async (): Promise<void> => {
    const first = verifier.verify(TOKEN);
    calls[0].answer(ok(calls[0].tokenId));
    await first;
    jest.advanceTimersByTime(TTL * 0.8);
    await verifier.verify(TOKEN);
  };
  return { verifier, send, calls, ok, settle, usedPastRefreshPoint };
}

const refused = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');
const away = () => new DomainError(ErrorCode.UNAVAILABLE, 'The service did not answer within 5000 ms.');

describe('ApiTokenVerifier cache', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] }));
  afterEach(() => jest.useRealTimers());

  it('asks identity once for concurrent requests with one unknown token', async () => {
    const { verifier, send, calls, ok } = setup();
    const requests = [verifier.verify(TOKEN), verifier.verify(TOKEN), verifier.verify(TOKEN), verifier.verify(OTHER)];
    expect(send).toHaveBeenCalledTimes(2);
    for (const c of calls) c.answer(ok(c.tokenId));
    const principals = await Promise.all(requests);
    const [first, second] = calls.map((c) => `m-${c.tokenId}`);
    expect(principals.map((p) => p.memberId)).toEqual([first, first, first, second]);
  });

  it('serves a token in use from the cache and re-verifies it in the background, so it never expires on the request path', async () => {
    const { verifier, send, calls, ok, settle } = setup();
    const first = verifier.verify(TOKEN);
    calls[0].answer(ok(calls[0].tokenId));
    await first;

    jest.advanceTimersByTime(TTL * 0.4); // before the refresh point: a plain hit
    await verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(1);

    jest.advanceTimersByTime(TTL * 0.4); // 80 % of the TTL: past the refresh point (50–75 %)
    const served = await verifier.verify(TOKEN); // answered at once, while identity has not answered the refresh
    expect(served.memberId).toBe(`m-${calls[0].tokenId}`);
    expect(send).toHaveBeenCalledTimes(2);
    await verifier.verify(TOKEN); // one refresh at a time
    expect(send).toHaveBeenCalledTimes(2);
    calls[1].answer(ok(calls[1].tokenId));
    await settle();

    jest.advanceTimersByTime(TTL * 0.4); // 120 % of the first verification's TTL: the refreshed entry serves
    await verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('drops the entry when the background re-verification is refused', async () => {
    const { verifier, send, calls, settle, usedPastRefreshPoint } = setup();
    await usedPastRefreshPoint();
    calls[1].answer(refused());
    await settle();

    const next = verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(3); // not served from the cache
    calls[2].answer(refused());
    await expect(next).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('keeps serving until the TTL when identity is away during a refresh, then asks on the request path', async () => {
    const { verifier, send, calls, settle, usedPastRefreshPoint } = setup();
    await usedPastRefreshPoint();
    calls[1].answer(away());
    await settle();
    await expect(verifier.verify(TOKEN)).resolves.toMatchObject({ memberId: `m-${calls[0].tokenId}` });
    expect(send).toHaveBeenCalledTimes(3); // that use tried again in the background
    calls[2].answer(away());
    await settle();

    jest.advanceTimersByTime(TTL * 0.3); // past the TTL
    const late = verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(4);
    calls[3].answer(away());
    await expect(late).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
  });

  it('does not cache an answer that was under way when the revocation arrived', async () => {
    const { verifier, send, calls, ok } = setup();
    const pending = verifier.verify(TOKEN);
    jest.advanceTimersByTime(1);
    verifier.forget(calls[0].tokenId); // the feed's TokenRevoked, before identity's (older) answer
    calls[0].answer(ok(calls[0].tokenId));
    await pending; // this request was verified before the revocation
    const next = verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(2); // but nothing was cached from it
    calls[1].answer(refused());
    await expect(next).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });
});
