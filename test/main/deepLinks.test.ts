import { describe, expect, it } from 'vitest';
import { findDeepLinkArgument, formatDeepLink, parseDeepLink } from '../../src/main/deepLinks/parseDeepLink.js';

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('svc-monitor:// deep links', () => {
  it('parses an environment (name, percent-decoded) and a task id', () => {
    expect(parseDeepLink(`svc-monitor://Production/tasks/${ID}`)).toEqual({ environment: 'Production', taskId: ID });
    expect(parseDeepLink(`svc-monitor://Staging%20EU/tasks/${ID}/`)).toEqual({ environment: 'Staging EU', taskId: ID });
    expect(parseDeepLink(formatDeepLink('Ops / 2', ID))).toEqual({ environment: 'Ops / 2', taskId: ID });
  });
  it('refuses anything else with a message naming the problem', () => {
    expect(() => parseDeepLink('https://evil/tasks/' + ID)).toThrow(/expected svc-monitor:\/\/<environment>\/tasks\/<task id>/);
    expect(() => parseDeepLink('svc-monitor://Prod/tasks/not-a-guid')).toThrow(/task id must be a GUID/);
    expect(() => parseDeepLink(`svc-monitor://Prod/queues/${ID}`)).toThrow(/expected/);
    expect(() => parseDeepLink(`svc-monitor://Prod/tasks/${ID}?x=1`)).toThrow(/expected/);
    expect(() => parseDeepLink(`svc-monitor://%E0%A4%A/tasks/${ID}`)).toThrow(/percent-encoding/);
    expect(() => parseDeepLink(`svc-monitor://%0A/tasks/${ID}`)).toThrow(/invalid environment name/);
    expect(() => parseDeepLink('svc-monitor://' + 'a'.repeat(3000) + '/tasks/' + ID)).toThrow(/longer than/);
    expect(() => parseDeepLink('')).toThrow(/empty/);
  });
  it('opens a list page with its filters (copied with "Copy link"), re-serialising the query', () => {
    expect(parseDeepLink('svc-monitor://Production/tasks?status=Failed&queue=mail')).toEqual({ environment: 'Production', path: '/tasks?status=Failed&queue=mail' });
    expect(parseDeepLink('svc-monitor://Staging%20EU/')).toEqual({ environment: 'Staging EU', path: '/' });
    expect(parseDeepLink('svc-monitor://Ops/failures?q=a%20b')).toEqual({ environment: 'Ops', path: '/failures?q=a+b' });
    expect(() => parseDeepLink('svc-monitor://Ops/login')).toThrow(/<page>\?<filters>/);
    expect(() => parseDeepLink('svc-monitor://Ops/tasks/extra/segments')).toThrow(/expected/);
  });
  it('finds the link among a second instance’s arguments', () => {
    expect(findDeepLinkArgument(['/usr/bin/svc-monitor', '--flag', `svc-monitor://Prod/tasks/${ID}`])).toBe(`svc-monitor://Prod/tasks/${ID}`);
    expect(findDeepLinkArgument(['/usr/bin/svc-monitor'])).toBeUndefined();
  });
});
