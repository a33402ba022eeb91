import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(__dirname, '..');

/** The Markdown files a reader browses: the README, docs/ (with the ADRs), and every app's and lib's README. */
function markdownFiles(): string[] {
  const files = [join(root, 'README.md'), join(root, 'k8s', 'README.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  for (const group of ['apps', 'libs']) {
    for (const name of readdirSync(join(root, group))) files.push(join(root, group, name, 'README.md'));
  }
  return files.filter((f) => existsSync(f));
}

/** Relative link targets of a Markdown text: `[text](target)` and `[label]: target`, outside code blocks and spans. */
export function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...prose.matchAll(/\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? m[2]),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#') && !t.startsWith('//'));
}

/** Whether a relative link of `file` misses: no such file or folder, or one outside the repository. */
export function isBroken(file: string, link: string): boolean {
  const target = resolve(dirname(file), decodeURIComponent(link.split('#')[0].split('?')[0]));
  if (relative(root, target).startsWith('..')) return true;
  return !existsSync(target) || !(statSync(target).isFile() || statSync(target).isDirectory());
}

describe('documentation links', () => {
  it('finds the links it checks', () => {
    expect(
      relativeLinks('[a](docs/x.md) [b](https://e.com) [c](#top) `[d](no.md)` [e](<y z.md> "t")\n[f]: ./g.md\n```\n[h](no.md)\n```'),
    ).toEqual(['docs/x.md', 'y z.md', './g.md']);
  });

  it.each(markdownFiles().map((f) => [relative(root, f)]))(
    'every relative link in %s resolves to a file or folder in the repository',
    (file) => {
      const path = join(root, file);
      const broken = relativeLinks(readFileSync(path, 'utf8')).filter((link) => {
        const target = resolve(dirname(path), decodeURIComponent(link.split('#')[0].split('?')[0]));
        return (
          relative(root, target).startsWith('..') || !existsSync(target) || !(statSync(target).isFile() || statSync(target).isDirectory())
        );
      });
      expect(broken).toEqual([]);
    },
  );
});
