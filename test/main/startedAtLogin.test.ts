import { describe, expect, it } from 'vitest';
import { startedAtLogin, type LoginItemApp } from '../../src/main/electron/loginItem.js';

/** Electron's app as a login item left it: what getLoginItemSettings answers at this start. */
function appWith(settings: { wasOpenedAsHidden?: boolean; wasOpenedAtLogin?: boolean }): LoginItemApp {
  return { setLoginItemSettings: () => undefined, getLoginItemSettings: () => settings };
}

describe('a start by the login item shows only the tray', () => {
  it('macOS 13 and later: opened at login (wasOpenedAsHidden is always false there) starts hidden', () => {
    expect(startedAtLogin(['/Applications/Svc Monitor.app/Contents/MacOS/Svc Monitor'], appWith({ wasOpenedAtLogin: true, wasOpenedAsHidden: false }), 'darwin')).toBe(true);
  });

  it('macOS 12: the hidden login item still counts; a start by the user shows the window', () => {
    expect(startedAtLogin([], appWith({ wasOpenedAsHidden: true }), 'darwin')).toBe(true);
    expect(startedAtLogin([], appWith({ wasOpenedAtLogin: false, wasOpenedAsHidden: false }), 'darwin')).toBe(false);
  });

  it('Linux and Windows: only the --hidden argument the autostart entry or login item passes', () => {
    expect(startedAtLogin(['svc-monitor', '--hidden'], appWith({}), 'linux')).toBe(true);
    expect(startedAtLogin(['svc-monitor'], appWith({ wasOpenedAtLogin: true }), 'win32')).toBe(false);
  });
});
