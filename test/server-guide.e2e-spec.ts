import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// The server README is a user's guide of at most 500 lines (#48); operations live in docs/operating.md and the
// in-process testing API in docs/testing-with-the-server.md. The three link each other by section, so a section
// renamed or moved must not leave a link pointing at nothing.
const ROOT = resolve(__dirname, '..');
const GUIDE = 'libs/server/README.md';
const GUIDES = [GUIDE, 'docs/operating.md', 'docs/testing-with-the-server.md'];
/** The guides, and the documents that link into them. */
const LINKING = [...GUIDES, 'README.md', 'docs/protocol.md', 'docs/outages-and-rotation.md', 'docs/development.md'];
const MAX_LINES = 500;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** The anchors of a Markdown document's headings (fenced blocks skipped: a `#` comment is no heading). */
function anchorsOf(text: string): Set<string> {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1]!)));
}

/** The relative links of `file` whose file or heading does not exist, as `file: link`. */
function brokenLinks(file: string): string[] {
  const text = read(file);
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((link) => !/^[a-z]+:/.test(link))
    .filter((link) => {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
      if (!existsSync(target)) return true;
      return anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor);
    })
    .map((link) => `${file}: ${link}`);
}

describe("the server's guides", () => {
  it(`keeps the server README a user's guide of at most ${MAX_LINES} lines`, () => {
    expect(read(GUIDE).split('\n').length).toBeLessThanOrEqual(MAX_LINES);
  });

  it('sends the reader to the operating guide, the testing guide and the OpenAPI document', () => {
    const guide = read(GUIDE);
    expect(guide).toContain('](../../docs/operating.md');
    expect(guide).toContain('](../../docs/testing-with-the-server.md)');
    expect(guide).toContain('`GET /admin/v1/openapi.json`');
    expect(guide).toContain('`@vane/server/openapi.json`');
  });

  it('computes anchors as GitHub does', () => {
    expect(headingAnchor('Run Vane for a fleet')).toBe('run-vane-for-a-fleet');
    expect(headingAnchor('The admin API, route by route')).toBe('the-admin-api-route-by-route');
    expect(headingAnchor('`startVaneServer`')).toBe('startvaneserver');
  });

  it.each(LINKING)('%s links only to files and headings that exist', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('reads headings outside fenced blocks only', () => {
    expect(anchorsOf('# A\n```sh\n# not a heading\n```\n## B c\n')).toEqual(new Set(['a', 'b-c']));
  });
});
