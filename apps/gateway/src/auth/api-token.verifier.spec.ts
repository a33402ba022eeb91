import { ErrorCode, type MemberV1, type VerifiedTokenV1 } from '@worktrack/contracts';
import { CommandClient, createLogger, DomainError, type KafkaClient, Metrics } from '@worktrack/platform';
import type { GatewayConfig } from '../gateway.config';
import { ApiTokenVerifier } from './api-token.verifier';
import { TokenRegistry } from './token-registry';

// The cache logic alone: identity's answers are scripted here; the real round
// trip, the revocation feed and D-10 across replicas are in e2e/identity.e2e-spec.ts.

const TTL = 2_000; // below the 4 s a cached entry is trusted without a live revocation feed
const TOKEN = `wt_${'a'.repeat(8)}_${'s'.repeat(43)}`;
const OTHER = `wt_${'b'.repeat(8)}_${'s'.repeat(43)}`;

interface Call {
  tokenId: string;
  memberId?: string;
  answer: (result: VerifiedTokenV1 | MemberV1 | DomainError) => void;
}

function setup() {
  const calls: Call[] = [];
  const send = jest.fn(
    (_contract: unknown, payload: { tokenId: string; memberId?: string }) =>
      new Promise<VerifiedTokenV1 | MemberV1>((resolve, reject) => {
        calls.push({
          tokenId: payload.tokenId,
          memberId: payload.memberId,
          answer: (r) => (r instanceof DomainError ? reject(r) : resolve(r)),
        });
      }),
  );
  const config = { TOKEN_CACHE_TTL_MS: TTL, TOKEN_REGISTRY_GRACE_MS: 0 } as GatewayConfig;
  const logger = createLogger('verifier-spec', 'error', 'test');
  // A registry that never started: not live, so it leaves every token to identity (its own spec covers it).
  const registry = new TokenRegistry({} as KafkaClient, config, logger, new Metrics('verifier-spec-registry'));
  const verifier = new ApiTokenVerifier(
    { send } as unknown as CommandClient,
    {} as KafkaClient,
    config,
    registry,
    logger,
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

  it('drops the entry when the background re-verification is refused, and refuses the token without asking again', async () => {
    const { verifier, send, calls, settle, usedPastRefreshPoint } = setup();
    await usedPastRefreshPoint();
    calls[1].answer(refused());
    await settle();

    await expect(verifier.verify(TOKEN)).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect(send).toHaveBeenCalledTimes(2); // not served from the cache, refused from the negative cache
    jest.advanceTimersByTime(TTL); // a refusal is remembered for one TTL
    const later = verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(3);
    calls[2].answer(refused());
    await expect(later).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('refuses every secret of a token id identity does not know, for one TTL, without a round trip', async () => {
    const { verifier, send, calls } = setup();
    const first = verifier.verify(TOKEN);
    calls[0].answer(new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.', [{ path: 'token_id', issue: 'unknown' }]));
    await expect(first).rejects.toEqual(expect.objectContaining({ code: ErrorCode.UNAUTHENTICATED, details: undefined }));
    const sameId = `wt_${'a'.repeat(8)}_${'t'.repeat(43)}`;
    for (let i = 0; i < 50; i++) await expect(verifier.verify(sameId)).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect(send).toHaveBeenCalledTimes(1);
    const other = verifier.verify(OTHER); // another id is asked for
    expect(send).toHaveBeenCalledTimes(2);
    calls[1].answer(refused());
    await expect(other).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('does not remember a refusal when identity is away', async () => {
    const { verifier, send, calls } = setup();
    const first = verifier.verify(TOKEN);
    calls[0].answer(away());
    await expect(first).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    const again = verifier.verify(TOKEN);
    expect(send).toHaveBeenCalledTimes(2);
    calls[1].answer(refused());
    await expect(again).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
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

const WS = '0b0b0b0b-0000-4000-8000-000000000001';
const MEMBER = '0b0b0b0b-0000-4000-8000-0000000000aa';
const member = (over: Partial<MemberV1> = {}): MemberV1 => ({
  memberId: MEMBER,
  workspaceId: WS,
  kind: 'human',
  role: 'member',
  displayName: 'm',
  email: null,
  timezone: 'Asia/Tokyo',
  workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
  plateCapacity: 6,
  version: 1,
  active: true,
  ...over,
});

describe('ApiTokenVerifier members (JWT claims and assignees)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] }));
  afterEach(() => jest.useRealTimers());

  it('resolves JWT claims to the member identity knows, in canonical lower case, once per TTL', async () => {
    const { verifier, send, calls } = setup();
    const pending = verifier.verifyJwt(WS.toUpperCase(), MEMBER.toUpperCase());
    expect(calls[0].memberId).toBe(MEMBER);
    calls[0].answer(member());
    await expect(pending).resolves.toMatchObject({
      memberId: MEMBER,
      workspaceId: WS,
      credential: 'jwt',
      profile: { timezone: 'Asia/Tokyo' },
    });
    await verifier.verifyJwt(WS, MEMBER);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('refuses claims naming a member identity does not confirm, and does not remember that (a new member works at once)', async () => {
    const { verifier, send, calls } = setup();
    const pending = verifier.verifyJwt(WS, MEMBER);
    calls[0].answer(refused());
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    const next = verifier.verifyJwt(WS, MEMBER);
    expect(send).toHaveBeenCalledTimes(2);
    calls[1].answer(member());
    await expect(next).resolves.toMatchObject({ memberId: MEMBER });
  });

  it('drops a deactivated member at once, and does not cache a lookup that was under way', async () => {
    const { verifier, send, calls } = setup();
    const first = verifier.resolveMember(WS, MEMBER);
    calls[0].answer(member());
    await first;
    const racing = verifier.resolveMember(WS, MEMBER); // a cache hit: served
    await racing;
    jest.advanceTimersByTime(TTL); // expired: the next use asks
    const underWay = verifier.resolveMember(WS, MEMBER);
    jest.advanceTimersByTime(1);
    verifier.memberChanged(member({ version: 2, active: false }));
    calls[1].answer(member()); // identity's older answer
    await underWay;
    const after = verifier.resolveMember(WS, MEMBER);
    expect(send).toHaveBeenCalledTimes(3);
    calls[2].answer(refused());
    await expect(after).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
  });

  it('serves the newer profile once the feed announces it, and never an older one', async () => {
    const { verifier, calls } = setup();
    const first = verifier.resolveMember(WS, MEMBER);
    calls[0].answer(member({ version: 3 }));
    await first;
    verifier.memberChanged(member({ version: 4, timezone: 'Europe/Berlin' }));
    await expect(verifier.resolveMember(WS, MEMBER)).resolves.toMatchObject({ version: 4, timezone: 'Europe/Berlin' });
    verifier.memberChanged(member({ version: 2, timezone: 'America/Lima' })); // a late, older message
    await expect(verifier.resolveMember(WS, MEMBER)).resolves.toMatchObject({ version: 4, timezone: 'Europe/Berlin' });
  });
});
