import { describe, expect, it } from 'vitest';
import { chromeColours } from '../../src/renderer/desktop/chromeTint.js';
import { fuzzyScore, rankEnvironments } from '../../src/renderer/desktop/fuzzyMatch.js';

const envs = [
  { id: '1', name: 'Production EU', baseUrl: 'https://eu.ops.example.com', group: 'EU' },
  { id: '2', name: 'Staging', baseUrl: 'http://staging.internal', favourite: true },
  { id: '3', name: 'Production US', baseUrl: 'https://us.ops.example.com', group: 'US' },
  { id: '4', name: 'Dev', baseUrl: 'http://127.0.0.1:5080' },
];

describe('Ctrl/Cmd+K fuzzy switcher ranking', () => {
  it('matches characters in order, ranks word starts and runs first', () => {
    expect(fuzzyScore('prdus', 'Production US')).not.toBeNull();
    expect(fuzzyScore('usprd', 'Production US')).toBeNull();
    expect(rankEnvironments(envs, 'pus').map((e) => e.name)[0]).toBe('Production US');
    expect(rankEnvironments(envs, 'peu').map((e) => e.name)[0]).toBe('Production EU');
    expect(rankEnvironments(envs, 'stg').map((e) => e.name)).toEqual(['Staging']);
    expect(rankEnvironments(envs, 'zzz')).toEqual([]);
  });
  it('lists favourites first for an empty query and searches groups and addresses too', () => {
    expect(rankEnvironments(envs, '').map((e) => e.name)[0]).toBe('Staging');
    expect(rankEnvironments(envs, '5080').map((e) => e.name)).toEqual(['Dev']);
    expect(rankEnvironments(envs, 'US').map((e) => e.name)[0]).toBe('Production US');
  });
});

describe('chrome tint', () => {
  it('picks readable text on the environment colour', () => {
    expect(chromeColours('#dc2626')).toEqual({ base: '#dc2626', text: '#ffffff', soft: 'rgba(220, 38, 38, 0.14)' });
    expect(chromeColours('#facc15').text).toBe('#111111');
    expect(chromeColours('nonsense').base).toBe('#2563eb');
  });
});
