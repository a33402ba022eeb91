/**
 * A page bounded in bytes as well as rows: the longest prefix of
 * `rows` whose sizes add up to at most `budget` bytes, and always the first
 * row (every row alone fits a reply by construction). The caller pages on
 * from the last row it kept, so nothing is skipped.
 */
export function takeWithinBytes<T>(rows: readonly T[], budget: number, size: (row: T) => number): T[] {
  let used = 0;
  let n = 0;
  while (n < rows.length) {
    const next = size(rows[n]);
    if (n > 0 && used + next > budget) break;
    used += next;
    n++;
  }
  return rows.slice(0, n);
}
