import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('build/electron-builder.yml', () => {
  it('is valid against electron-builder’s own configuration schema and packages the built bundles, icons and protocol', async () => {
    const yaml = require('js-yaml') as { load(text: string): unknown };
    const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };
    const config = yaml.load(await readFile('build/electron-builder.yml', 'utf8')) as Record<string, unknown>;
    const schema = JSON.parse(await readFile(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
    const ok = validate(config);
    expect(validate.errors ?? null, JSON.stringify(validate.errors)).toBeNull();
    expect(ok).toBe(true);
    expect(config['files']).toEqual(expect.arrayContaining(['out/**', 'build/tray/**']));
    expect(config['protocols']).toEqual([{ name: 'Svc Monitor task link', schemes: ['svc-monitor'] }]);
    for (const icon of ['build/icon.png', 'build/tray/tray.png', 'build/tray/tray-unread.png']) {
      const bytes = await readFile(icon);
      expect(bytes.subarray(1, 4).toString('ascii'), icon).toBe('PNG');
      expect((await stat(icon)).size).toBeGreaterThan(100);
    }
    // Linux packages: a maintainer for the deb, and the .desktop file named after package.json
    // desktopName (Electron's app id / WM_CLASS) so docks group the window with its launcher.
    expect(config['linux']).toMatchObject({ executableName: 'svc-monitor', syncDesktopName: true, maintainer: expect.stringMatching(/^.+ <[^@\s]+@[^@\s]+>$/) });
    expect(config['npmRebuild']).toBe(false); // keytar is N-API: nothing to rebuild for Electron
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ main: 'out/main/index.js', desktopName: 'svc-monitor.desktop', homepage: expect.stringMatching(/^https:\/\//), author: { name: expect.any(String), email: expect.stringMatching(/^[^@\s]+@[^@\s]+$/) } });
    // The hub client's Node transports load at run time: it ships as a production dependency.
    expect(Object.keys(pkg['dependencies'] as object)).toEqual(expect.arrayContaining(['keytar', '@microsoft/signalr']));
    // electron-builder wants at least 256×256 for the app icon.
    const png = await readFile('build/icon.png');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
  });
});
