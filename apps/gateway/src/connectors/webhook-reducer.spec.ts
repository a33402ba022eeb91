import { reduceGithubDelivery } from './webhook-reducer';

const commit = (i: number, files: number) => ({
  id: i.toString(16).padStart(40, '0'),
  distinct: i % 3 === 0,
  message: `m${i} `.repeat(200),
  timestamp: '2026-11-24T04:00:00Z',
  added: Array.from({ length: files }, (_, f) => `path/to/file-${f}.ts`),
});

describe('reduceGithubDelivery (ADR 0011)', () => {
  it('keeps every commit (so counts stay exact) and the head commit, and fits the bound', () => {
    const body = {
      ref: 'refs/heads/main',
      commits: Array.from({ length: 2048 }, (_, i) => commit(i, 300)),
      head_commit: commit(2047, 300),
    };
    const reduced = reduceGithubDelivery(body, 2 * 1024 * 1024)!;
    expect(Buffer.byteLength(reduced.json)).toBeLessThanOrEqual(2 * 1024 * 1024);
    const parsed = JSON.parse(reduced.json) as { commits: Array<{ id: string; distinct: boolean }>; head_commit: { id: string } };
    expect(parsed.commits).toHaveLength(2048);
    expect(parsed.commits.filter((c) => c.distinct)).toHaveLength(body.commits.filter((c) => c.distinct).length);
    expect(parsed.head_commit.id).toBe(body.head_commit.id);
    expect(reduced.cut).toBeGreaterThan(0);
  });

  it('cuts a list longer than GitHub’s 2048 commits, and refuses what cannot fit or is not an object', () => {
    const many = reduceGithubDelivery({ commits: Array.from({ length: 3000 }, (_, i) => ({ id: String(i) })) }, 1024 * 1024)!;
    expect((JSON.parse(many.json) as { commits: unknown[] }).commits).toHaveLength(2048);
    expect(reduceGithubDelivery({ commits: Array.from({ length: 2048 }, (_, i) => commit(i, 1)) }, 1000)).toBeUndefined();
    expect(reduceGithubDelivery([1, 2], 1000)).toBeUndefined();
    expect(reduceGithubDelivery('x', 1000)).toBeUndefined();
  });

  it('leaves a "__proto__" key a plain key and never splits a surrogate pair', () => {
    const body = JSON.parse(`{"__proto__": {"polluted": true}, "title": "${'😀'.repeat(600)}"}`) as unknown;
    const reduced = reduceGithubDelivery(body, 1024 * 1024)!;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(reduced.json).toContain('"__proto__"');
    const title = (JSON.parse(reduced.json) as { title: string }).title;
    expect(title.length).toBeLessThanOrEqual(1024);
    expect(Buffer.from(title, 'utf8').toString('utf8')).toBe(title);
    expect(/[\uD800-\uDBFF]$/.test(title)).toBe(false);
  });
});
