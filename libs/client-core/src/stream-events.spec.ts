import { parsePatch, parsePublicPatch } from './snapshot.js';
import { goawayDelayMs, readStreamEvent, resyncNeeded } from './stream-events.js';

describe('readStreamEvent', () => {
  it('reads goaway with its delay clamped to 0–60000, 1000 when unreadable', () => {
    expect(readStreamEvent({ event: 'goaway', data: '{"reconnect_in_ms":2500}' }, parsePatch)).toEqual({
      type: 'goaway',
      delayMs: 2500,
    });
    expect(goawayDelayMs('{"reconnect_in_ms":600000}')).toBe(60_000);
    expect(goawayDelayMs('{"reconnect_in_ms":-5}')).toBe(0);
    expect(goawayDelayMs('{"reconnect_in_ms":"soon"}')).toBe(1000);
    expect(goawayDelayMs('not json')).toBe(1000);
  });

  it('reads resync with its revision, if a number', () => {
    expect(readStreamEvent({ event: 'resync', data: '{"revision":42}' }, parsePatch)).toEqual({
      type: 'resync',
      revision: 42,
    });
    expect(readStreamEvent({ event: 'resync', data: '{}' }, parsePatch)).toEqual({
      type: 'resync',
      revision: undefined,
    });
  });

  it('parses a patch, and names what is wrong with a malformed one (never a value)', () => {
    const ok = readStreamEvent({ event: 'patch', data: '{"base":1,"revision":2,"configs":{"a.b":3}}' }, parsePatch);
    expect(ok.type === 'patch' && ok.patch.configs.get('a.b')).toBe(3);
    expect(readStreamEvent({ event: 'patch', data: '{' }, parsePatch)).toEqual({
      type: 'malformed',
      problem: 'not valid JSON',
    });
    const bad = readStreamEvent(
      {
        event: 'patch',
        data: '{"base":1,"revision":2,"secrets":{"s":{"type":"text","value":7,"version":1}}}',
      },
      parsePatch,
    );
    expect(bad).toEqual({ type: 'malformed', problem: expect.stringContaining('$.secrets["s"].value') });
  });

  it('with the public parser, a patch carries no secrets and reads none', () => {
    const data =
      '{"base":1,"revision":2,"configs":{"a":1},"secrets":{"s":{"type":"text","value":7}},"deleted":{"secrets":[1]}}';
    const read = readStreamEvent({ event: 'patch', data }, parsePublicPatch);
    expect(
      read.type === 'patch' && [read.patch.configs.get('a'), read.patch.secrets.size, read.patch.deleted.secrets],
    ).toEqual([1, 0, []]);
  });

  it('ignores unknown events (forward compatibility)', () => {
    expect(readStreamEvent({ event: 'message', data: '{}' }, parsePatch)).toEqual({ type: 'ignore' });
  });

  it('a resync syncs unless the cache holds the revision it names', () => {
    expect(resyncNeeded(42, 42)).toBe(false);
    expect(resyncNeeded(41, 42)).toBe(true);
    expect(resyncNeeded(42, undefined)).toBe(true);
  });
});
